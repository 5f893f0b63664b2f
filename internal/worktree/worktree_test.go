package worktree_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

var (
	h1 = strings.Repeat("1", 40)
	h2 = strings.Repeat("2", 40)
	h3 = strings.Repeat("3", 40)
)

// nul joins porcelain -z attributes: each is NUL-terminated and an empty
// attribute ends a worktree.
func nul(attrs ...string) string {
	var b strings.Builder
	for _, a := range attrs {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.String()
}

// porcelainSample is `git worktree list --porcelain -z` for a main
// worktree and one linked worktree of every kind, in git's attribute order.
var porcelainSample = nul(
	"worktree /repo", "HEAD "+h1, "branch refs/heads/main", "",
	"worktree /repo/.worktrees/x1y2z3-task-1-1", "HEAD "+h2, "branch refs/heads/x1y2z3-task-1-1-schema", "locked", "",
	"worktree /repo/.worktrees/x1y2z3-task-1-2", "HEAD "+h2, "detached", "locked agent 42\nstill running", "",
	"worktree /repo/.worktrees/gone", "HEAD "+h3, "branch refs/heads/x1y2z3-task-2-1-user", "prunable gitdir file points to non-existent location", "",
	"worktree /tmp/with space\nand newline", "HEAD "+h3, "detached", "",
)

func TestParse(t *testing.T) {
	wts, err := worktree.Parse([]byte(porcelainSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []worktree.Worktree{
		{Path: "/repo", HEAD: h1, Branch: "refs/heads/main", Main: true},
		{Path: "/repo/.worktrees/x1y2z3-task-1-1", HEAD: h2, Branch: "refs/heads/x1y2z3-task-1-1-schema", Locked: true},
		{Path: "/repo/.worktrees/x1y2z3-task-1-2", HEAD: h2, Detached: true, Locked: true, LockReason: "agent 42\nstill running"},
		{Path: "/repo/.worktrees/gone", HEAD: h3, Branch: "refs/heads/x1y2z3-task-2-1-user", Prunable: true, PrunableReason: "gitdir file points to non-existent location"},
		{Path: "/tmp/with space\nand newline", HEAD: h3, Detached: true},
	}
	if len(wts) != len(want) {
		t.Fatalf("Parse returned %d worktrees, want %d: %+v", len(wts), len(want), wts)
	}
	for i := range want {
		if *wts[i] != want[i] {
			t.Errorf("worktree %d =\n%+v\nwant\n%+v", i, *wts[i], want[i])
		}
	}
	if got := wts[1].BranchShort(); got != "x1y2z3-task-1-1-schema" {
		t.Errorf("BranchShort = %q", got)
	}
	if got := wts[2].BranchShort(); got != "" {
		t.Errorf("BranchShort of a detached worktree = %q", got)
	}
	if got := wts[1].Name(); got != "x1y2z3-task-1-1" {
		t.Errorf("Name = %q", got)
	}
}

func TestParseBare(t *testing.T) {
	out := nul("worktree /srv/repo.git", "bare", "",
		"worktree /srv/wt", "HEAD "+h1, "branch refs/heads/x1y2z3-main", "")
	wts, err := worktree.Parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []worktree.Worktree{
		{Path: "/srv/repo.git", Bare: true, Main: true},
		{Path: "/srv/wt", HEAD: h1, Branch: "refs/heads/x1y2z3-main"},
	}
	if len(wts) != 2 || *wts[0] != want[0] || *wts[1] != want[1] {
		t.Errorf("Parse(bare) = %+v, want %+v", wts, want)
	}
}

func TestParseOddInputs(t *testing.T) {
	// Empty output, unknown attributes (a newer git), no final terminator.
	if wts, err := worktree.Parse(nil); err != nil || len(wts) != 0 {
		t.Errorf("Parse(nil) = %v, %v", wts, err)
	}
	out := nul("worktree /a", "HEAD "+h1, "branch refs/heads/main", "future-attr some value", "") + "worktree /b\x00HEAD " + h2
	wts, err := worktree.Parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 2 || wts[0].Branch != "refs/heads/main" || wts[1].Path != "/b" || wts[1].HEAD != h2 || wts[1].Main {
		t.Errorf("Parse = %+v", wts)
	}
	if _, err := worktree.Parse([]byte(nul("HEAD " + h1))); err == nil {
		t.Errorf("Parse accepted an attribute before any worktree")
	}
	// An unborn branch: git prints an all-zero HEAD, which names no commit.
	wts, err = worktree.Parse([]byte(nul("worktree /new", "HEAD "+strings.Repeat("0", 40), "branch refs/heads/main", "")))
	if err != nil || len(wts) != 1 || wts[0].HEAD != "" || wts[0].Branch != "refs/heads/main" {
		t.Errorf("Parse(unborn) = %+v, %v; want HEAD \"\"", wts, err)
	}
	// A path that is only spaces, or empty.
	wts, err = worktree.Parse([]byte(nul("worktree  ", "HEAD "+h1, "")))
	if err != nil || len(wts) != 1 || wts[0].Path != " " {
		t.Errorf("Parse(space path) = %+v, %v", wts, err)
	}
}

// gitEnv isolates git from the user's and the system's configuration.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	t.Setenv("GIT_TASKRESUME_TRACE", "")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	cfg := "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with a committed file and returns its
// symlink-free path.
func newRepo(t *testing.T) string {
	t.Helper()
	gitEnv(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "repo")
	git(t, base, "init", "-q", root)
	write(t, filepath.Join(root, "a.txt"), "a\n")
	write(t, filepath.Join(root, "b.txt"), "b\n")
	write(t, filepath.Join(root, ".gitignore"), "*.log\n")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "root")
	return root
}

func openRepo(t *testing.T, dir string) *gitcmd.Repo {
	t.Helper()
	r, err := gitcmd.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestList(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	head := git(t, root, "rev-parse", "HEAD")
	wtDir := filepath.Join(root, ".worktrees")
	locked := filepath.Join(wtDir, "x1y2z3-task-1-1")
	gone := filepath.Join(wtDir, "x1y2z3-task-1-2")
	detached := filepath.Join(wtDir, "x1y2z3-task-2-1")
	odd := filepath.Join(filepath.Dir(root), "odd name\nwith newline")
	git(t, root, "worktree", "add", "-q", "-b", "x1y2z3-task-1-1-schema", locked)
	git(t, root, "worktree", "lock", "--reason", "agent 42 running", locked)
	git(t, root, "worktree", "add", "-q", "-b", "x1y2z3-task-1-2-deps", gone)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	git(t, root, "worktree", "add", "-q", "--detach", detached)
	write(t, filepath.Join(detached, "new.txt"), "x")
	git(t, detached, "add", "new.txt")
	git(t, detached, "commit", "-q", "-m", "detached work")
	detachedHead := git(t, detached, "rev-parse", "HEAD")
	git(t, root, "worktree", "add", "-q", "-b", "odd", odd)
	git(t, root, "worktree", "add", "-q", "-b", "plain-lock", filepath.Join(wtDir, "plain"))
	git(t, root, "worktree", "lock", filepath.Join(wtDir, "plain"))

	// From the main worktree and from a linked one: the same list.
	for _, from := range []string{root, detached} {
		wts, err := worktree.List(ctx, openRepo(t, from))
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string]*worktree.Worktree{}
		for _, w := range wts {
			byPath[w.Path] = w
		}
		if len(wts) != 6 || len(byPath) != 6 {
			t.Fatalf("from %s: %d worktrees: %+v", from, len(wts), wts)
		}
		if wts[0].Path != root || !wts[0].Main || wts[0].Branch != "refs/heads/main" || wts[0].HEAD != head {
			t.Errorf("main worktree = %+v", *wts[0])
		}
		check := func(path string, want worktree.Worktree) {
			t.Helper()
			w := byPath[path]
			if w == nil {
				t.Errorf("from %s: no worktree %q in %v", from, path, keys(byPath))
				return
			}
			got := *w
			got.PrunableReason = "" // git's wording
			if got != want {
				t.Errorf("from %s: %q =\n%+v\nwant\n%+v", from, path, got, want)
			}
		}
		check(locked, worktree.Worktree{Path: locked, HEAD: head, Branch: "refs/heads/x1y2z3-task-1-1-schema", Locked: true, LockReason: "agent 42 running"})
		check(gone, worktree.Worktree{Path: gone, HEAD: head, Branch: "refs/heads/x1y2z3-task-1-2-deps", Prunable: true})
		check(detached, worktree.Worktree{Path: detached, HEAD: detachedHead, Detached: true})
		check(odd, worktree.Worktree{Path: odd, HEAD: head, Branch: "refs/heads/odd"})
		check(filepath.Join(wtDir, "plain"), worktree.Worktree{Path: filepath.Join(wtDir, "plain"), HEAD: head, Branch: "refs/heads/plain-lock", Locked: true})
		if w := byPath[gone]; w != nil && w.PrunableReason == "" {
			t.Errorf("prunable worktree has no reason")
		}
	}
}

func TestListBare(t *testing.T) {
	root := newRepo(t)
	bare := filepath.Join(filepath.Dir(root), "bare.git")
	git(t, root, "clone", "-q", "--bare", root, bare)
	wt := filepath.Join(filepath.Dir(root), "from-bare")
	git(t, bare, "worktree", "add", "-q", "-b", "x1y2z3-main", wt)
	wts, err := worktree.List(context.Background(), openRepo(t, bare))
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 2 || !wts[0].Bare || !wts[0].Main || wts[0].Path != bare || wts[1].Path != wt || wts[1].Branch != "refs/heads/x1y2z3-main" {
		t.Errorf("List(bare) = %+v", wts)
	}
}

// TestListUnborn: in a repository with no commit yet, git prints an
// all-zero HEAD; Worktree.HEAD documents "" for that case, and a zero id
// handed on to rev-list would be a bad object.
func TestListUnborn(t *testing.T) {
	gitEnv(t)
	dir := filepath.Join(t.TempDir(), "empty")
	git(t, filepath.Dir(dir), "init", "-q", dir)
	wts, err := worktree.List(context.Background(), openRepo(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 1 || wts[0].Branch != "refs/heads/main" {
		t.Fatalf("List(unborn) = %+v", wts)
	}
	if wts[0].HEAD != "" {
		t.Errorf("HEAD of an unborn main worktree = %q, want \"\" (as Worktree.HEAD documents)", wts[0].HEAD)
	}
}

func keys(m map[string]*worktree.Worktree) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// statusSample is `git status --porcelain=v2 -z` with one record of each
// kind. The rename's original path looks like a record on purpose.
var statusSample = nul(
	"1 M. N... 100644 100644 100644 "+h1+" "+h2+" staged.txt",
	"1 .M N... 100644 100644 100644 "+h1+" "+h1+" unstaged.txt",
	"1 MM N... 100644 100644 100644 "+h1+" "+h2+" both.txt",
	"1 A. N... 000000 100644 100644 "+strings.Repeat("0", 40)+" "+h2+" added file.txt",
	"1 .D N... 100644 100644 000000 "+h1+" "+h1+" deleted.txt",
	"2 R. N... 100644 100644 100644 "+h1+" "+h1+" R100 new name.txt", "1 MM trick-original-path",
	"2 RM N... 100644 100644 100644 "+h1+" "+h1+" R075 moved.txt", "? also-original",
	"? untracked.txt",
	"? dir/nested\nnewline.txt",
)

func TestParseStatus(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want worktree.Status
	}{
		{"empty", "", worktree.Status{}},
		{"sample", statusSample, worktree.Status{Staged: 5, Unstaged: 4, Untracked: 2}},
		{"headers and ignored are not counted", nul("# branch.oid "+h1, "# branch.head main", "! build.log"), worktree.Status{}},
		{"rename only", nul("2 R. N... 100644 100644 100644 "+h1+" "+h1+" R100 b.txt", "a.txt"), worktree.Status{Staged: 1}},
		{"untracked only", nul("? a", "? b", "? c"), worktree.Status{Untracked: 3}},
		{"submodule with new commits", nul("1 .M SC.. 160000 160000 160000 " + h1 + " " + h1 + " sub"), worktree.Status{Unstaged: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := worktree.ParseStatus([]byte(tc.out))
			if got != tc.want {
				t.Errorf("ParseStatus = %+v, want %+v", got, tc.want)
			}
			if got.Dirty() != (tc.want != worktree.Status{}) {
				t.Errorf("Dirty() = %v", got.Dirty())
			}
		})
	}
}

func TestParseStatusUnmerged(t *testing.T) {
	out := nul("u UU N... 100644 100644 100644 100644 " + h1 + " " + h2 + " " + h3 + " conflict.txt")
	st := worktree.ParseStatus([]byte(out))
	if !st.Dirty() || st.Untracked != 0 {
		t.Errorf("unmerged entry: %+v, want dirty and nothing untracked", st)
	}
	if st.Staged+st.Unstaged == 0 {
		t.Errorf("unmerged entry counted neither staged nor unstaged: %+v", st)
	}
}

func TestReadStatus(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	clean := filepath.Join(root, ".worktrees", "clean")
	dirty := filepath.Join(root, ".worktrees", "dirty")
	conflicted := filepath.Join(root, ".worktrees", "conflicted")
	// .git/info/exclude must be honoured (go-git v5.19 ignores it).
	write(t, filepath.Join(root, ".git", "info", "exclude"), "/.worktrees/\n")
	git(t, root, "worktree", "add", "-q", "-b", "clean", clean)
	git(t, root, "worktree", "add", "-q", "-b", "dirty", dirty)

	write(t, filepath.Join(dirty, "a.txt"), "a staged\n")
	git(t, dirty, "add", "a.txt")
	write(t, filepath.Join(dirty, "a.txt"), "a staged then changed\n") // staged + unstaged
	write(t, filepath.Join(dirty, "b.txt"), "b unstaged\n")
	git(t, dirty, "mv", "b.txt", "c.txt") // rename, staged (and c.txt modified)
	write(t, filepath.Join(dirty, "new.txt"), "n")
	write(t, filepath.Join(dirty, "deep", "er", "one.txt"), "1")
	write(t, filepath.Join(dirty, "deep", "er", "two.txt"), "2")
	write(t, filepath.Join(dirty, "build.log"), "ignored")

	// A merge conflict.
	git(t, root, "worktree", "add", "-q", "-b", "conflicted", conflicted)
	write(t, filepath.Join(conflicted, "a.txt"), "ours\n")
	git(t, conflicted, "commit", "-q", "-am", "ours")
	git(t, root, "switch", "-q", "-c", "theirs")
	write(t, filepath.Join(root, "a.txt"), "theirs\n")
	git(t, root, "commit", "-q", "-am", "theirs")
	git(t, root, "switch", "-q", "main")
	cmd := exec.Command("git", "merge", "-q", "theirs")
	cmd.Dir = conflicted
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("merge did not conflict: %s", out)
	}

	missing := filepath.Join(root, ".worktrees", "missing")
	file := filepath.Join(root, "a.txt")
	notRepo := t.TempDir()

	paths := []string{clean, dirty, conflicted, missing, file, notRepo, root}
	res := worktree.ReadStatus(ctx, paths)
	if len(res) != len(paths) {
		t.Fatalf("ReadStatus returned %d results for %d paths", len(res), len(paths))
	}
	if st := res[clean]; st != (worktree.Status{}) {
		t.Errorf("clean worktree: %+v", st)
	}
	if st := res[root]; st != (worktree.Status{}) {
		t.Errorf("main worktree (its .worktrees/ holds nested worktrees): %+v", st)
	}
	// a.txt staged+unstaged, b.txt->c.txt rename staged (+ c.txt unstaged), 3 untracked.
	if st := res[dirty]; st != (worktree.Status{Staged: 2, Unstaged: 2, Untracked: 3}) {
		t.Errorf("dirty worktree: %+v, want {Staged:2 Unstaged:2 Untracked:3}", st)
	}
	if st := res[conflicted]; st.Err != nil || !st.Dirty() {
		t.Errorf("conflicted worktree: %+v, want dirty", st)
	}
	for _, p := range []string{missing, file, notRepo} {
		st, ok := res[p]
		if !ok || st.Err == nil {
			t.Errorf("%s: %+v, want Err set", p, st)
		}
		if st.Dirty() {
			t.Errorf("%s: an unreadable worktree reported as dirty: %+v", p, st)
		}
	}
	if res := worktree.ReadStatus(ctx, nil); len(res) != 0 {
		t.Errorf("ReadStatus(nil) = %v", res)
	}

	// ReadStatus never refreshes the index: a report must not take
	// index.lock (or rewrite the index) beside a live agent. A new mtime
	// with the same content is what a refreshing status would write back.
	idx := git(t, clean, "rev-parse", "--path-format=absolute", "--git-path", "index")
	before, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(clean, "a.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	if st := worktree.ReadStatus(ctx, []string{clean})[clean]; st != (worktree.Status{}) {
		t.Errorf("touched clean worktree: %+v", st)
	}
	after, _ := os.ReadFile(idx)
	if !bytes.Equal(before, after) {
		t.Errorf("ReadStatus rewrote the index of %s", clean)
	}
}

func TestReadStatusManyConcurrent(t *testing.T) {
	root := newRepo(t)
	var paths []string
	for i := 0; i < 10; i++ {
		p := filepath.Join(root, ".worktrees", "w"+string(rune('a'+i)))
		git(t, root, "worktree", "add", "-q", "--detach", p)
		for j := 0; j <= i; j++ {
			write(t, filepath.Join(p, "u"+string(rune('a'+j))), "x")
		}
		paths = append(paths, p)
	}
	res := worktree.ReadStatus(context.Background(), paths)
	for i, p := range paths {
		if st := res[p]; st.Err != nil || st.Untracked != i+1 {
			t.Errorf("%s: %+v, want %d untracked", p, st, i+1)
		}
	}
}

func TestReadStatusCancelled(t *testing.T) {
	root := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := worktree.ReadStatus(ctx, []string{root})
	if st := res[root]; st.Err == nil {
		t.Errorf("cancelled context: %+v, want Err", st)
	}
}

func TestParseStatusVsReal(t *testing.T) {
	// The literal sample must look like what git really prints: build the
	// same kinds of entries and compare the record shapes.
	root := newRepo(t)
	write(t, filepath.Join(root, "a.txt"), "changed\n")
	git(t, root, "mv", "b.txt", "renamed b.txt")
	write(t, filepath.Join(root, "u.txt"), "u")
	out := []byte(git(t, root, "status", "--porcelain=v2", "-z", "--untracked-files=all"))
	recs := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	var kinds []string
	for _, r := range recs {
		kinds = append(kinds, r[:4])
	}
	want := []string{"1 .M", "2 R.", "b.tx", "? u."}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("real status records %q, want shapes %q", recs, want)
	}
	if st := worktree.ParseStatus(out); st != (worktree.Status{Staged: 1, Unstaged: 1, Untracked: 1}) {
		t.Errorf("ParseStatus(real) = %+v", st)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(porcelainSample))
	f.Add([]byte(nul("worktree /srv/repo.git", "bare", "", "worktree /srv/wt", "HEAD "+h1, "branch refs/heads/x1y2z3-main", "")))
	f.Add([]byte(nul("HEAD " + h1)))
	f.Add([]byte("worktree /b\x00HEAD " + h2))
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, out []byte) {
		wts, err := worktree.Parse(out)
		if err != nil {
			return
		}
		for i, w := range wts {
			if w == nil {
				t.Fatalf("worktree %d is nil", i)
			}
			if w.Main != (i == 0) {
				t.Errorf("worktree %d: Main = %v", i, w.Main)
			}
			_ = w.Name()
			_ = w.BranchShort()
		}
		if n := bytes.Count(out, []byte("worktree")); len(wts) > n {
			t.Errorf("%d worktrees from %d \"worktree\" attributes", len(wts), n)
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(statusSample))
	f.Add([]byte(nul("u UU N... 100644 100644 100644 100644 " + h1 + " " + h2 + " " + h3 + " conflict.txt")))
	f.Add([]byte(nul("# branch.oid "+h1, "! build.log", "2 R.")))
	f.Add([]byte("2"))
	f.Add([]byte("1 M"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, out []byte) {
		st := worktree.ParseStatus(out)
		if st.Staged < 0 || st.Unstaged < 0 || st.Untracked < 0 || st.Err != nil {
			t.Fatalf("ParseStatus = %+v", st)
		}
		recs := bytes.Count(out, []byte{0}) + 1
		if st.Staged > recs || st.Unstaged > recs || st.Untracked > recs {
			t.Errorf("ParseStatus = %+v from %d records", st, recs)
		}
		// The file lists come from the same records: never more untracked
		// names than untracked entries counted, none empty.
		fl := worktree.ParseStatusFiles(out)
		if len(fl.Untracked) > st.Untracked || len(fl.Untracked)+len(fl.Ignored) > recs {
			t.Errorf("ParseStatusFiles = %d untracked, %d ignored; ParseStatus %+v", len(fl.Untracked), len(fl.Ignored), st)
		}
		for _, n := range append(fl.Untracked, fl.Ignored...) {
			if n == "" {
				t.Errorf("ParseStatusFiles gave an empty name")
			}
		}
	})
}

func TestParseStatusFiles(t *testing.T) {
	out := nul("1 .M N... 100644 100644 100644 "+h1+" "+h1+" tracked.txt", "? new dir/a b.txt", "! node_modules/", "! build.log",
		"2 R. N... 100644 100644 100644 "+h1+" "+h1+" R100 to.txt", "from.txt", "? last\nline.txt")
	got := worktree.ParseStatusFiles([]byte(out))
	want := worktree.Files{Untracked: []string{"new dir/a b.txt", "last\nline.txt"}, Ignored: []string{"node_modules/", "build.log"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseStatusFiles = %q, want %q", got, want)
	}
}

// AdminDirOf finds what AdminDirs finds for a healthy worktree, and says
// it cannot when the worktree's own .git may mislead: a symbolic link, a
// .git naming another repository's entry, an entry that records another
// path (the worktree was copied or moved by hand), no .git at all.
func TestAdminDirOf(t *testing.T) {
	dir := newRepo(t)
	common := filepath.Join(dir, ".git")
	wt := filepath.Join(dir, ".worktrees", "r1a2b3-task-1-1")
	git(t, dir, "worktree", "add", "-q", "--detach", wt)
	admins := worktree.AdminDirs(common)
	got, ok := worktree.AdminDirOf(common, wt)
	if !ok || got != admins[wt] || got == "" {
		t.Fatalf("AdminDirOf = %q, %v; AdminDirs says %q", got, ok, admins[wt])
	}

	link := filepath.Join(dir, "link")
	if err := os.Symlink(wt, link); err != nil {
		t.Fatal(err)
	}
	if got, ok := worktree.AdminDirOf(common, link); ok {
		t.Errorf("through a symbolic link: %q", got)
	}
	// A copy of the worktree: its .git names the original's entry, which
	// records the original's path.
	cp := filepath.Join(dir, "copy")
	if err := os.MkdirAll(cp, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(wt, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(cp, ".git"), string(data))
	if got, ok := worktree.AdminDirOf(common, cp); ok {
		t.Errorf("a copy: %q", got)
	}
	// Another repository's entry.
	other := newRepo(t)
	if got, ok := worktree.AdminDirOf(filepath.Join(other, ".git"), wt); ok {
		t.Errorf("another repository's common dir: %q", got)
	}
	if got, ok := worktree.AdminDirOf(common, filepath.Join(dir, "nowhere")); ok {
		t.Errorf("no such directory: %q", got)
	}
	if got, ok := worktree.AdminDirOf(common, dir); ok {
		t.Errorf("the main worktree (.git is a directory): %q", got)
	}
	// A relative gitdir, as worktree.useRelativePaths writes it.
	rel, err := filepath.Rel(wt, admins[wt])
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, ".git"), "gitdir: "+rel+"\n")
	if got, ok := worktree.AdminDirOf(common, wt); !ok || got != admins[wt] {
		t.Errorf("relative gitdir: %q, %v; want %q", got, ok, admins[wt])
	}
}
