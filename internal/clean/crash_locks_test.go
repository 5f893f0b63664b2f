package clean_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanRemovesOwnEmptyLock: a clean killed inside its save transaction
// just after git created a ref's lock file and before it wrote the value
// leaves an empty lock (the random-kill loop found one). The rerun must
// know it as its own and remove it, as it does a lock holding the value.
func TestCleanRemovesOwnEmptyLock(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r := taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_IN_TXN=1"}, "--run", run)
	if r.code != 99 {
		t.Fatalf("crash in the save transaction: exit %d, want 99\n%s%s", r.code, r.stdout, r.stderr)
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
		if exists(l) {
			t.Errorf("the rerun left %s:\n%s", l, out)
		}
	}
	for _, d := range s.dirty {
		if exists(d.path) {
			t.Errorf("the rerun did not finish: %s is still there:\n%s", d.path, out)
		}
	}
}
