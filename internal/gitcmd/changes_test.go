package gitcmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A squash's change read from `log --raw` equals the same change read from
// `diff-tree` of the branch against its fork point, whatever bytes the
// paths hold (a newline, \x01, a leading colon), and an empty commit
// changes nothing.
func TestLogAndDiffChangesAgree(t *testing.T) {
	dir, root := newRepo(t)
	names := []string{"plain.txt", "with\nnewline", "ctl\x01byte", ":colon", "sp ace"}
	git(t, dir, "checkout", "-q", "-b", "task")
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "--", ":(literal)"+n)
		commit(t, dir, "part")
	}
	tip := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "main")
	git(t, dir, "merge", "-q", "--squash", "task")
	squash := commit(t, dir, "squashed")
	empty := commit(t, dir, "nothing")

	r := open(t, dir)
	ctx := context.Background()
	logged, err := r.LogChanges(ctx, []string{"main"}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	diffed, err := r.DiffChanges(ctx, []string{tip + " " + root})
	if err != nil {
		t.Fatal(err)
	}
	if logged[squash] == "" || logged[squash] != diffed[tip] {
		t.Fatalf("log --raw:\n%q\ndiff-tree:\n%q", logged[squash], diffed[tip])
	}
	for _, n := range names {
		if !strings.Contains(logged[squash], " "+n) {
			t.Errorf("path %q missing from %q", n, logged[squash])
		}
	}
	if logged[empty] != "" {
		t.Errorf("empty commit changes %q", logged[empty])
	}
}
