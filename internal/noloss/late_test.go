package noloss

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// lateTries is how many times each late writer races a clean;
// NOLOSS_LATE_TRIES raises it for a longer hunt.
func lateTries() int {
	if n, err := strconv.Atoi(os.Getenv("NOLOSS_LATE_TRIES")); err == nil && n > 0 {
		return n
	}
	return 20
}

// startIn starts a program whose working directory is dir: a process at
// work in a worktree.
func startIn(t *testing.T, dir, prog string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func stop(cmd *exec.Cmd) {
	cmd.Process.Kill()
	cmd.Wait()
}

// A file written into a stale worktree while a clean removes it: a write
// that reported success must survive, in the worktree (kept) or in the
// save. A write that failed because the directory was gone is no loss. Each
// try races two writers against one clean: one writes by absolute path into
// task 2.1's worktree, the other from a process working inside task 2.2's.
func TestNoLossLateWriter(t *testing.T) {
	t.Parallel()
	t.Run("race", func(t *testing.T) {
		t.Parallel()
		var wrote [2]atomic.Int32
		var failed atomic.Bool
		t.Cleanup(func() {
			t.Logf("of %d tries, late writes succeeded: %d by path, %d from inside",
				lateTries(), wrote[0].Load(), wrote[1].Load())
		})
		for i := 0; i < lateTries(); i++ {
			t.Run(fmt.Sprintf("try-%02d", i), func(t *testing.T) {
				t.Parallel()
				if failed.Load() {
					return // one failed try says it all; the rest would repeat it
				}
				for k, ok := range lateTry(t, i) {
					if ok {
						wrote[k].Add(1)
					}
				}
				if t.Failed() {
					failed.Store(true)
				}
			})
		}
	})
	// A process working inside a worktree makes it live: kept, naming the
	// process, unless --ignore-live (then saved and removed).
	t.Run("live", func(t *testing.T) {
		testbin.NeedsLinux(t, "only /proc tells the clean that a process works in a worktree")
		t.Parallel()
		repo := newRepo(t)
		wt := addWorktree(t, repo, "2.2")
		makeDirty(t, wt, "live")
		p := startIn(t, wt, "sleep", "60")
		defer stop(p)
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil)
		requireSkip(t, doc, wt, "pid "+strconv.Itoa(p.Process.Pid))
		assertNoLoss(t, snap, repo)
		doc = cleanOK(t, repo, nil, "--ignore-live")
		requireRemoved(t, doc, wt)
		assertNoLoss(t, snap, repo)
	})
}

// lateWrite is one writer of a try.
type lateWrite struct {
	kind, wt, name, data string
	delay                time.Duration
	wait                 func() bool // reports whether the write succeeded
}

// cleanSpan is how long the last clean of a try took: the writers pick
// their moment within it (at least 300 ms), so that they land in every
// phase of the clean however fast the machine is.
var cleanSpan atomic.Int64

// lateTry races the two writers against one clean and says, for the writer
// by path and the one inside, whether its write succeeded.
func lateTry(t *testing.T, i int) (ok [2]bool) {
	t.Helper()
	repo := newRepo(t)
	wts := []string{addWorktree(t, repo, "2.1"), addWorktree(t, repo, "2.2")}
	for _, wt := range wts {
		makeDirty(t, wt, filepath.Base(wt))
	}
	snap := snapshotForLoss(t, repo)
	span := max(300*time.Millisecond, time.Duration(cleanSpan.Load()))
	var writes []*lateWrite
	for k, kind := range []string{"by-path", "inside"} {
		w := &lateWrite{kind: kind, wt: wts[k], name: fmt.Sprintf("late-%s-%d.txt", kind, i),
			delay: time.Duration(rand.Int64N(int64(span)))}
		w.data = fmt.Sprintf("late write %d %s, %v into the clean\n", i, kind, w.delay)
		writes = append(writes, w)
	}
	// By path: a goroutine of the test, at a random moment.
	byPath := writes[0]
	done := make(chan error, 1)
	go func() {
		time.Sleep(byPath.delay)
		done <- os.WriteFile(filepath.Join(byPath.wt, byPath.name), []byte(byPath.data), 0o644)
	}()
	byPath.wait = func() bool { return <-done == nil }
	// From inside: a process whose working directory is the worktree
	// writes by a relative name; a marker outside says it succeeded.
	inside := writes[1]
	marker := filepath.Join(filepath.Dir(repo), "wrote")
	cmd := exec.Command("sh", "-c", `sleep "$1" && printf '%s' "$2" > "$3" && : > "$4"`, "sh",
		fmt.Sprintf("%.3f", inside.delay.Seconds()), inside.data, inside.name, marker)
	cmd.Dir = inside.wt
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inside.wait = func() bool { return cmd.Wait() == nil && testbin.Exists(marker) }

	start := time.Now()
	r, doc := clean(t, repo, nil)
	cleanSpan.Store(int64(time.Since(start)))
	for k, w := range writes {
		if ok[k] = w.wait(); ok[k] {
			snap.expect(w.wt, w.name, []byte(w.data))
		}
	}
	if r.Code != 0 {
		t.Errorf("try %d: exit %d, want 0\n%s", i, r.Code, printed(r, doc))
	}
	lost := lossesOf(snap, repo)
	for _, w := range writes {
		for _, l := range lost {
			if strings.Contains(l, w.name) {
				t.Errorf("try %d: a write %s %v into the clean (of %v) succeeded and is lost", i, w.kind, w.delay, time.Duration(cleanSpan.Load()))
			}
		}
	}
	if len(lost) > 0 {
		t.Errorf("try %d: %d loss(es):\n  %s\nactions:\n%s", i, len(lost), strings.Join(lost, "\n  "), doc)
	}
	return ok
}
