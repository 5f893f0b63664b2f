package worktree

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proveBackdate sets every file's, link's and directory's times below root
// (its .git aside) to when.
func proveBackdate(tb testing.TB, root string, when time.Time) {
	tb.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if p != root {
			proveLutimes(tb, p, when)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// proveOld is how far back proveRepo dates its files.
const proveOld = time.Hour

// proveRepo makes a committed worktree of six files (an executable and a
// symbolic link among them) left alone for an hour: the files are
// back-dated, then `git status` refreshes the index, so that every entry's
// stat data is current and none is racily clean.
func proveRepo(tb testing.TB, format string) (root, index string) {
	tb.Helper()
	root = idxNewRepo(tb, format)
	for p, c := range map[string]string{
		"a.txt": "a\n", "b.txt": "bbbb\n", "dir/c.txt": "c\n", "dir/sub/d.txt": "d\n", "run.sh": "#!/bin/sh\n",
	} {
		idxWrite(tb, filepath.Join(root, p), c)
	}
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		tb.Fatal(err)
	}
	idxGit(tb, root, nil, "add", ".")
	idxGit(tb, root, nil, "commit", "-q", "-m", "files")
	proveBackdate(tb, root, time.Now().Add(-proveOld))
	if out := idxGit(tb, root, nil, "status", "--porcelain"); out != "" {
		tb.Fatalf("status: %s", out)
	}
	return root, filepath.Join(root, ".git", "index")
}

// proveMtime is a file's (or a symbolic link's own) mtime.
func proveMtime(tb testing.TB, path string) time.Time {
	tb.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.ModTime()
}

func proveRun(tb testing.TB, in ProveInput) *Proof {
	tb.Helper()
	p, err := Prove(in)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// proveCheck compares a proof's verdicts with want ("path: why" each).
func proveCheck(t *testing.T, what string, p *Proof, want ...string) {
	t.Helper()
	got := []string{}
	for _, u := range p.Unproven {
		got = append(got, u.Path+": "+u.Why)
	}
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: unproven\n%q\nwant\n%q", what, got, want)
	}
}

func TestProveCleanCheckout(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	// No data in these: nothing to prove.
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := ProveInput{Root: root, Indexes: []string{index}, HashLen: 20}
	p := proveRun(t, in)
	proveCheck(t, "clean", p)
	if p.Files != 6 || p.Hashed != 0 {
		t.Errorf("clean: %d files, %d hashed; want 6 and 0", p.Files, p.Hashed)
	}

	// An index written in the second its entries' files were: every entry
	// is racily clean and must be hashed (a symbolic link by its target).
	old := proveMtime(t, filepath.Join(root, "b.txt"))
	if err := os.Chtimes(index, old, old); err != nil {
		t.Fatal(err)
	}
	p = proveRun(t, in)
	proveCheck(t, "racy", p)
	if p.Hashed != 6 {
		t.Errorf("racy: %d hashed, want 6", p.Hashed)
	}
	now := time.Now()
	if err := os.Chtimes(index, now, now); err != nil {
		t.Fatal(err)
	}

	// Same size and mtime, new content: only the ctime gives it away.
	idxWrite(t, filepath.Join(root, "b.txt"), "BBBB\n")
	proveLutimes(t, filepath.Join(root, "b.txt"), old)
	// Same content, exec bit lost.
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Same length, other target.
	if err := os.Remove(filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	proveLutimes(t, filepath.Join(root, "link"), old)
	for _, f := range []string{"b.txt", "link"} {
		if !proveMtime(t, filepath.Join(root, f)).Equal(old) {
			t.Fatalf("%s: mtime not restored", f)
		}
	}
	p = proveRun(t, in)
	proveCheck(t, "edited", p, "b.txt: "+WhyDiffers, "link: "+WhyDiffers, "run.sh: "+WhyDiffers)
	if p.Hashed != 3 {
		t.Errorf("edited: %d hashed, want 3", p.Hashed)
	}
}

func TestProveSHA256(t *testing.T) {
	root, index := proveRepo(t, "sha256")
	in := ProveInput{Root: root, Indexes: []string{index}, HashLen: 32}
	proveCheck(t, "clean", proveRun(t, in))
	old := proveMtime(t, filepath.Join(root, "a.txt"))
	if err := os.Chtimes(index, old, old); err != nil {
		t.Fatal(err)
	}
	p := proveRun(t, in)
	proveCheck(t, "racy", p)
	if p.Hashed != 6 {
		t.Errorf("racy: %d hashed, want 6", p.Hashed)
	}
	idxWrite(t, filepath.Join(root, "dir/c.txt"), "changed\n")
	proveCheck(t, "edited", proveRun(t, in), "dir/c.txt: "+WhyDiffers)
}

// Files git was told to stop looking at: their index entries hold old
// content and stat data, so only a hash tells, and only an index whose
// entries were refreshed proves them.
func TestProveAssumeUnchangedSkipWorktree(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	idxGit(t, root, nil, "update-index", "--assume-unchanged", "a.txt")
	idxGit(t, root, nil, "update-index", "--skip-worktree", "b.txt")
	idxWrite(t, filepath.Join(root, "a.txt"), "edited a\n")
	idxWrite(t, filepath.Join(root, "b.txt"), "edited b\n")
	if out := idxGit(t, root, nil, "status", "--porcelain"); out != "" {
		t.Fatalf("git status saw the edits: %s", out)
	}
	in := ProveInput{Root: root, Indexes: []string{index}, HashLen: 20}
	p := proveRun(t, in)
	proveCheck(t, "own index", p, "a.txt: "+WhyDiffers, "b.txt: "+WhyDiffers)

	// What a save does: a copy of the index, flags cleared, `git add -u`.
	cp := filepath.Join(t.TempDir(), "index")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_INDEX_FILE=" + cp}
	idxGit(t, root, env, "update-index", "--no-assume-unchanged", "a.txt")
	idxGit(t, root, env, "update-index", "--no-skip-worktree", "b.txt")
	idxGit(t, root, env, "add", "-u")
	in.Indexes = []string{cp}
	proveCheck(t, "refreshed copy", proveRun(t, in))
}

func TestProveUntracked(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	idxWrite(t, filepath.Join(root, "new.txt"), "new\n")
	idxWrite(t, filepath.Join(root, "dir/new2.txt"), "new2\n")
	u := filepath.Join(t.TempDir(), "untracked")
	// A missing index holds nothing (a save with no untracked files
	// writes none).
	in := ProveInput{Root: root, Indexes: []string{index, u}, HashLen: 20}
	proveCheck(t, "untracked", proveRun(t, in), "dir/new2.txt: "+WhyNotSaved, "new.txt: "+WhyNotSaved)

	idxGit(t, root, []string{"GIT_INDEX_FILE=" + u}, "update-index", "--add", "--", "new.txt", "dir/new2.txt")
	p := proveRun(t, in)
	proveCheck(t, "in a second index", p)
	if p.Files != 8 {
		t.Errorf("%d files, want 8", p.Files)
	}
	idxWrite(t, filepath.Join(root, "new.txt"), "newer\n")
	proveCheck(t, "edited after the save", proveRun(t, in), "new.txt: "+WhyDiffers)
}

// Names git refuses to add (for .git's sake on case-insensitive and NTFS
// file systems): update-index skips them, warns and exits 0, so a save
// silently lacks them.
func TestProveNamesGitRefuses(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	names := []string{"GIT~1/f", "a/.GIT/f", "b/.git /f", "c/.git./f"}
	for _, n := range names {
		idxWrite(t, filepath.Join(root, n), "data\n")
	}
	u := filepath.Join(t.TempDir(), "untracked")
	env := []string{"GIT_INDEX_FILE=" + u}
	idxGit(t, root, env, append([]string{"update-index", "--add", "--"}, names...)...)
	if out := idxGit(t, root, env, "ls-files"); out != "" {
		t.Fatalf("git added %q after all", out)
	}
	p := proveRun(t, ProveInput{Root: root, Indexes: []string{index, u}, HashLen: 20})
	var want []string
	for _, n := range names {
		want = append(want, n+": "+WhyNotSaved)
	}
	proveCheck(t, "refused names", p, want...)
}

func TestProveSince(t *testing.T) {
	root, _ := proveRepo(t, "sha1")
	since := time.Now()
	// File times come from a clock that may lag time.Now by a tick.
	time.Sleep(50 * time.Millisecond)

	// A clean renames the worktree aside before proving it: that sets the
	// directory's ctime, and is no change to its content.
	aside := root + ".removing"
	if err := os.Rename(root, aside); err != nil {
		t.Fatal(err)
	}
	in := ProveInput{Root: aside, Indexes: []string{filepath.Join(aside, ".git", "index")}, HashLen: 20, Since: since}
	proveCheck(t, "renamed", proveRun(t, in))

	idxWrite(t, filepath.Join(aside, "dir/new.txt"), "new\n")
	idxWrite(t, filepath.Join(aside, "top.txt"), "top\n")
	// Same content as saved, but written to after since.
	idxWrite(t, filepath.Join(aside, "a.txt"), "a\n")
	proveCheck(t, "written", proveRun(t, in),
		"./: "+WhyChanged, "a.txt: "+WhyChanged, "dir/: "+WhyChanged, "dir/new.txt: "+WhyChanged, "top.txt: "+WhyChanged)

	in.Since = time.Time{}
	proveCheck(t, "Since not set", proveRun(t, in), "dir/new.txt: "+WhyNotSaved, "top.txt: "+WhyNotSaved)
}

func TestProveUnreadable(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	// Let another user reach the worktree (t.TempDir's directories are
	// private).
	for _, d := range []string{filepath.Dir(root), filepath.Dir(filepath.Dir(root))} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// An edited tracked file must be read to be proven; this one cannot.
	idxWrite(t, filepath.Join(root, "a.txt"), "edited\n")
	idxWrite(t, filepath.Join(root, "locked/secret.txt"), "s\n")
	for _, p := range []string{"a.txt", "locked"} {
		if err := os.Chmod(filepath.Join(root, p), 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	p := proveUnprivileged(t, ProveInput{Root: root, Indexes: []string{index}, HashLen: 20})
	proveCheck(t, "unreadable", p, "a.txt: cannot read: permission denied", "locked/: cannot read: permission denied")
	if p.Files != 6 {
		t.Errorf("%d files, want 6: the walk stopped early", p.Files)
	}
}

// Paths longer than PATH_MAX (4096 bytes on Linux, 1024 on macOS) cannot
// be stat-ed by name, by git either: the deep file is reported, not passed
// over. The tree is made one directory at a time through os.Root, whose
// calls are relative to an open directory, as no path names it whole.
func TestProveDeepPath(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	name := strings.Repeat("d", 100)
	t.Cleanup(func() {
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			t.Errorf("remove the deep tree: %v", err)
		}
	})
	dir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 45; i++ {
		if err := dir.Mkdir(name, 0o755); err != nil {
			dir.Close()
			t.Fatal(err)
		}
		next, err := dir.OpenRoot(name)
		dir.Close()
		if err != nil {
			t.Fatal(err)
		}
		dir = next
	}
	err = dir.WriteFile("deep.txt", []byte("deep\n"), 0o644)
	dir.Close()
	if err != nil {
		t.Fatal(err)
	}

	p := proveRun(t, ProveInput{Root: root, Indexes: []string{index}, HashLen: 20})
	if len(p.Unproven) != 1 || p.Unproven[0].Why != WhyTooLong ||
		!strings.HasPrefix(strings.Repeat(name+"/", 45)+"deep.txt", p.Unproven[0].Path) {
		t.Errorf("deep path: %+v", p.Unproven)
	}
	if p.Files != 6 {
		t.Errorf("%d files, want 6", p.Files)
	}
}

func TestProveEmbeddedRepositories(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	idxGit(t, root, nil, "init", "-q", "sub")
	idxWrite(t, filepath.Join(root, "sub/x"), "x\n")
	// A .git file makes a repository too (a linked worktree, an absorbed
	// submodule).
	idxWrite(t, filepath.Join(root, "dir/wt/.git"), "gitdir: /nowhere\n")
	idxWrite(t, filepath.Join(root, "dir/wt/y"), "y\n")
	// Submodules: a checked-out one holds files only its own repository
	// has; one not checked out is an empty directory.
	head := idxGit(t, root, nil, "rev-parse", "HEAD")
	idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+head+",mod")
	idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+head+",mod2")
	idxWrite(t, filepath.Join(root, "mod/z"), "z\n")
	if err := os.Mkdir(filepath.Join(root, "mod2"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := proveRun(t, ProveInput{Root: root, Indexes: []string{index}, HashLen: 20})
	proveCheck(t, "embedded", p, "dir/wt/: "+WhyEmbedded, "mod/: "+WhyEmbedded, "sub/: "+WhyEmbedded)
	if p.Files != 6 || p.Hashed != 0 {
		t.Errorf("%d files, %d hashed; want 6 and 0", p.Files, p.Hashed)
	}
}

func TestProveSymlinksNotFollowed(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	for target, link := range map[string]string{"/": "outside", "dir": "dirlink", "missing": "dangling"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	in := ProveInput{Root: root, Indexes: []string{index}, HashLen: 20}
	p := proveRun(t, in)
	proveCheck(t, "links", p, "dangling: "+WhyNotSaved, "dirlink: "+WhyNotSaved, "outside: "+WhyNotSaved)
	if p.Files != 9 {
		t.Errorf("%d files, want 9", p.Files)
	}
	u := filepath.Join(t.TempDir(), "untracked")
	idxGit(t, root, []string{"GIT_INDEX_FILE=" + u}, "update-index", "--add", "--", "outside", "dirlink", "dangling")
	in.Indexes = append(in.Indexes, u)
	proveCheck(t, "links saved", proveRun(t, in))
}

func TestProveDrop(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	idxWrite(t, filepath.Join(root, "node_modules/pkg/index.js"), "js\n")
	idxWrite(t, filepath.Join(root, "dir/node_modules/x.js"), "x\n")
	idxWrite(t, filepath.Join(root, "build.log"), "log\n")
	idxWrite(t, filepath.Join(root, "keep.log"), "keep\n")
	var asked []string
	drop := func(rel string, isDir bool) bool {
		asked = append(asked, rel)
		return isDir && strings.HasSuffix("/"+rel, "/node_modules") || rel == "build.log"
	}
	p := proveRun(t, ProveInput{Root: root, Indexes: []string{index}, HashLen: 20, Drop: drop})
	proveCheck(t, "drop", p, "keep.log: "+WhyNotSaved)
	if want := []string{"build.log", "dir/node_modules/", "node_modules/"}; !reflect.DeepEqual(p.Dropped, want) {
		t.Errorf("dropped %q, want %q", p.Dropped, want)
	}
	for _, a := range asked {
		if strings.Contains(a, "node_modules/") {
			t.Errorf("asked about %s inside a dropped tree", a)
		}
	}
}

func TestProveErrors(t *testing.T) {
	root, index := proveRepo(t, "sha1")
	if _, err := Prove(ProveInput{Root: filepath.Join(root, "missing"), Indexes: []string{index}}); err == nil {
		t.Error("missing root proved")
	}
	if _, err := Prove(ProveInput{Root: filepath.Join(root, "a.txt"), Indexes: []string{index}}); err == nil {
		t.Error("a file as root proved")
	}
	bad := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(bad, []byte("DIRC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Prove(ProveInput{Root: root, Indexes: []string{index, bad}}); err == nil {
		t.Error("a corrupt index was taken as empty")
	}
}

// BenchmarkProve proves a worktree of 5,000 files in 50 directories whose
// index is fresh: no file is read.
func BenchmarkProve(b *testing.B) {
	root := idxNewRepo(b, "sha1")
	for i := 0; i < 5000; i++ {
		idxWrite(b, filepath.Join(root, fmt.Sprintf("d%02d/f%04d.txt", i%50, i)), fmt.Sprintf("file %d\n", i))
	}
	idxGit(b, root, nil, "add", ".")
	proveBackdate(b, root, time.Now().Add(-proveOld))
	idxGit(b, root, nil, "update-index", "-q", "--refresh")
	in := ProveInput{Root: root, Indexes: []string{filepath.Join(root, ".git", "index")}, HashLen: 20}
	for b.Loop() {
		p, err := Prove(in)
		if err != nil || len(p.Unproven) != 0 || p.Files != 5000 || p.Hashed != 0 {
			b.Fatalf("%+v %v", p, err)
		}
	}
}
