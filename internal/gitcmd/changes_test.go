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
	logged, err := r.LogChanges(ctx, []string{"main"}, []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Records are keyed by their line: one tip against two parents (two
	// tasks' work on one branch) gives two changes, and a pair with no
	// change is there, empty.
	mid := git(t, dir, "rev-parse", "task~2")
	lines := []string{tip + " " + root, tip + " " + mid, tip + " " + tip}
	diffed, err := r.DiffChanges(ctx, lines)
	if err != nil {
		t.Fatal(err)
	}
	if logged[squash] == "" || logged[squash] != diffed[lines[0]] {
		t.Fatalf("log --raw:\n%q\ndiff-tree:\n%q", logged[squash], diffed[lines[0]])
	}
	if got := strings.Count(diffed[lines[1]], "\n") + 1; got != 2 || diffed[lines[1]] == diffed[lines[0]] {
		t.Errorf("tip against task~2: %q; want its last 2 changes only", diffed[lines[1]])
	}
	if v, ok := diffed[lines[2]]; !ok || v != "" {
		t.Errorf("tip against itself: %q, %v; want an empty change", v, ok)
	}
	o, err := r.ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, l := range lines {
		tipL, from, _ := strings.Cut(l, " ")
		if got, err := o.DiffTrees(from, tipL); err != nil || got != diffed[l] {
			t.Errorf("DiffTrees %s = %q, %v; diff-tree says %q", l, got, err, diffed[l])
		}
	}
	for _, n := range names {
		if !strings.Contains(logged[squash], " "+n) {
			t.Errorf("path %q missing from %q", n, logged[squash])
		}
	}
	if logged[empty] != "" {
		t.Errorf("empty commit changes %q", logged[empty])
	}
	// Limited to one path, the commits that touch it are listed with their
	// whole change.
	some, err := r.LogChanges(ctx, []string{"main"}, []string{root}, []string{"sp ace"})
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 1 || some[squash] != logged[squash] {
		t.Errorf("limited to one path: %q", some)
	}
}

// A commit read in-process through the object reader says what git log
// says of it: parents, tree, subject, trailers, what it reverts.
func TestObjectsCommitAgreesWithLog(t *testing.T) {
	dir, root := newRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "f.txt")
	git(t, dir, "commit", "-q", "-m", "[Task 2.1] User service\nsecond line", "-m", "Body text.", "-m", "Run-Id: x1y2z3\nTask-Id: 2.1\nTask-Id: 2.2")
	git(t, dir, "revert", "--no-edit", "HEAD")
	r := open(t, dir)
	ctx := context.Background()
	logged, err := r.LogRevs(ctx, []string{"main"}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	if len(logged) != 2 {
		t.Fatalf("log listed %d commits", len(logged))
	}
	for _, want := range logged {
		got, ok, err := objs.Commit(want.OID)
		if err != nil || !ok {
			t.Fatalf("Commit(%s): %v %v", want.OID, ok, err)
		}
		if g, w := strings.Join([]string{got.Subject, strings.Join(got.Parents, ","), got.Tree, strings.Join(got.RunIDs, ","), strings.Join(got.TaskIDs, ","), got.Reverts},
			"|"), strings.Join([]string{want.Subject, strings.Join(want.Parents, ","), want.Tree, strings.Join(want.RunIDs, ","), strings.Join(want.TaskIDs, ","), want.Reverts}, "|"); g != w || got.Time != want.Time {
			t.Errorf("object reader: %q (%d)\nlog:           %q (%d)", g, got.Time, w, want.Time)
		}
	}
}
