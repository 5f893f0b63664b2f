package gitcmd_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// gitEnv isolates git from the user's and the system's configuration and
// fixes identities, so that the tests see only the repositories they build.
func gitEnv(t *testing.T) string { return testbin.IsolateGit(t) }

// git runs the real git binary for test setup, independent of the code
// under test.
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

// commit makes an empty commit with message msg at a given time and
// returns its id.
func commit(t *testing.T, dir, msg string) string {
	t.Helper()
	git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return git(t, dir, "rev-parse", "HEAD")
}

// newRepo creates a repository with one commit on main and returns its
// (symlink-free) path and the commit.
func newRepo(t *testing.T) (string, string) {
	t.Helper()
	gitEnv(t)
	dir := realpath(t, t.TempDir())
	dir = filepath.Join(dir, "repo")
	git(t, filepath.Dir(dir), "init", "-q", dir)
	return dir, commit(t, dir, "root")
}

func realpath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func open(t *testing.T, dir string) *gitcmd.Repo {
	t.Helper()
	r, err := gitcmd.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return r
}

func samePath(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, err1 := filepath.EvalSymlinks(got)
	w, err2 := filepath.EvalSymlinks(want)
	if err1 != nil || err2 != nil || g != w {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	root, _ := newRepo(t)
	dotgit := filepath.Join(root, ".git")
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(filepath.Dir(root), "linked wt")
	git(t, root, "worktree", "add", "-q", "-b", "feature", wt)
	// git names the admin directory after the worktree's base name,
	// sanitised ("linked-wt"); ask git rather than guess.
	wtGitDir := git(t, wt, "rev-parse", "--absolute-git-dir")
	if filepath.Dir(wtGitDir) != filepath.Join(dotgit, "worktrees") {
		t.Fatalf("linked worktree git dir %s is not under %s/worktrees", wtGitDir, dotgit)
	}
	wtSub := filepath.Join(wt, "deep")
	if err := os.MkdirAll(wtSub, 0o755); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(filepath.Dir(root), "bare.git")
	git(t, root, "clone", "-q", "--bare", root, bare)

	cases := []struct {
		name                      string
		dir                       string
		gitDir, commonDir, topLvl string
		bare                      bool
	}{
		{"top", root, dotgit, dotgit, root, false},
		{"subdir", sub, dotgit, dotgit, root, false},
		{"linked worktree", wt, wtGitDir, dotgit, wt, false},
		{"linked worktree subdir", wtSub, wtGitDir, dotgit, wt, false},
		{"bare", bare, bare, bare, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := open(t, tc.dir)
			samePath(t, "GitDir", r.GitDir, tc.gitDir)
			samePath(t, "CommonDir", r.CommonDir, tc.commonDir)
			if tc.topLvl == "" {
				if r.TopLevel != "" {
					t.Errorf("TopLevel = %q, want empty", r.TopLevel)
				}
			} else {
				samePath(t, "TopLevel", r.TopLevel, tc.topLvl)
				if !filepath.IsAbs(r.TopLevel) {
					t.Errorf("TopLevel %q is not absolute", r.TopLevel)
				}
			}
			if !filepath.IsAbs(r.GitDir) || !filepath.IsAbs(r.CommonDir) {
				t.Errorf("GitDir %q / CommonDir %q not absolute", r.GitDir, r.CommonDir)
			}
			if r.Bare != tc.bare {
				t.Errorf("Bare = %v, want %v", r.Bare, tc.bare)
			}
			if r.Shallow {
				t.Errorf("Shallow = true in a full repository")
			}
			// The runner works in that directory.
			if _, err := r.Run(ctx, "rev-parse", "HEAD"); err != nil {
				t.Errorf("Run in opened repo: %v", err)
			}
		})
	}

	t.Run("current directory", func(t *testing.T) {
		t.Chdir(sub)
		r := open(t, "")
		samePath(t, "TopLevel", r.TopLevel, root)
		samePath(t, "GitDir", r.GitDir, dotgit)
	})

	t.Run("shallow clone", func(t *testing.T) {
		commit(t, root, "second")
		sh := filepath.Join(filepath.Dir(root), "shallow")
		git(t, root, "clone", "-q", "--depth=1", "file://"+root, sh)
		r := open(t, sh)
		if !r.Shallow {
			t.Errorf("Shallow = false in a --depth=1 clone")
		}
		samePath(t, "TopLevel", r.TopLevel, sh)
	})

	t.Run("outside a repository", func(t *testing.T) {
		out := t.TempDir() // under GIT_CEILING_DIRECTORIES' parent
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(out))
		_, err := gitcmd.Open(ctx, out)
		if !errors.Is(err, gitcmd.ErrNotRepo) {
			t.Errorf("Open outside a repository: err = %v, want ErrNotRepo", err)
		}
	})
}

