package noloss

import (
	"bytes"
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

// Adversarial tests of git config taskclean.preRemove (and of run() passing
// every target of a wave to deleteBranches): a command the clean runs in
// each worktree before it stops, saves and removes it.

// setHook sets git config taskclean.preRemove in repo.
func setHook(t *testing.T, repo, cmd string) {
	t.Helper()
	git(t, repo, "config", "taskclean.preRemove", cmd)
}

// procsIn lists the processes whose working directory is dir or below.
// Without /proc (macOS) it lists the pids in pidFile (what a hook
// started) that are still running: alive, and no zombie waiting for init
// to reap it.
func procsIn(dir, pidFile string) []int {
	var pids []int
	if runtime.GOOS != "linux" {
		data, _ := os.ReadFile(pidFile)
		for _, f := range strings.Fields(string(data)) {
			pid, err := strconv.Atoi(f)
			if err != nil || pid <= 1 || syscall.Kill(pid, 0) != nil {
				continue
			}
			// ps fails once the process is gone.
			out, err := exec.Command("ps", "-o", "stat=", "-p", f).Output()
			if err == nil && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z") {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue
		}
		if cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator)) ||
			strings.HasPrefix(cwd, dir+".taskclean-") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killPidFile kills the process whose pid a hook wrote to file (a process
// the test's own hook started).
func killPidFile(file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// A hook that commits the worktree's work ("git add -A && git commit", the
// most natural way to keep it) moves HEAD after the clean read it. The save
// is still built on the HEAD read before the hook (worktree.SaveInput.Head
// = Worktree.Head from the gather): git status against the new HEAD is
// clean, so the save is "HEAD's tree" of the OLD head, and the save action
// reports nothing staged, unstaged or untracked. --restore then brings the
// worktree back at the old HEAD, without any of the work (on a branch: the
// work is on the branch, which --restore does not check out because it
// "moved"; detached: the hook's commit survives only inside the
// admin/ save, which nothing tells the user to look at).
func TestPreHookCommitThenRestore(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"branch", "detached"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := addWorktree(t, repo, "2.2")
			if mode == "detached" {
				git(t, wt, "checkout", "-q", "--detach")
			}
			makeDirty(t, wt, "hook")
			headFile := filepath.Join(t.TempDir(), "head")
			setHook(t, repo, `git add -A && git commit -qm "wip saved by the hook" && git rev-parse HEAD > `+headFile)
			snap := snapshotForLoss(t, repo)
			doc := cleanOK(t, repo, nil)
			data, err := os.ReadFile(headFile)
			if err != nil {
				t.Fatalf("the hook did not run: %v\n%s", err, doc)
			}
			hookHead := strings.TrimSpace(string(data))
			if mode == "branch" {
				// The hook's commit on the task's branch finished the
				// task: the clean reads the state the hook left, and a
				// finished task's worktree is not stale. It stays, at
				// the hook's commit.
				assertNoLoss(t, snap, repo)
				if got := stateOf(t, wt); got.head != hookHead || got.symref != "refs/heads/"+br22 {
					t.Errorf("the finished task's worktree is at %s (%s), want it kept at the hook's %s on %s", got.head, got.symref, hookHead, br22)
				}
				return
			}
			requireRemoved(t, doc, wt)
			assertNoLoss(t, snap, repo)

			restore(t, repo, wt)
			got := stateOf(t, wt)
			if got.head != hookHead {
				t.Errorf("--restore put HEAD at %s, not at the commit the hook made (%s): the save was built on the HEAD read before the hook", got.head, hookHead)
			}
			if mode == "branch" && got.symref != "refs/heads/"+br22 {
				t.Errorf("--restore left HEAD %q, want it on %s (the branch is where the worktree left it)", got.symref, br22)
			}
			for rel, want := range map[string]string{
				"untracked-hook.txt": "untracked in hook\n",
				"staged-hook.txt":    "staged in hook\n",
				"notes/hook/todo.md": "todo of hook\n",
			} {
				b, err := os.ReadFile(filepath.Join(wt, rel))
				if err != nil || string(b) != want {
					t.Errorf("restored worktree: %s is %q (%v), want %q", rel, b, err, want)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(wt, "src", "f1.txt")); !strings.Contains(string(b), "edit of hook") {
				t.Errorf("restored worktree: src/f1.txt lost its edit: %q", b)
			}
		})
	}
}

// The same committing hook with --task 2.2: the branch moved under the
// clean (it read the tip before the hook), so the compare-and-swap delete
// fails and the whole clean exits non-zero ("delete branches (none
// deleted...)") although the worktree was saved and removed: every --task
// or --all clean with such a hook fails, and leaves the branch behind.
func TestPreHookCommitWithTask(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "task")
	headFile := filepath.Join(t.TempDir(), "head")
	setHook(t, repo, `git add -A && git commit -qm "wip saved by the hook" && git rev-parse HEAD > `+headFile)
	snap := snapshotForLoss(t, repo)
	r, doc := clean(t, repo, nil, "--task", "2.2")
	assertNoLoss(t, snap, repo)
	if r.Code != 0 {
		t.Fatalf("git taskclean --task 2.2 with a committing preRemove: exit %d, want 0\n%s", r.Code, printed(r, doc))
	}
	requireRemoved(t, doc, wt)
	if branchExists(repo, br22) {
		t.Errorf("branch %s still exists after --task 2.2", br22)
	}
	data, _ := os.ReadFile(headFile)
	hookHead := strings.TrimSpace(string(data))
	var saved string
	for _, a := range doc.Find("save_branch", "") {
		if a.Branch == br22 {
			saved = a.Commit
		}
	}
	if saved != hookHead {
		t.Errorf("the branch was saved at %s, not at its tip %s (the commit the hook made)", saved, hookHead)
	}
}

