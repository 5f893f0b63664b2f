package worktree_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// HeadAliases follows a worktree's HEAD through every symbolic ref to the
// branch it ends at (which git's worktree list names alone); SymrefTarget
// gives the ref an alias names itself, not the end of its chain.
func TestHeadAliases(t *testing.T) {
	root, wt := admRepo(t, "sha1", false)
	common := filepath.Join(root, ".git")
	git(t, root, "symbolic-ref", "refs/heads/a2", "refs/heads/main")
	git(t, root, "symbolic-ref", "refs/heads/a1", "refs/heads/a2")
	admin := admAdminDir(t, wt)

	if got := worktree.HeadAliases(admin, common); got != nil {
		t.Errorf("a detached HEAD goes through %v, want none", got)
	}
	if got := worktree.HeadAliases(common, common); got != nil {
		t.Errorf("the main worktree, on main, goes through %v, want none", got)
	}
	git(t, wt, "symbolic-ref", "HEAD", "refs/heads/a1")
	if got, want := worktree.HeadAliases(admin, common), []string{"refs/heads/a1", "refs/heads/a2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("HEAD -> a1 -> a2 -> main goes through %v, want %v", got, want)
	}
	// A per-worktree link is read in the worktree's own git directory.
	git(t, wt, "symbolic-ref", "refs/worktree/w", "refs/heads/a1")
	git(t, wt, "symbolic-ref", "HEAD", "refs/worktree/w")
	if got, want := worktree.HeadAliases(admin, common), []string{"refs/worktree/w", "refs/heads/a1", "refs/heads/a2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("HEAD -> refs/worktree/w -> a1 -> a2 -> main goes through %v, want %v", got, want)
	}
	if got := worktree.SymrefTarget(common, "refs/heads/a1"); got != "refs/heads/a2" {
		t.Errorf("SymrefTarget(a1) = %q, want refs/heads/a2", got)
	}
	for _, ref := range []string{"refs/heads/main", "refs/heads/none", "refs/../HEAD", "HEAD"} {
		if got := worktree.SymrefTarget(common, ref); got != "" {
			t.Errorf("SymrefTarget(%s) = %q, want \"\"", ref, got)
		}
	}
}