func TestError(t *testing.T) {
	root, _ := newRepo(t)
	ctx := context.Background()
	_, err := gitcmd.Runner{Dir: root}.Run(ctx, "rev-parse", "--verify", "no-such-branch")
	var ge *gitcmd.Error
	if !errors.As(err, &ge) {
		t.Fatalf("err = %T %v, want *gitcmd.Error", err, err)
	}
	if ge.ExitCode != 128 {
		t.Errorf("ExitCode = %d, want 128", ge.ExitCode)
	}
	if !strings.Contains(ge.Stderr, "Needed a single revision") {
		t.Errorf("Stderr = %q", ge.Stderr)
	}
	if !reflect.DeepEqual(ge.Args, []string{"rev-parse", "--verify", "no-such-branch"}) {
		t.Errorf("Args = %q", ge.Args)
	}
	if msg := ge.Error(); msg != "git rev-parse: Needed a single revision" {
		t.Errorf("Error() = %q", msg)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("Unwrap does not reach the *exec.ExitError")
	}
	if got := gitcmd.ExitCode(fmt.Errorf("wrapped: %w", err)); got != 128 {
		t.Errorf("ExitCode(wrapped) = %d, want 128", got)
	}
	if got := gitcmd.ExitCode(errors.New("plain")); got != -1 {
		t.Errorf("ExitCode(plain error) = %d, want -1", got)
	}
	if got := gitcmd.ExitCode(nil); got != -1 {
		t.Errorf("ExitCode(nil) = %d, want -1", got)
	}

	// Exit code 1 with empty stderr: the message falls back to Err.
	_, err = gitcmd.Runner{Dir: root}.Run(ctx, "config", "--get", "no.such")
	if !errors.As(err, &ge) || ge.ExitCode != 1 {
		t.Fatalf("config --get of a missing key: %v, want exit 1", err)
	}
	if !strings.HasPrefix(ge.Error(), "git config: ") || strings.HasSuffix(ge.Error(), ": ") {
		t.Errorf("Error() = %q", ge.Error())
	}

	// A directory that does not exist.
	_, err = gitcmd.Runner{Dir: filepath.Join(root, "nope")}.Run(ctx, "status")
	if gitcmd.ExitCode(err) <= 0 {
		t.Errorf("Run in a missing directory: %v", err)
	}
}

func TestRunnerEnvAndTrace(t *testing.T) {
	root, _ := newRepo(t)
	ctx := context.Background()
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TASKRESUME_TRACE", trace)
	show := []string{"-c", `alias.showenv=!printf '%s|%s' "$GIT_OPTIONAL_LOCKS" "$LC_ALL"`, "showenv"}
	out, err := gitcmd.Runner{Dir: root}.Run(ctx, show...)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "0|C" {
		t.Errorf("read-only runner env = %q, want 0|C", out)
	}
	t.Setenv("GIT_OPTIONAL_LOCKS", "")
	os.Unsetenv("GIT_OPTIONAL_LOCKS")
	out, err = gitcmd.Runner{Dir: root, Write: true}.Run(ctx, show...)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "|C" {
		t.Errorf("write runner env = %q, want |C", out)
	}
	out, err = gitcmd.Runner{Dir: root}.RunInput(ctx, []byte("hello"), "hash-object", "--stdin")
	if err != nil || len(strings.TrimSpace(string(out))) != 40 {
		t.Errorf("RunInput hash-object: %q %v", out, err)
	}
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(tr), "\n"), "\n")
	if len(lines) != 3 || lines[2] != "git hash-object --stdin" {
		t.Errorf("trace = %q", tr)
	}
}