// The hook switches its worktree to another task branch and fails: the
// worktree stays, on that branch. deleteBranches decides which branches a
// staying worktree holds from Worktree.Branch as read BEFORE the hook, so
// --all deletes the branch the kept worktree now has checked out: git is
// left with a worktree on a branch that does not exist (its whole tree shows
// as staged additions on an unborn branch), exactly what Select refuses to
// do; and the report says the old branch is "checked out in ..., which
// stays", which is no longer true.
func TestPreHookSwitchedBranchDeleted(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, repo, "branch", br23, "main") // task 2.3's branch, checked out nowhere
	makeDirty(t, wt, "switch")
	setHook(t, repo, `git switch -q `+br23+` && echo "switched, not done yet" && exit 1`)
	snap := snapshotForLoss(t, repo)
	r, doc := clean(t, repo, nil, "--all")
	if r.Code != 0 || doc == nil {
		t.Fatalf("git taskclean --all: exit %d\n%s", r.Code, printed(r, doc))
	}
	requireSkip(t, doc, wt, "preremove")
	assertNoLoss(t, snap, repo)
	sym := strings.TrimSpace(gitQuiet(wt, "symbolic-ref", "-q", "HEAD"))
	if sym == "refs/heads/"+br23 && !branchExists(repo, br23) {
		t.Errorf("the kept worktree %s has %s checked out, and the clean deleted that branch: HEAD names a branch that does not exist\nactions:\n%s", wt, br23, doc)
	}
	for _, a := range doc.Find("delete_branch", "") {
		if a.Branch == sym[len("refs/heads/"):] && a.Done {
			t.Errorf("deleted %s, which the kept worktree has checked out", a.Branch)
		}
	}
}

func gitQuiet(dir string, args ...string) string {
	out, _ := gitOut(dir, args...)
	return out
}

// A hook past taskclean.preRemoveTimeout: exec.CommandContext kills only
// the `sh` it started, not the hook's children. The hook's `sleep` goes on
// running inside the worktree after the clean returns, and the next clean
// keeps the worktree "in use by pid N (sleep 30)": the clean itself left a
// live process behind in the user's worktree. (The same holds for any
// command the hook runs in a pipeline or list.)
func TestPreHookTimeoutLeavesProcess(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "timeout")
	pidFile := filepath.Join(t.TempDir(), "pids")
	setHook(t, repo, `sleep 30 & echo $! > `+pidFile+`; wait; echo done`)
	git(t, repo, "config", "taskclean.preRemoveTimeout", "1s")
	t.Cleanup(func() { killPidFile(pidFile) })
	snap := snapshotForLoss(t, repo)
	start := time.Now()
	doc := cleanOK(t, repo, nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the clean took %v with a 1s hook timeout", d)
	}
	requireSkip(t, doc, wt, "still running")
	assertNoLoss(t, snap, repo)
	if left := procsIn(wt, pidFile); len(left) > 0 {
		t.Errorf("after the clean timed the hook out, processes it started still work in %s: pids %v", wt, left)
	}
	doc = cleanOK(t, repo, nil, "-n")
	for _, a := range doc.Find("skip_worktree", wt) {
		if strings.Contains(a.Reason, "in use by") {
			t.Errorf("the next clean finds the timed-out hook's child still at work: %s", a.Reason)
		}
	}
}

// A hook that exits 0 after starting a background process that inherits
// its output (a daemon, `tool flush --async`), even one that leaves the
// worktree (cd /): the comment in runHook says the clean does not wait for
// it past the hook's own exit, but exec's WaitDelay makes Wait return
// ErrWaitDelay, which runHook takes for a failure: the worktree is kept
// with "exec: WaitDelay expired before I/O complete", although the hook
// succeeded and nothing works in the worktree.
func TestPreHookBackgroundChildIsNoFailure(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "daemon")
	pidFile := filepath.Join(t.TempDir(), "pid")
	setHook(t, repo, `(cd / && exec sleep 5) & echo $! > `+pidFile+`; echo "flush started"`)
	t.Cleanup(func() { killPidFile(pidFile) })
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil)
	assertNoLoss(t, snap, repo)
	for _, a := range doc.Find("skip_worktree", wt) {
		if strings.Contains(a.Reason, "WaitDelay") {
			t.Errorf("a hook that exited 0 is reported as failed: %s", a.Reason)
		}
	}
	requireRemoved(t, doc, wt)
}

