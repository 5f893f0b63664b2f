package gitcmd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

func TestObjectReader(t *testing.T) {
	dir, _ := newRepo(t)
	if err := os.MkdirAll(filepath.Join(dir, "specs", "a b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "specs", "a b", "plan.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "specs")
	head := commit(t, dir, "plan")
	ctx := context.Background()
	o, err := open(t, dir).ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	obj, err := o.Get(head + ":specs/a b/plan.md")
	if err != nil || obj.Type != "blob" || string(obj.Data) != "hello\n" {
		t.Fatalf("Get blob = %+v, %v", obj, err)
	}
	ents, err := o.Tree(head + ":specs")
	if err != nil || len(ents) != 1 || ents[0].Name != "a b" || !ents[0].IsDir() || len(ents[0].OID) != 40 {
		t.Fatalf("Tree = %+v, %v", ents, err)
	}
	// Missing names, and names that cannot be asked for, are "nothing",
	// and the reader keeps answering.
	for _, name := range []string{head + ":nope", "no-such-rev:x", head + ":specs/a b/plan.md\nHEAD"} {
		if obj, err := o.Get(name); err != nil || obj.Type != "" {
			t.Errorf("Get(%q) = %+v, %v; want nothing", name, obj, err)
		}
	}
	if ents, err := o.Tree(head + ":specs/a b/plan.md"); err != nil || ents != nil {
		t.Errorf("Tree of a blob = %+v, %v; want nil", ents, err)
	}
	if obj, err := o.Get(ents[0].OID + ":plan.md"); err != nil || string(obj.Data) != "hello\n" {
		t.Errorf("Get by tree id = %+v, %v", obj, err)
	}
}

func TestParseTreeRejectsCutEntries(t *testing.T) {
	good := append([]byte("100644 f\x00"), make([]byte, 20)...)
	if ents, err := gitcmd.ParseTree(good, 20); err != nil || len(ents) != 1 || ents[0].Name != "f" {
		t.Fatalf("ParseTree = %+v, %v", ents, err)
	}
	for _, bad := range [][]byte{good[:len(good)-1], []byte("100644f\x00"), []byte("100644 f")} {
		if _, err := gitcmd.ParseTree(bad, 20); err == nil {
			t.Errorf("ParseTree(%q) accepted", bad)
		}
	}
}

func TestIndependentAndLastChange(t *testing.T) {
	dir, root := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "p.md")
	}
	write("1")
	base := commit(t, dir, "add p")
	git(t, dir, "checkout", "-q", "-b", "side")
	write("2")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-02T00:00:00Z")
	commit(t, dir, "side edits p")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-05T00:00:00Z")
	side2 := commit(t, dir, "side, later, p untouched")
	git(t, dir, "checkout", "-q", "main")
	write("3")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-03T00:00:00Z")
	main := commit(t, dir, "main edits p")

	got, err := r.Independent(ctx, []string{root, base, side2})
	if err != nil || len(got) != 1 || got[0] != side2 {
		t.Errorf("Independent(root, base, side2) = %v, %v; want side2 only", got, err)
	}
	got, err = r.Independent(ctx, []string{main, side2})
	if err != nil || len(got) != 2 {
		t.Errorf("Independent(main, side2) = %v, %v; want both", got, err)
	}
	when, err := r.LastChange(ctx, side2, []string{main}, []string{"p.md"})
	if err != nil || when != 1767312000 { // 2026-01-02: side's edit, not side2's date
		t.Errorf("LastChange(side2 ^main) = %d, %v", when, err)
	}
	when, err = r.LastChange(ctx, main, []string{side2}, []string{"p.md"})
	if err != nil || when != 1767398400 {
		t.Errorf("LastChange(main ^side2) = %d, %v", when, err)
	}
	when, err = r.LastChange(ctx, base, []string{main}, []string{"p.md"})
	if err != nil || when != 0 {
		t.Errorf("LastChange(base ^main) = %d, %v; want 0", when, err)
	}
}
