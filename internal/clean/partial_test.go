package clean_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestCleanPartialFailureSaysWhatItDid: --task 2.1 while another git holds
// the lock of 2.1's branch. The worktree is saved and removed, then the
// branch deletion fails on the lock: exit 3, stdout lists what was done
// (with where it was saved), stderr is one error line naming the lock and
// how to check it, and the foreign lock is left alone.
func TestCleanPartialFailureSaysWhatItDid(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	lock := filepath.Join(s.root, ".git", "refs", "heads", branch21+".lock")
	if err := os.WriteFile(lock, []byte(s.tips[branch21]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testbin.Taskclean(s.root, nil, "--run", run, "--task", "2.1")
	if r.Code != 3 {
		t.Fatalf("exit %d, want 3 (failed after changing something)\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, ok := lineWith(r.Stdout, "remove worktree "+s.rel(wt21)); !ok {
		t.Errorf("stdout does not say the worktree was removed:\n%s", r.Stdout)
	}
	if _, ok := lineWith(r.Stdout, "save branch "+branch21); !ok {
		t.Errorf("stdout does not say where the branch was saved:\n%s", r.Stdout)
	}
	if ls := lines(r.Stderr); len(ls) != 1 || !strings.HasPrefix(ls[0], "error: ") || !strings.Contains(ls[0], branch21+".lock") || !strings.Contains(ls[0], "ps ") {
		t.Errorf("stderr is not one error line naming the lock and how to check it:\n%s", r.Stderr)
	}
	if data, err := os.ReadFile(lock); err != nil || string(data) != s.tips[branch21]+"\n" {
		t.Errorf("the foreign lock was removed or changed (%v)", err)
	}
	if heads(t, s.root)[branch21] != s.tips[branch21] {
		t.Errorf("branch %s moved although its deletion failed", branch21)
	}
}
