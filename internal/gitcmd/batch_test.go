package gitcmd_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestDiffTreesEqualsDiffTree compares the reader's tree diff with git's
// own `diff-tree -r --no-renames`, over trees that change in every way a
// task's work can: contents, deletions, nested directories, a file that
// becomes a directory and back, the executable bit, symbolic links,
// submodules, and names that sort differently as files and directories.
func TestDiffTreesEqualsDiffTree(t *testing.T) {
	dir, _ := newRepo(t)
	type ent struct{ mode, data string }
	blob := func(s string) string {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(s)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	sub := git(t, dir, "rev-parse", "HEAD") // any commit id serves as a gitlink
	tree := func(files map[string]ent) string {
		idx := filepath.Join(t.TempDir(), "index")
		var lines []string
		for p, e := range files {
			id := sub
			if e.mode != "160000" {
				id = blob(e.data)
			}
			lines = append(lines, e.mode+" "+id+"\t"+p)
		}
		if len(lines) > 0 {
			cmd := exec.Command("git", "update-index", "--add", "--index-info")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx)
			cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("update-index: %v\n%s", err, out)
			}
		}
		cmd := exec.Command("git", "write-tree")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	states := []map[string]ent{
		{"a.txt": {"100644", "a"}, "dir/b.txt": {"100644", "b"}, "dir/sub/c.txt": {"100644", "c"},
			"x": {"100644", "x"}, "link": {"120000", "a.txt"}, "exe": {"100644", "#!/bin/sh"}},
		{"a.txt": {"100644", "a2"}, "dir/sub/c.txt": {"100644", "c"}, "dir/sub/d.txt": {"100644", "d"},
			"x/y.txt": {"100644", "y"}, "link": {"120000", "dir"}, "exe": {"100755", "#!/bin/sh"},
			"mod": {"160000", ""}, "a.b": {"100644", "ab"}, "a-": {"100644", "a-"}, "a/z": {"100644", "z"}},
		{"a.txt": {"100644", "a2"}, "x": {"100644", "x again"}, "link": {"100644", "dir"},
			"exe": {"100755", "#!/bin/sh"}, "a.b/q": {"100644", "q"}, "a-": {"100755", "a-"}, "a/z": {"100644", "z2"}, "a0": {"100644", "0"}},
		{},
	}
	// Commits, as the report asks: diff-tree --stdin reads commit pairs.
	var trees []string
	for i, s := range states {
		trees = append(trees, git(t, dir, "commit-tree", tree(s), "-m", fmt.Sprint("state ", i)))
	}
	o, err := open(t, dir).ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for i, from := range trees {
		for j, to := range trees {
			got, err := o.DiffTrees(from, to)
			if err != nil {
				t.Fatalf("DiffTrees(%d, %d): %v", i, j, err)
			}
			if want := diffTree(t, dir, from, to); got != want {
				t.Errorf("states %d -> %d:\n got %q\nwant %q", i, j, got, want)
			}
		}
	}
	// A commit id reads as its tree, as diff-tree reads it.
	c := commit(t, dir, "another")
	if got, err := o.DiffTrees(c, c); err != nil || got != "" {
		t.Errorf("DiffTrees of a commit with itself = %q, %v", got, err)
	}
	if _, err := o.DiffTrees("no-such-commit", c); err == nil {
		t.Error("DiffTrees of a missing name: no error")
	}
}