func TestConfig(t *testing.T) {
	root, _ := newRepo(t)
	ctx := context.Background()
	r := open(t, root)
	cfg, err := r.Config(ctx, "taskresume")
	if err != nil {
		t.Fatalf("Config with no keys: %v", err)
	}
	if cfg == nil || len(cfg) != 0 {
		t.Errorf("Config with no keys = %#v, want an empty map", cfg)
	}

	git(t, root, "config", "TaskResume.Base", "develop")
	git(t, root, "config", "taskresume.worktreeDir", ".wt")
	git(t, root, "config", "--add", "taskresume.remote", "origin")
	git(t, root, "config", "--add", "taskresume.remote", "upstream")
	git(t, root, "config", "taskresume.note", "two\nlines")
	git(t, root, "config", "taskresumex.other", "no")
	git(t, root, "config", "other.taskresume", "no")
	// A valueless boolean key.
	f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[taskresume]\n\tflag\n")
	f.Close()
	// Global config counts too, and the repository's overrides it.
	git(t, root, "config", "--global", "taskresume.plan", "specs/{run}/plan.md")
	git(t, root, "config", "--global", "taskresume.base", "global-base")

	cfg, err = r.Config(ctx, "taskresume")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"taskresume.base":        "develop",
		"taskresume.worktreedir": ".wt",
		"taskresume.remote":      "upstream",
		"taskresume.note":        "two\nlines",
		"taskresume.flag":        "",
		"taskresume.plan":        "specs/{run}/plan.md",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Config =\n%#v\nwant\n%#v", cfg, want)
	}

	// A regexp metacharacter in the section name is literal.
	git(t, root, "config", "aXb.key", "v")
	cfg, err = r.Config(ctx, "a.b")
	if err != nil || len(cfg) != 0 {
		t.Errorf("Config(a.b) = %v, %v; want empty", cfg, err)
	}
}

func refNames(refs []gitcmd.Ref) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

