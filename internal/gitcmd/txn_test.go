package gitcmd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// A ref update names the ref itself: deleting or moving a symbolic ref
// changes the alias, never the branch it points to (whose reflog stays),
// and the expected old value is still checked, against what the alias
// resolves to.
func TestUpdateRefsNoDeref(t *testing.T) {
	dir, c1 := newRepo(t)
	c2 := commit(t, dir, "second")
	git(t, dir, "branch", "feature", c1)
	git(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/feature")
	git(t, dir, "symbolic-ref", "refs/heads/alias2", "refs/heads/feature")
	r := open(t, dir)
	ctx := context.Background()

	if err := r.UpdateRefs(ctx, []gitcmd.RefUpdate{{Op: "delete", Ref: "refs/heads/alias", Old: c2}}); err == nil {
		t.Error("deleting the alias expecting a value it does not resolve to succeeded")
	}
	if err := r.UpdateRefsPrepared(ctx, []gitcmd.RefUpdate{{Op: "delete", Ref: "refs/heads/alias", Old: c1}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRefs(ctx, []gitcmd.RefUpdate{{Op: "update", Ref: "refs/heads/alias2", New: c2, Old: c1}}); err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "rev-parse", "refs/heads/feature"); got != c1 {
		t.Errorf("feature is at %s, want %s (untouched)", got, c1)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "logs", "refs", "heads", "feature")); err != nil {
		t.Errorf("feature's reflog: %v", err)
	}
	if out := git(t, dir, "for-each-ref", "--format=%(refname) %(symref)", "refs/heads/alias", "refs/heads/alias2"); out != "refs/heads/alias2 " {
		t.Errorf("after the updates: %q, want alias gone and alias2 a plain branch", out)
	}
	if got := git(t, dir, "rev-parse", "refs/heads/alias2"); got != c2 {
		t.Errorf("alias2 is at %s, want %s", got, c2)
	}
}