// GetMany answers as Get does, name by name, in one round trip: missing
// names and names that cannot be asked for included, and the reader
// answers single questions after it.
func TestGetManyEqualsGet(t *testing.T) {
	dir, _ := newRepo(t)
	var names []string
	for i := 0; i < 300; i++ { // more than a pipe holds, written while read
		name := fmt.Sprintf("f%03d.txt", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("x", i*50)), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, "HEAD:"+name)
	}
	git(t, dir, "add", ".")
	commit(t, dir, "files")
	names = append(names, "HEAD:missing", "HEAD:bad\nname", "HEAD^{tree}")
	o, err := open(t, dir).ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	many, err := o.GetMany(names)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		one, err := o.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		if one.OID != many[i].OID || one.Type != many[i].Type || string(one.Data) != string(many[i].Data) {
			t.Errorf("%q: GetMany %s %s, Get %s %s", n, many[i].OID, many[i].Type, one.OID, one.Type)
		}
	}
	trees, err := o.Trees([]string{"HEAD^{tree}", "HEAD:f001.txt"})
	if err != nil || len(trees[0]) != 300 || trees[1] != nil {
		t.Errorf("Trees: %d entries, %v; %v", len(trees[0]), trees[1], err)
	}
}

// diffTree is what git diff-tree -r says changed from commit from to to,
// as DiffTrees gives it: the report asks diff-tree --stdin for commit pairs.
func diffTree(t *testing.T, dir, from, to string) string {
	t.Helper()
	cmd := exec.Command("git", "diff-tree", "-r", "--no-renames", "-z", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(to + " " + from + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return gitcmd.ParseChanges(out)[to]
}

// A folder written with the zero-padded mode 040000 (old tools wrote it;
// git still reads it as a folder) is a folder to DiffTrees too: its files
// are compared, as git diff-tree -r compares them, not the folder as one
// entry.
func TestDiffTreesZeroPaddedFolder(t *testing.T) {
	dir, _ := newRepo(t)
	hash := func(typ string, data []byte) string {
		cmd := exec.Command("git", "hash-object", "-t", typ, "-w", "--stdin", "--literally")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(string(data))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	raw := func(hexid string) []byte {
		b := make([]byte, len(hexid)/2)
		fmt.Sscanf(hexid, "%x", &b)
		return b
	}
	folder := func(content string) string {
		inner := hash("tree", append([]byte("100644 f.txt\x00"), raw(hash("blob", []byte(content)))...))
		top := hash("tree", append([]byte("040000 dir\x00"), raw(inner)...))
		return git(t, dir, "commit-tree", top, "-m", content)
	}
	from, to := folder("one\n"), folder("two\n")
	o, err := open(t, dir).ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got, err := o.DiffTrees(from, to)
	if err != nil {
		t.Fatal(err)
	}
	if want := diffTree(t, dir, from, to); got != want || !strings.Contains(want, "dir/f.txt") {
		t.Errorf("DiffTrees across a 040000 folder:\n got %q\nwant %q", got, want)
	}
}

// ParseCommit's subject is git's %s: the first paragraph's lines, each
// without its trailing white space, joined by one space; a line of white
// space alone (a CRLF message's "\r") ends it; leading blank lines are
// skipped; spaces inside a line stay.
func TestParseCommitSubjectIsGits(t *testing.T) {
	dir, _ := newRepo(t)
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	o, err := open(t, dir).ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, msg := range []string{
		"[Task 2.1] Users\r\n\r\nRun-Id: x1y2z3\r\nTask-Id: 2.1\r\n",
		"Merge branch 'x1y2z3-task-2-1-users'  \n\nbody\n",
		"\n \nsubject after blank lines\nand its second line\n\nbody\n",
		"two  spaces inside\tand a tab\n",
		"  leading spaces\n",
		"only a subject",
		"line one\r\nline two\r\n\r\nbody\r\n",
		"before a NUL\x00after it\n", // commit-tree refuses it: written as an object
	} {
		cmd := exec.Command("git", "commit-tree", tree)
		if strings.Contains(msg, "\x00") {
			cmd = exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
			msg = "tree " + tree + "\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\n" + msg
		}
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(msg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(string(out))
		obj, err := o.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := gitcmd.ParseCommit(obj)
		if want := git(t, dir, "log", "-1", "--format=%s", id); e.Subject != want {
			t.Errorf("message %q: subject %q, git says %q", msg, e.Subject, want)
		}
	}
}