func TestRefs(t *testing.T) {
	root, c0 := newRepo(t)
	ctx := context.Background()
	git(t, root, "branch", "x1y2z3-task-1-1-schema")
	git(t, root, "branch", "x1y2z3-main")
	git(t, root, "branch", "x1y2z3x-task-1-1-other")
	t.Setenv("GIT_COMMITTER_DATE", "1700000500 +0000")
	git(t, root, "switch", "-q", "-c", "x1y2z3-task-2-1-user")
	c1 := commit(t, root, "user service")
	git(t, root, "switch", "-q", "main")
	git(t, root, "tag", "-a", "-m", "v1", "v1", c0)
	git(t, root, "update-ref", "refs/remotes/origin/main", c1)
	git(t, root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	r := open(t, root)

	refs, err := r.Refs(ctx, "refs/heads/x1y2z3-task-")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 0 {
		t.Errorf("literal prefix pattern matched %v; git matches only whole names or /-prefixes", refNames(refs))
	}

	refs, err = r.Refs(ctx, "refs/heads/x1y2z3-task-*")
	if err != nil {
		t.Fatal(err)
	}
	want := []gitcmd.Ref{
		{Name: "refs/heads/x1y2z3-task-1-1-schema", OID: c0, Type: "commit", CommitTime: time.Unix(1700000000, 0)},
		{Name: "refs/heads/x1y2z3-task-2-1-user", OID: c1, Type: "commit", CommitTime: time.Unix(1700000500, 0)},
	}
	if !reflect.DeepEqual(refs, want) {
		t.Errorf("Refs(task glob) =\n%+v\nwant\n%+v", refs, want)
	}

	refs, err = r.Refs(ctx, "refs/heads/x1y2z3-task-*", "refs/heads/x1y2z3-main", "refs/heads/master", "refs/remotes/origin/HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refNames(refs), []string{"refs/heads/x1y2z3-main", "refs/heads/x1y2z3-task-1-1-schema", "refs/heads/x1y2z3-task-2-1-user", "refs/remotes/origin/HEAD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Refs(several) = %v, want %v", got, want)
	}
	if last := refs[len(refs)-1]; last.Symref != "refs/remotes/origin/main" || last.OID != c1 {
		t.Errorf("origin/HEAD = %+v, want symref to refs/remotes/origin/main at %s", last, c1)
	}

	refs, err = r.Refs(ctx, "refs/tags/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Type != "tag" || refs[0].OID == c0 {
		t.Errorf("annotated tag = %+v, want type tag with the tag object's id", refs)
	}

	refs, err = r.Refs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 8 {
		t.Errorf("Refs() listed %d refs, want all 8: %v", len(refs), refNames(refs))
	}

	// Option-looking patterns are patterns, never options.
	for _, p := range []string{"--format=%(refname)", "--count=1", "-h"} {
		refs, err := r.Refs(ctx, p)
		if err != nil || len(refs) != 0 {
			t.Errorf("Refs(%q) = %v, %v; want no refs and no error", p, refNames(refs), err)
		}
	}
}

func TestRefsCheckedOutElsewhere(t *testing.T) {
	root, c0 := newRepo(t)
	ctx := context.Background()
	wt := filepath.Join(filepath.Dir(root), "wt")
	git(t, root, "worktree", "add", "-q", "-b", "x1y2z3-task-1-1-schema", wt)
	c1 := commit(t, wt, "work in the worktree")
	git(t, root, "branch", "x1y2z3-task-1-2-deps", c0)
	want := []string{"refs/heads/x1y2z3-task-1-1-schema", "refs/heads/x1y2z3-task-1-2-deps"}
	// git branch would print "+ x1y2z3-task-1-1-schema" from root and
	// "* x1y2z3-task-1-1-schema" from wt.
	for _, dir := range []string{root, wt} {
		refs, err := open(t, dir).Refs(ctx, "refs/heads/x1y2z3-task-*")
		if err != nil {
			t.Fatal(err)
		}
		if got := refNames(refs); !reflect.DeepEqual(got, want) {
			t.Errorf("from %s: %v, want %v", dir, got, want)
			continue
		}
		if refs[0].OID != c1 || refs[1].OID != c0 {
			t.Errorf("from %s: OIDs %s %s, want %s %s", dir, refs[0].OID, refs[1].OID, c1, c0)
		}
	}
}

func TestRefsPackedAndLoose(t *testing.T) {
	root, c0 := newRepo(t)
	ctx := context.Background()
	git(t, root, "branch", "x1y2z3-task-1-1-a")
	git(t, root, "branch", "x1y2z3-task-1-2-b")
	git(t, root, "branch", "x1y2z3-task-1-3-c")
	git(t, root, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(root, ".git", "refs", "heads", "x1y2z3-task-1-1-a")); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left a loose ref: %v", err)
	}
	c1 := commit(t, root, "new")
	git(t, root, "branch", "x1y2z3-task-2-1-d")                      // loose only
	git(t, root, "branch", "-f", "x1y2z3-task-1-2-b", c1)            // loose, stale packed copy
	git(t, root, "update-ref", "-d", "refs/heads/x1y2z3-task-1-3-c") // deleted from packed-refs
	packed, _ := os.ReadFile(filepath.Join(root, ".git", "packed-refs"))
	if !strings.Contains(string(packed), "x1y2z3-task-1-1-a") {
		t.Fatalf("packed-refs = %s", packed)
	}

	refs, err := open(t, root).Refs(ctx, "refs/heads/x1y2z3-task-*")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range refs {
		if _, dup := got[r.Name]; dup {
			t.Errorf("%s listed twice", r.Name)
		}
		got[r.Name] = r.OID
	}
	want := map[string]string{
		"refs/heads/x1y2z3-task-1-1-a": c0,
		"refs/heads/x1y2z3-task-1-2-b": c1,
		"refs/heads/x1y2z3-task-2-1-d": c1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %v, want %v", got, want)
	}
}

