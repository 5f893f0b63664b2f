package clean_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestCleanRemovesOwnEmptyLock: a clean killed inside its save transaction
// just after git created a ref's lock file and before it wrote the value
// leaves an empty lock (the random-kill loop found one). The rerun must
// know it as its own and remove it, as it does a lock holding the value.
func TestCleanRemovesOwnEmptyLock(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r := testbin.Taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_IN_TXN=1"}, "--run", run)
	if r.Code != 99 {
		t.Fatalf("crash in the save transaction: exit %d, want 99\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var locks []string
	filepath.Walk(filepath.Join(s.root, ".git", "refs"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return nil
	})
	if len(locks) == 0 {
		t.Fatal("setup: the crash left no ref lock")
	}
	// As if git had died between creating the first lock and writing it.
	if err := os.Truncate(locks[0], 0); err != nil {
		t.Fatal(err)
	}
	out := mustClean(t, s.root, "--run", run)
	for _, l := range locks {
		if testbin.Exists(l) {
			t.Errorf("the rerun left %s:\n%s", l, out)
		}
	}
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("the rerun did not finish: %s is still there:\n%s", d.path, out)
		}
	}
}

// TestCleanMarkLeftByKill: the clean marks each entry it stops with a lock
// written whole before it is linked into place (an empty lock, which a kill
// between creating and writing it used to leave, is what `git worktree
// lock` without a reason writes: a rerun must respect it as a user's). A
// kill before the link leaves only the clean's own temporary mark, which
// the rerun removes, and the rerun finishes.
func TestCleanMarkLeftByKill(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	d := s.dirtyByName(wt22)
	// The mark of a worktree the clean keeps (2.1 is complete), so that
	// only the recovery can remove it.
	admin := strings.TrimSpace(git(t, s.wt(wt21), "rev-parse", "--absolute-git-dir"))
	tmp := filepath.Join(admin, "taskclean-"+run+".locked")
	if err := os.WriteFile(tmp, []byte("git-taskclean "+run+" 20260101T000000.000000000Z: being saved and removed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustClean(t, s.root, "--run", run)
	if testbin.Exists(tmp) {
		t.Errorf("the rerun left the interrupted clean's mark %s", tmp)
	}
	if testbin.Exists(d.path) {
		t.Errorf("the rerun did not remove %s:\n%s", d.path, out)
	}
	if testbin.Exists(filepath.Join(admin, "locked")) || !testbin.Exists(s.wt(wt21)) {
		t.Errorf("the kept worktree %s was locked or removed:\n%s", wt21, out)
	}
}
