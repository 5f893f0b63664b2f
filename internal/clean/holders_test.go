package clean_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// BranchAliases finds every local branch that is a symbolic ref from the
// loose files alone, as git wrote them: a file "ref: <target>", a symbolic
// link (core.preferSymlinkRefs), nested names, a dangling one; never a
// plain branch, loose or packed, a ref outside refs/heads, or a file that
// is no ref (too large, a lock).
func TestBranchAliasesReadsLooseSymrefs(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r")
	git(t, "", "init", "-q", dir)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
	git(t, dir, "branch", "packed")
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "branch", "loose/plain")
	git(t, dir, "symbolic-ref", "refs/heads/feature", "refs/heads/packed")
	git(t, dir, "symbolic-ref", "refs/heads/deep/er/alias", "refs/heads/feature")
	git(t, dir, "-c", "core.preferSymlinkRefs=true", "symbolic-ref", "refs/heads/linked", "refs/heads/loose/plain")
	git(t, dir, "symbolic-ref", "refs/heads/dangling", "refs/heads/gone")
	git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/packed")
	heads := filepath.Join(dir, ".git", "refs", "heads")
	if fi, err := os.Lstat(filepath.Join(heads, "linked")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("fixture: refs/heads/linked is not a symbolic link (%v)", err)
	}
	for name, content := range map[string]string{
		"big":          "ref: refs/heads/packed\n" + strings.Repeat("x", 5000),
		"feature.lock": "ref: refs/heads/loose/plain\n",
	} {
		if err := os.WriteFile(filepath.Join(heads, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"refs/heads/feature":       "refs/heads/packed",
		"refs/heads/deep/er/alias": "refs/heads/feature",
		"refs/heads/linked":        "refs/heads/loose/plain",
		"refs/heads/dangling":      "refs/heads/gone",
	}
	if got := worktree.BranchAliases(filepath.Join(dir, ".git")); !maps.Equal(got, want) {
		t.Errorf("BranchAliases = %v, want %v", got, want)
	}
	if got := worktree.BranchAliases(filepath.Join(t.TempDir(), "none")); len(got) != 0 {
		t.Errorf("BranchAliases of no repository = %v, want none", got)
	}
}