func TestParseRefs(t *testing.T) {
	out := []byte("refs/heads/a\x00" + strings.Repeat("a", 40) + "\x00commit\x00\x001700000000\x00\n" +
		"refs/remotes/origin/HEAD\x00" + strings.Repeat("b", 40) + "\x00commit\x00refs/remotes/origin/main\x001700000001\x00\n" +
		"refs/tags/v1\x00" + strings.Repeat("c", 40) + "\x00tag\x00\x00\x00\n")
	refs, err := gitcmd.ParseRefs(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []gitcmd.Ref{
		{Name: "refs/heads/a", OID: strings.Repeat("a", 40), Type: "commit", CommitTime: time.Unix(1700000000, 0)},
		{Name: "refs/remotes/origin/HEAD", OID: strings.Repeat("b", 40), Type: "commit", Symref: "refs/remotes/origin/main", CommitTime: time.Unix(1700000001, 0)},
		{Name: "refs/tags/v1", OID: strings.Repeat("c", 40), Type: "tag"},
	}
	if !reflect.DeepEqual(refs, want) {
		t.Errorf("ParseRefs =\n%+v\nwant\n%+v", refs, want)
	}
	if refs, err := gitcmd.ParseRefs(nil); err != nil || len(refs) != 0 {
		t.Errorf("ParseRefs(nil) = %v, %v", refs, err)
	}
	if _, err := gitcmd.ParseRefs([]byte("refs/heads/a\x00abc\x00\n")); err == nil {
		t.Errorf("ParseRefs accepted a short record")
	}
}

func commitIDs(cs []gitcmd.Commit) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.OID)
	}
	return out
}

// walk is the report's walk (LogWalk) as commits with parents: what the
// completion rule reads of the graph.
func walk(ctx context.Context, r *gitcmd.Repo, include, exclude []string) ([]gitcmd.Commit, error) {
	es, _, err := r.LogWalk(ctx, include, exclude)
	if es == nil {
		return nil, err
	}
	cs := make([]gitcmd.Commit, len(es))
	for i, e := range es {
		cs[i] = gitcmd.Commit{OID: e.OID, Parents: e.Parents}
	}
	return cs, err
}

