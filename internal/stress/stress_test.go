package stress

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// envCount reads a try count from the environment, def when unset.
func envCount(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// findings shows the first ten failing tries in full, and after them any
// try with a kind of problem not shown yet; it counts the rest, so that a
// long run on broken code stays readable.
type findings struct {
	t     *testing.T
	tries int
	shown map[string]bool
}

// add reports one try's problems, each "kind: detail".
func (f *findings) add(what string, problems []string) {
	f.t.Helper()
	if len(problems) == 0 {
		return
	}
	f.tries++
	if f.shown == nil {
		f.shown = map[string]bool{}
	}
	show := f.tries <= 10
	for _, p := range problems {
		kind, _, _ := strings.Cut(p, ":")
		if !f.shown[kind] {
			f.shown[kind], show = true, true
		}
	}
	if show {
		f.t.Errorf("%s:\n  %s", what, strings.Join(problems, "\n  "))
	}
}

func (f *findings) close(total int) {
	f.t.Helper()
	if f.tries > 10 {
		f.t.Errorf("%d of %d tries failed (shown above: the first 10 and the first of each kind)", f.tries, total)
	}
}

// TestRandomKill: a clean SIGKILLed at a random moment (1 ms to the time an
// uninterrupted clean takes, at least 200 ms), then rerun, loses nothing and
// leaves no lock or temporary folder behind. The commands alternate: the
// default clean, --task 2.2, --all.
func TestRandomKill(t *testing.T) {
	t.Parallel() // the two loops overlap: most of their time is spent waiting
	n := envCount(t, "STRESS_KILLS", 15)
	commands := [][]string{
		{"taskclean", "--run", run},
		{"taskclean", "--run", run, "--task", "2.2"},
		{"taskclean", "--run", run, "--all"},
	}
	var windows []time.Duration
	for _, args := range commands {
		windows = append(windows, window(t, args, 200*time.Millisecond))
	}
	var landed, afterSave, afterRemoval, reruns, rerunFailed, losses, lossTries, leftTries, kept, removed int
	found := &findings{t: t}
	for i := range n {
		f := newFixture(t)
		before := takeSnapshot(t, f.root)
		args, win := commands[i%len(commands)], windows[i%len(commands)]
		delay := time.Millisecond + rand.N(win)
		var problems []string
		killed, first := killAfter(t, f.root, delay, args)
		if killed {
			landed++
			// Which stage the kill hit: saves recorded, a worktree moved
			// aside or removed.
			if testbin.Git(t, f.root, "for-each-ref", "--count=1", "refs/taskclean/") != "" {
				afterSave++
			}
			for _, wt := range f.wts {
				if _, err := os.Lstat(wt); err != nil {
					afterRemoval++
					break
				}
			}
		} else if first.Code != 0 {
			problems = append(problems, fmt.Sprintf("clean failed: it exited %d before the kill: %s", first.Code, strings.TrimSpace(first.Stderr)))
		}
		re := testbin.Run(f.root, nil, "git", args...)
		reruns++
		if re.Code != 0 {
			rerunFailed++
			problems = append(problems, fmt.Sprintf("rerun failed: exit %d: %s", re.Code, strings.TrimSpace(re.Stderr)))
		}
		r := readReachable(t, f.root)
		lost := r.losses(before)
		if len(lost) > 0 {
			losses += len(lost)
			lossTries++
			problems = append(problems, "lost: "+strings.Join(lost, "; "))
		}
		if left := leftovers(t, f.root); len(left) > 0 {
			leftTries++
			problems = append(problems, "left behind: "+strings.Join(left, ", "))
		}
		for _, wt := range f.wts {
			if r.wts[wt] {
				kept++
			} else {
				removed++
			}
		}
		found.add(fmt.Sprintf("try %d: git %s, SIGKILL after %v (landed mid-clean: %v)", i, strings.Join(args, " "), delay, killed), problems)
		f.remove()
	}
	found.close(n)
	t.Logf("random kill summary: %d iterations (kill after 1ms up to %v / %v / %v), %d kills landed mid-clean (%d after saves were recorded, %d after a worktree had left its path), %d reruns (%d failed), %d losses in %d iterations, %d iterations with leftovers, task worktrees kept %d / removed %d",
		n, windows[0].Round(time.Millisecond), windows[1].Round(time.Millisecond), windows[2].Round(time.Millisecond),
		landed, afterSave, afterRemoval, reruns, rerunFailed, losses, lossTries, leftTries, kept, removed)
}

// window is how long an uninterrupted run of args takes on a fresh fixture
// here, and at least floor. Random moments are drawn from it so that they
// fall in every stage of a clean (saves and removals come last) whatever
// the speed of the machine and of the code under test.
func window(t *testing.T, args []string, floor time.Duration) time.Duration {
	t.Helper()
	f := newFixture(t)
	defer f.remove()
	start := time.Now()
	r := testbin.Run(f.root, nil, "git", args...)
	d := time.Since(start)
	if r.Code != 0 {
		t.Fatalf("git %s without interference: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return max(d, floor)
}

// killAfter runs git with args in dir as the leader of a new process group
// and SIGKILLs the whole group (git, git-taskclean and every git it runs)
// after d. It reports whether the kill ended the clean, and what the clean
// printed when it finished first.
func killAfter(t *testing.T, dir string, d time.Duration, args []string) (bool, testbin.Result) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		waitGroupGone(cmd.Process.Pid)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws.Signaled(), testbin.Result{Stdout: out.String(), Stderr: errb.String(), Code: cmd.ProcessState.ExitCode()}
}

// waitGroupGone waits until no live process of group pgid is left: a killed
// child is reaped by init, not by us, and the rerun must not overlap it.
// Zombies do not count (nothing may reap them in a container).
func waitGroupGone(pgid int) {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if !groupAlive(pgid) {
			return
		}
	}
}

func groupAlive(pgid int) bool {
	if runtime.GOOS != "linux" {
		// No /proc (macOS): signal 0 asks whether any process of the
		// group is left; launchd reaps orphans, so none is a zombie.
		return syscall.Kill(-pgid, 0) == nil
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so fields
		// are counted from the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// TestLateWriters: a new file written into a stale worktree while a clean
// removes it, and reported written, is afterwards in the kept worktree or
// reachable from a ref. Even tries write by absolute path from elsewhere,
// odd ones from a process working inside the worktree; the write comes at a
// random moment from the clean's start to the time an uninterrupted clean
// takes (at least 300 ms).
func TestLateWriters(t *testing.T) {
	t.Parallel()
	n := envCount(t, "STRESS_WRITERS", 20)
	type tally struct{ tries, wrote, kept, byPid, removed, lost int }
	var modes [2]tally
	modeName := [2]string{"by path", "from inside"}
	var otherLosses, cleanFailed, leftTries int
	found := &findings{t: t}
	outside := filepath.Join(tmpRoot, "writers")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"taskclean", "--run", run, "--json"}
	win := window(t, args, 300*time.Millisecond)
	for i := range n {
		f := newFixture(t)
		before := takeSnapshot(t, f.root)
		m := i % 2
		md := &modes[m]
		md.tries++
		wt := f.wts[rand.IntN(len(f.wts))]
		name := fmt.Sprintf("late-%d.txt", i)
		content := fmt.Sprintf("late write %d at %d\n", i, time.Now().UnixNano())
		marker := filepath.Join(outside, fmt.Sprintf("marker-%d", i))
		delay := rand.N(win)

		// The writer starts with the clean and sleeps in the shell, so a
		// writer from inside has its working directory there throughout.
		dir, target := wt, name
		if m == 0 {
			dir, target = outside, filepath.Join(wt, name)
		}
		writer := exec.Command("sh", "-c", `sleep "$1"; printf %s "$2" > "$3" && echo ok > "$4"`, "writer",
			fmt.Sprintf("%.3f", delay.Seconds()), content, target, marker)
		writer.Dir = dir
		clean := exec.Command("git", args...)
		clean.Dir = f.root
		var out, errb strings.Builder
		clean.Stdout, clean.Stderr = &out, &errb
		if err := clean.Start(); err != nil {
			t.Fatal(err)
		}
		if err := writer.Start(); err != nil {
			t.Fatal(err)
		}
		writer.Wait() // a failed write is no loss: the marker says which
		clean.Wait()

		var problems []string
		if code := clean.ProcessState.ExitCode(); code != 0 {
			cleanFailed++
			problems = append(problems, fmt.Sprintf("clean failed: exit %d: %s", code, strings.TrimSpace(errb.String())))
		}
		_, err := os.Stat(marker)
		wrote := err == nil
		r := readReachable(t, f.root)
		if r.wts[wt] {
			md.kept++
			if strings.Contains(skipReason(out.String(), wt), "pid") {
				md.byPid++
			}
		} else {
			md.removed++
		}
		if wrote {
			md.wrote++
			if !r.inKept(wt, name, []byte(content)) && !r.objects[blobID(t, f.root, content)] {
				md.lost++
				problems = append(problems, fmt.Sprintf("write lost: %s, written %v after the start and reported done", filepath.Join(wt, name), delay))
			}
		}
		if lost := r.losses(before); len(lost) > 0 {
			otherLosses += len(lost)
			problems = append(problems, "lost from before the clean: "+strings.Join(lost, "; "))
		}
		if left := leftovers(t, f.root); len(left) > 0 {
			leftTries++
			problems = append(problems, "left behind: "+strings.Join(left, ", "))
		}
		found.add(fmt.Sprintf("try %d: writer %s into %s after %v", i, modeName[m], filepath.Base(wt), delay), problems)
		f.remove()
	}
	found.close(n)
	for m, md := range modes {
		t.Logf("late writers summary (%s): %d tries, %d writes succeeded, %d lost; worktree kept %d (%d naming a pid) / removed %d",
			modeName[m], md.tries, md.wrote, md.lost, md.kept, md.byPid, md.removed)
	}
	t.Logf("late writers summary: %d tries (write 0 to %v after the start), %d cleans failed, %d files or commits from before the clean lost, %d tries with leftovers",
		n, win.Round(time.Millisecond), cleanFailed, otherLosses, leftTries)
}

// skipReason returns the reason the clean's JSON gives for keeping path,
// empty when it gives none.
func skipReason(jsonOut, path string) string {
	var res testbin.CleanResult
	if json.Unmarshal([]byte(jsonOut), &res) != nil {
		return ""
	}
	for _, a := range res.Actions {
		if a.Op == "skip_worktree" && a.Path == path {
			return a.Reason
		}
	}
	return ""
}

// blobID is the id content would have as a blob of the repository at root.
func blobID(t *testing.T, root, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--no-filters", "--stdin")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}