// maxRSS runs git taskclean --run x1y2z3 in repo and returns the peak
// resident size (KiB) of the largest process of its tree.
func maxRSS(t *testing.T, repo string) int64 {
	t.Helper()
	cmd := exec.Command("git", "taskclean", "--run", run)
	cmd.Dir = repo
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("git taskclean: %v\n%s", err, out.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if runtime.GOOS == "darwin" {
		rss >>= 10 // bytes there, KiB on Linux
	}
	return rss
}

// runHook collects the hook's whole output in a bytes.Buffer, copies it to
// a string, and lastLine turns the last line into []rune before cutting it
// to 200 runes: 48 MB of output without a newline (a binary dumped to the
// terminal, `yes`, a verbose build) costs the clean several hundred MB, and
// a chatty hook that runs to its 2-minute timeout can exhaust memory and
// get the clean killed in the middle of its run.
func TestPreHookHugeOutputMemory(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "chatty")
	setHook(t, repo, `echo quiet; exit 1`)
	base := maxRSS(t, repo)
	setHook(t, repo, `head -c 48000000 /dev/zero | tr '\0' x; exit 1`)
	big := maxRSS(t, repo)
	if !testbin.Exists(wt) {
		t.Fatalf("%s removed although its hook failed", wt)
	}
	if big-base > 64<<10 {
		t.Errorf("48 MB of hook output raised the clean's peak memory from %d MiB to %d MiB; only its last line is used", base>>10, big>>10)
	}
}

// The hooks of a wave run one after the other, all before any worktree is
// stopped, on facts (which worktree is live) read before the first: an
// agent that starts working in task 2.x's worktree while the hook of the
// other one runs (up to 2 minutes each) still gets the hook run in its
// live worktree (a hook that stops a server, drops a cache or commits
// everything interferes with live work), although the clean then keeps the
// worktree because it is live.
func TestPreHookNotRunInWorktreeThatCameAlive(t *testing.T) {
	testbin.NeedsLinux(t, "only /proc tells the clean that an agent works in a worktree")
	t.Parallel()
	repo := newRepo(t)
	wts := map[string]string{"2.1": addWorktree(t, repo, "2.1"), "2.2": addWorktree(t, repo, "2.2")}
	for id, wt := range wts {
		makeDirty(t, wt, "alive-"+id)
	}
	dir := t.TempDir()
	log, first := filepath.Join(dir, "log"), filepath.Join(dir, "first")
	setHook(t, repo, `echo "$GIT_TASKCLEAN_TASK" >> `+log+`; if [ ! -e `+first+` ]; then echo "$GIT_TASKCLEAN_TASK" > `+first+`.tmp; mv `+first+`.tmp `+first+`; sleep 2; fi`)
	snap := snapshotForLoss(t, repo)
	done := make(chan struct{})
	var agent *exec.Cmd
	var other string
	go func() {
		defer close(done)
		for i := 0; i < 500; i++ {
			if data, err := os.ReadFile(first); err == nil {
				other = "2.1"
				if strings.TrimSpace(string(data)) == "2.1" {
					other = "2.2"
				}
				agent = exec.Command("sleep", "30")
				agent.Dir = wts[other]
				agent.Start()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	doc := cleanOK(t, repo, nil)
	<-done
	if agent == nil || agent.Process == nil {
		t.Fatalf("the first hook never ran\n%s", doc)
	}
	defer stop(agent)
	requireSkip(t, doc, wts[other], "in use")
	assertNoLoss(t, snap, repo)
	data, _ := os.ReadFile(log)
	for _, id := range strings.Fields(string(data)) {
		if id == other {
			t.Errorf("the hook ran in %s after an agent (pid %d) had started working there", wts[other], agent.Process.Pid)
		}
	}
}

// A hook that removes its own worktree (`git worktree remove --force .`,
// the obvious way to "clean up before the clean"): the clean then reports
// that the worktree stays ("it was locked while the clean ran (or its entry
// cannot be written)") and keeps the task branch because it is "checked
// out in <path>, which stays": both false, the worktree is gone. A report
// must not name as staying a worktree that no longer exists.
func TestPreHookRemovedItsWorktreeReport(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	setHook(t, repo, `git worktree remove --force .`)
	r, doc := clean(t, repo, nil, "--task", "2.2")
	if r.Code != 0 || doc == nil {
		t.Fatalf("git taskclean --task 2.2: exit %d\n%s", r.Code, printed(r, doc))
	}
	if testbin.Exists(wt) {
		t.Fatalf("fixture: the hook did not remove %s", wt)
	}
	for _, a := range doc.Find("skip_worktree", wt) {
		t.Errorf("the report keeps a worktree that is gone: %s", a.Reason)
	}
	for _, a := range doc.Find("skip_branch", "") {
		if strings.Contains(a.Reason, "which stays") {
			t.Errorf("branch %s kept as %q, but that worktree is gone", a.Branch, a.Reason)
		}
	}
}