func TestWalk(t *testing.T) {
	root, a := newRepo(t)
	ctx := context.Background()
	git(t, root, "switch", "-q", "-c", "task1")
	b := commit(t, root, "b")
	c := commit(t, root, "c")
	git(t, root, "switch", "-q", "-c", "task2")
	d := commit(t, root, "d")
	git(t, root, "switch", "-q", "-c", "side", a)
	e := commit(t, root, "e")
	git(t, root, "switch", "-q", "task2")
	git(t, root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	m := git(t, root, "rev-parse", "HEAD")
	git(t, root, "switch", "-q", "main")
	r := open(t, root)

	cases := []struct {
		name             string
		include, exclude []string
		want             map[string][]string // commit -> parents
	}{
		{"one branch against base", []string{c}, []string{a}, map[string][]string{c: {b}, b: {a}}},
		{"by name", []string{"task1"}, []string{"main"}, map[string][]string{c: {b}, b: {a}}},
		{"several tips, no duplicates", []string{c, "task2", c}, []string{a}, map[string][]string{m: {d, e}, e: {a}, d: {c}, c: {b}, b: {a}}},
		{"stacked exclude", []string{"task2"}, []string{"task1"}, map[string][]string{m: {d, e}, e: {a}, d: {c}}},
		{"exclude several", []string{"task2"}, []string{"task1", "side"}, map[string][]string{m: {d, e}, d: {c}}},
		{"tip in the base", []string{a}, []string{"main"}, map[string][]string{}},
		{"no exclude: whole history", []string{b}, nil, map[string][]string{b: {a}, a: nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := walk(ctx, r, tc.include, tc.exclude)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, c := range cs {
				if _, dup := got[c.OID]; dup {
					t.Errorf("%s listed twice", c.OID)
				}
				if len(c.Parents) == 0 {
					c.Parents = nil
				}
				got[c.OID] = c.Parents
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Walk = %v, want %v", got, tc.want)
			}
		})
	}
	if cs, err := walk(ctx, r, nil, []string{a}); err != nil || cs != nil {
		t.Errorf("Walk(nil) = %v, %v; want nil, nil", cs, err)
	}
	if _, err := walk(ctx, r, []string{"no-such-rev"}, []string{a}); err == nil {
		t.Errorf("Walk of an unknown revision succeeded")
	}
	if _, err := walk(ctx, r, []string{c}, []string{"no-such-base"}); err == nil {
		t.Errorf("Walk with an unknown exclude succeeded: a missing base must never read as 0 commits")
	}
}

// TestWalkRejectsEmptyRevision: git rev-list --stdin stops reading at an
// empty line, so an empty revision silently drops every revision after it,
// the excluded base included, and the walk returns the whole history (or
// nothing). Walk must refuse it rather than answer wrongly.
func TestWalkRejectsEmptyRevision(t *testing.T) {
	root, a := newRepo(t)
	ctx := context.Background()
	b := commit(t, root, "b")
	r := open(t, root)
	for _, tc := range []struct{ include, exclude []string }{
		{[]string{b, ""}, []string{a}},
		{[]string{"", b}, []string{a}},
		{[]string{b}, []string{""}},
	} {
		cs, err := walk(ctx, r, tc.include, tc.exclude)
		if err == nil {
			t.Errorf("Walk(%q, %q) = %v, want an error", tc.include, tc.exclude, commitIDs(cs))
		}
	}
	// A commit no ref holds, after an empty revision: the answer "nothing
	// would be orphaned" would let a worktree removal lose it.
	git(t, root, "switch", "-q", "--detach")
	orphan := commit(t, root, "orphan")
	cs, err := r.WalkNotOnRefs(ctx, []string{"", orphan})
	if err == nil && !reflect.DeepEqual(commitIDs(cs), []string{orphan}) {
		t.Errorf("WalkNotOnRefs([\"\", orphan]) = %v, nil; want an error or [%s]", commitIDs(cs), orphan)
	}
}

func TestOptionLookingNames(t *testing.T) {
	root, a := newRepo(t)
	ctx := context.Background()
	r := open(t, root)
	victim := filepath.Join(t.TempDir(), "victim")

	for _, rev := range []string{"--output=" + victim, "--all", "-h", "--git-dir=/"} {
		if id, err := r.ResolveCommit(ctx, rev); err == nil {
			t.Errorf("ResolveCommit(%q) = %q, want an error", rev, id)
		}
		if cs, err := walk(ctx, r, []string{rev}, nil); err == nil {
			t.Errorf("Walk([%q]) = %d commits, want an error", rev, len(cs))
		}
		if cs, err := walk(ctx, r, []string{a}, []string{rev}); err == nil {
			t.Errorf("Walk(exclude %q) = %d commits, want an error", rev, len(cs))
		}
		if cs, err := r.WalkNotOnRefs(ctx, []string{rev}); err == nil {
			t.Errorf("WalkNotOnRefs([%q]) = %d commits, want an error", rev, len(cs))
		}
		if b, err := r.ReadBlob(ctx, rev, "x"); err == nil {
			t.Errorf("ReadBlob(%q) = %q, want an error", rev, b)
		}
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("an option-looking revision created %s", victim)
	}

	// A real branch whose name starts with "-" (git branch refuses it;
	// update-ref does not) is resolved as a name.
	git(t, root, "update-ref", "refs/heads/-dash", a)
	if id, err := r.ResolveCommit(ctx, "-dash"); err != nil || id != a {
		t.Errorf("ResolveCommit(-dash) = %q, %v; want %s", id, err, a)
	}
	if cs, err := walk(ctx, r, []string{"refs/heads/-dash"}, nil); err != nil || len(cs) != 1 {
		t.Errorf("Walk(refs/heads/-dash) = %v, %v", cs, err)
	}
}

func TestResolveCommit(t *testing.T) {
	root, a := newRepo(t)
	ctx := context.Background()
	b := commit(t, root, "b")
	git(t, root, "tag", "-a", "-m", "annotated", "v1", a)
	r := open(t, root)
	for rev, want := range map[string]string{"main": b, "HEAD~1": a, "v1": a, "refs/tags/v1": a, a: a, a[:10]: a} {
		if id, err := r.ResolveCommit(ctx, rev); err != nil || id != want {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %s", rev, id, err, want)
		}
	}
	tree := git(t, root, "rev-parse", "HEAD^{tree}")
	for _, rev := range []string{"nope", "", tree, "main:missing"} {
		if id, err := r.ResolveCommit(ctx, rev); err == nil {
			t.Errorf("ResolveCommit(%q) = %q, want an error", rev, id)
		}
	}
}

func TestWalkNotOnRefs(t *testing.T) {
	root, a := newRepo(t)
	ctx := context.Background()
	wt := filepath.Join(filepath.Dir(root), "detached")
	git(t, root, "worktree", "add", "-q", "--detach", wt)
	d1 := commit(t, wt, "lost 1")
	d2 := commit(t, wt, "lost 2")
	r := open(t, root)

	cs, err := r.WalkNotOnRefs(ctx, []string{d2})
	if err != nil {
		t.Fatal(err)
	}
	want := []gitcmd.Commit{{OID: d2, Parents: []string{d1}}, {OID: d1, Parents: []string{a}}}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("WalkNotOnRefs(detached HEAD) = %+v, want %+v", cs, want)
	}

	cs, err = r.WalkNotOnRefs(ctx, []string{a})
	if err != nil || len(cs) != 0 {
		t.Errorf("WalkNotOnRefs(main's commit) = %v, %v; want none", commitIDs(cs), err)
	}
	if cs, err := r.WalkNotOnRefs(ctx, nil); err != nil || cs != nil {
		t.Errorf("WalkNotOnRefs(nil) = %v, %v", cs, err)
	}

	// Each kind of ref protects the commits.
	for _, ref := range []string{"refs/tags/keep", "refs/remotes/origin/keep", "refs/heads/keep"} {
		t.Run(ref, func(t *testing.T) {
			git(t, root, "update-ref", ref, d1)
			cs, err := r.WalkNotOnRefs(ctx, []string{d2})
			if err != nil {
				t.Fatal(err)
			}
			if got := commitIDs(cs); !reflect.DeepEqual(got, []string{d2}) {
				t.Errorf("with %s at %s: %v, want only %s", ref, d1, got, d2)
			}
			git(t, root, "update-ref", "-d", ref)
		})
	}
	// HEAD of the worktree itself is not a branch: it protects nothing.
	cs, _ = open(t, wt).WalkNotOnRefs(ctx, []string{"HEAD"})
	if len(cs) != 2 {
		t.Errorf("from the detached worktree: %v, want 2 commits", commitIDs(cs))
	}
}

