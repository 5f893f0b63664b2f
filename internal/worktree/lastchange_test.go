package worktree_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// TestLastChange: a write that keeps an old modification time still counts
// (its change time is new), and so does a write to the admin entry alone;
// what the clean itself does to an idle worktree (renaming it aside and
// back, locking its entry) does not make it look busy.
func TestLastChange(t *testing.T) {
	_, wt := admRepo(t, "sha1", true)
	admin := admAdminDir(t, wt)
	write(t, filepath.Join(wt, "sub", "f.txt"), "work\n")
	time.Sleep(1500 * time.Millisecond)
	quiet := time.Now().Add(-time.Second)

	// The clean's own steps on an idle worktree.
	if err := os.Rename(wt, wt+".aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(wt+".aside", wt); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(admin, "locked"), "taskclean\n")
	if got := worktree.LastChange(wt, admin); got.After(quiet) {
		t.Errorf("after a rename aside and back and a lock: last change %v, want before %v", got, quiet)
	}

	// A write with an old modification time.
	old := time.Now().Add(-3 * time.Hour)
	write(t, filepath.Join(wt, "sub", "f.txt"), "newer work\n")
	if err := os.Chtimes(filepath.Join(wt, "sub", "f.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	if got := worktree.LastChange(wt, admin); !got.After(quiet) {
		t.Errorf("after a write with an old mtime: last change %v, want after %v", got, quiet)
	}
}

// TestLastChangeAdmin: a stopped rebase's files or a reflog entry written
// in the admin entry count, found through the worktree's .git file too.
func TestLastChangeAdmin(t *testing.T) {
	_, wt := admRepo(t, "sha1", true)
	admin := admAdminDir(t, wt)
	time.Sleep(1500 * time.Millisecond)
	quiet := time.Now().Add(-time.Second)
	if got := worktree.LastChange(wt, ""); got.After(quiet) {
		t.Fatalf("idle worktree: last change %v, want before %v", got, quiet)
	}
	write(t, filepath.Join(admin, "rebase-merge", "done"), "pick 1234\n")
	if got := worktree.LastChange(wt, ""); !got.After(quiet) {
		t.Errorf("after a write to rebase-merge/: last change %v, want after %v", got, quiet)
	}
}
