package clean_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// traced runs git taskclean with GIT_TASKRESUME_TRACE and returns the git
// command lines it ran.
func traced(t *testing.T, dir string, args ...string) (testbin.Result, []string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	r := testbin.Taskclean(dir, []string{"GIT_TASKRESUME_TRACE=" + trace}, args...)
	data, _ := os.ReadFile(trace)
	var cmds []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "git ") {
			cmds = append(cmds, l)
		}
	}
	return r, cmds
}

func countPrefix(cmds []string, prefix string) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// A clean reads the run's state once before its lock (bad input, and a
// version the repository does not allow, must neither leave a lock file
// behind nor take the lock an allowed clean waits for), once under it, and
// once more for the report when it changed the run: the first clean of a
// run and every later one alike.
func TestCleanReadsStateTwice(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	if testbin.Exists(lockFile(t, s)) {
		t.Fatal("setup: the lock file exists before the first clean")
	}
	r, cmds := traced(t, s.root, "--run", run)
	if r.Code != 0 {
		t.Fatalf("first clean: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := countPrefix(cmds, "git worktree list"); n != 3 {
		t.Errorf("the first clean read the state %d times, want 3 (before the lock, under it, for the report)", n)
	}
	// Later, another agent crashes in 2.2.
	w := s.wt(wt22)
	gitIn(t, s.root, "", "worktree", "add", "-q", "--detach", w, s.p2)
	writeFiles(t, w, map[string]string{"late.txt": "work of a later agent\n"})
	r, cmds = traced(t, s.root, "--run", run)
	if r.Code != 0 || testbin.Exists(w) {
		t.Fatalf("second clean: exit %d, %s exists: %v\n%s%s", r.Code, w, testbin.Exists(w), r.Stdout, r.Stderr)
	}
	if n := countPrefix(cmds, "git worktree list"); n != 3 {
		t.Errorf("the second clean read the state %d times, want 3 (before the lock, under it, for the report):\n%s", n, strings.Join(cmds, "\n"))
	}
}

// Bad input to a clean of a run whose lock file exists is refused from the
// state read under the lock, before anything changes: an interrupted
// clean's leftovers stay as they are (directories aside, the lock's
// record), and the next good clean finishes them.
func TestBadInputBeforeRecovery(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r := testbin.Taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_AFTER=1"}, "--run", run)
	if r.Code != 99 {
		t.Fatalf("crash after the save: exit %d, want 99\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	aside := s.wt(wt22) + ".taskclean-removing"
	if !testbin.Exists(aside) {
		t.Fatal("setup: the crash was meant to leave 2.2 aside")
	}
	lockBefore, err := os.ReadFile(lockFile(t, s))
	if err != nil {
		t.Fatal(err)
	}
	refsBefore := refs(t, s.root)
	for _, args := range [][]string{{"--run", run, "--task", "9.9"}, {"--run", run, "--base", "no-such-base"}} {
		r = testbin.Taskclean(s.root, nil, args...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "error: ") {
			t.Errorf("%v: exit %d, want 2 with an error line\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		if !testbin.Exists(aside) || testbin.Exists(s.wt(wt22)) {
			t.Errorf("%v: the interrupted clean's directory was moved back: recovery ran on bad input", args)
		}
		if data, _ := os.ReadFile(lockFile(t, s)); string(data) != string(lockBefore) {
			t.Errorf("%v: the lock's record changed:\n%s\nwas:\n%s", args, data, lockBefore)
		}
		if got := refs(t, s.root); !reflect.DeepEqual(got, refsBefore) {
			t.Errorf("%v: refs changed:\n%s", args, strings.Join(diffMaps(refsBefore, got), "\n"))
		}
	}
	out := mustClean(t, s.root, "--run", run)
	if testbin.Exists(aside) || testbin.Exists(s.wt(wt22)) {
		t.Errorf("the good rerun left 2.2:\n%s", out)
	}
}

// The clean reads a worktree's status before it decides only where the
// status can decide a task (a dirty worktree on a branch with commits of
// its own makes that attempt interrupted): a worktree on a branch still at
// the run's start, or detached in a task with no branch past it, is read
// once, by its save, after it is stopped. Here 2.1's worktree is on its
// branch with a commit; 2.2's and 2.3's are detached and their tasks have
// no branch.
func TestCleanStatusOnlyWhereItDecides(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r, cmds := traced(t, s.root, "--run", run)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	before, saves := 0, 0
	for _, c := range cmds {
		switch {
		case strings.HasPrefix(c, "git -c core.splitIndex=false") && strings.Contains(c, " status "):
			saves++
		case strings.HasPrefix(c, "git status ") && saves == 0:
			before++
		}
	}
	if before != 1 || saves != 2 {
		t.Errorf("%d status reads before the saves (want 1: 2.1's) and %d by the saves (want 2):\n%s", before, saves, strings.Join(cmds, "\n"))
	}
	if testbin.Exists(s.wt(wt22)) || testbin.Exists(s.wt(wt23)) || !testbin.Exists(s.wt(wt21)) {
		t.Errorf("want 2.2 and 2.3 removed, 2.1 kept\n%s", r.Stdout)
	}
}

// Where the status decides, it is still read before the clean decides:
// 2.1's branch holds its finished work, and an untracked file left in its
// worktree makes that attempt interrupted, so 2.1 is not done and its
// worktree is stale: removed (and saved) by a plain clean.
func TestCleanStatusStillDecides(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	writeFiles(t, s.wt(wt21), map[string]string{"left-behind.txt": "an agent stopped here\n"})
	out := mustClean(t, s.root, "--run", run)
	if testbin.Exists(s.wt(wt21)) {
		t.Errorf("2.1's worktree, with work left in it, was kept:\n%s", out)
	}
}