func TestParseWalk(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	out := []byte(c + " " + a + " " + b + "\n" + b + " " + a + "\n" + a + "\n")
	want := []gitcmd.Commit{{OID: c, Parents: []string{a, b}}, {OID: b, Parents: []string{a}}, {OID: a}}
	got := gitcmd.ParseWalk(out)
	for i := range got {
		if len(got[i].Parents) == 0 {
			got[i].Parents = nil // a root commit: nil or empty are both fine
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseWalk = %+v, want %+v", got, want)
	}
	if got := gitcmd.ParseWalk(nil); len(got) != 0 {
		t.Errorf("ParseWalk(nil) = %v", got)
	}
	if got := gitcmd.ParseWalk([]byte("\n\n" + a + "\r\n")); len(got) != 1 || got[0].OID != a {
		t.Errorf("ParseWalk(blank lines, CRLF) = %v", got)
	}
}

func TestReadBlob(t *testing.T) {
	root, _ := newRepo(t)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(root, "specs", "x1y2z3"), 0o755); err != nil {
		t.Fatal(err)
	}
	content := "# Plan\r\nRun ID: x1y2z3\n\x00binary-ish"
	if err := os.WriteFile(filepath.Join(root, "specs", "x1y2z3", "plan.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "plan")
	// Change the working copy: ReadBlob reads the commit, not the file.
	os.WriteFile(filepath.Join(root, "specs", "x1y2z3", "plan.md"), []byte("changed"), 0o644)
	r := open(t, root)
	got, err := r.ReadBlob(ctx, "HEAD", "specs/x1y2z3/plan.md")
	if err != nil || string(got) != content {
		t.Errorf("ReadBlob = %q, %v; want %q", got, err, content)
	}
	if _, err := r.ReadBlob(ctx, "HEAD", "specs/x1y2z3/missing.md"); err == nil {
		t.Errorf("ReadBlob of a missing path succeeded")
	}
	if _, err := r.ReadBlob(ctx, "HEAD", "specs/x1y2z3"); err == nil {
		t.Errorf("ReadBlob of a directory succeeded")
	}
}

// Fuzz targets: the parsers read git's output and must never panic,
// whatever the bytes.

func FuzzParseRefs(f *testing.F) {
	h := strings.Repeat("a", 40)
	f.Add([]byte("refs/heads/a\x00" + h + "\x00commit\x00\x001700000000\x00\n"))
	f.Add([]byte("refs/remotes/origin/HEAD\x00" + h + "\x00commit\x00refs/remotes/origin/main\x001700000001\x00\nrefs/tags/v1\x00" + h + "\x00tag\x00\x00\x00\n"))
	f.Add([]byte("refs/heads/a\x00abc\x00\n"))
	f.Add([]byte("\x00\n\x00\n"))
	f.Add([]byte("a\x00b\x00c\x00d\x00-99999999999999999999\x00\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, out []byte) {
		refs, err := gitcmd.ParseRefs(out)
		if err != nil {
			if refs != nil {
				t.Errorf("refs %v returned with error %v", refs, err)
			}
			return
		}
		for _, r := range refs {
			for _, s := range []string{r.Name, r.OID, r.Type, r.Symref} {
				if strings.Contains(s, "\x00") {
					t.Errorf("field %q holds a NUL", s)
				}
			}
		}
	})
}

func FuzzParseWalk(f *testing.F) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	f.Add([]byte(c + " " + a + " " + b + "\n" + b + " " + a + "\n" + a + "\n"))
	f.Add([]byte("\n\n" + a + "\r\n"))
	f.Add([]byte(" \t\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, c := range gitcmd.ParseWalk(out) {
			if c.OID == "" || strings.ContainsAny(c.OID, " \n") {
				t.Errorf("bad commit id %q", c.OID)
			}
			for _, p := range c.Parents {
				if p == "" || strings.ContainsAny(p, " \n") {
					t.Errorf("bad parent id %q", p)
				}
			}
		}
	})
}
