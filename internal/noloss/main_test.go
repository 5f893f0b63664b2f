package noloss

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The run every fixture is made of: the seven-task plan of testbin, phase 1
// finished, phase 2 the current one.
const run = "x1y2z3"

const (
	br21 = "x1y2z3-task-2-1-user-service"
	br22 = "x1y2z3-task-2-2-product-service"
	br23 = "x1y2z3-task-2-3-order-service"
)

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Options{Setup: func(scratch string) error {
		tplRoot = scratch
		return nil
	}}))
}

// ---- fixtures ----

// newRepo makes <tmp>/repo: the seven-task run with base files src/f1.txt,
// src/f2.txt, src/f3.txt committed before the run's base (x1y2z3-main) is
// fixed, so they are no task's own commits, and tasks 1.1 and 1.2 finished.
// Main has three commits (enough to bisect). Each is a copy of one template
// (a repository without worktrees holds no absolute path), which saves the
// two dozen git processes of building it.
func newRepo(t *testing.T) string {
	t.Helper()
	tplOnce.Do(func() {
		dir := filepath.Join(tplRoot, "repo")
		testbin.NewRun(t, dir, run)
		testbin.WriteFile(t, filepath.Join(dir, "src", "f1.txt"), "one\n")
		testbin.WriteFile(t, filepath.Join(dir, "src", "f2.txt"), "two\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "base files")
		testbin.WriteFile(t, filepath.Join(dir, "src", "f3.txt"), "three\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "more base files")
		git(t, dir, "branch", "-f", run+"-main", "main")
		b11 := testbin.Finish(t, dir, run, "1.1", "schema", "main")
		testbin.Finish(t, dir, run, "1.2", "deps", b11)
		tpl = dir
	})
	if tpl == "" {
		t.Fatal("the template repository could not be built")
	}
	dir := filepath.Join(realTemp(t), "repo")
	if r := testbin.Run("", nil, "cp", "-a", tpl, dir); r.Code != 0 {
		t.Fatalf("copy the template: %s", r.Stderr)
	}
	return dir
}

var (
	tplRoot string // testbin.Main's scratch directory, removed after the tests
	tplOnce sync.Once
	tpl     string // set once the template is complete
)

// realTemp is t.TempDir with symbolic links resolved: git prints real paths.
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var taskBranch = map[string]string{"2.1": br21, "2.2": br22, "2.3": br23}

// wtPath is where an orchestrator puts task id's worktree.
func wtPath(repo, id string) string {
	return filepath.Join(repo, ".worktrees", run+"-task-"+strings.ReplaceAll(id, ".", "-"))
}

// addWorktree adds task id's worktree on a new branch at main: the task has
// no commits of its own, so it is not complete and its worktree is stale.
func addWorktree(t *testing.T, repo, id string) string {
	t.Helper()
	p := wtPath(repo, id)
	git(t, repo, "worktree", "add", "-q", p, "-b", taskBranch[id], "main")
	return p
}

// makeDirty leaves work of every kind in wt: an unstaged edit, a staged new
// file, and untracked files; tag makes the bytes unique to this worktree.
func makeDirty(t *testing.T, wt, tag string) {
	t.Helper()
	appendFile(t, filepath.Join(wt, "src", "f1.txt"), "edit of "+tag+"\n")
	testbin.WriteFile(t, filepath.Join(wt, "staged-"+tag+".txt"), "staged in "+tag+"\n")
	git(t, wt, "add", "staged-"+tag+".txt")
	testbin.WriteFile(t, filepath.Join(wt, "untracked-"+tag+".txt"), "untracked in "+tag+"\n")
	testbin.WriteFile(t, filepath.Join(wt, "notes", tag, "todo.md"), "todo of "+tag+"\n")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testbin.Git(t, dir, args...)
}

func appendFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// ---- running git taskclean ----

// clean runs `git taskclean --run x1y2z3 --json args...` in dir and decodes
// what it printed (doc is nil when it printed no JSON document).
func clean(t *testing.T, dir string, env []string, args ...string) (testbin.Result, *testbin.CleanResult) {
	t.Helper()
	r := testbin.Taskclean(dir, env, append([]string{"--run", run, "--json"}, args...)...)
	if !strings.HasPrefix(strings.TrimSpace(r.Stdout), "{") {
		return r, nil
	}
	doc := &testbin.CleanResult{}
	testbin.DecodeJSON(t, r, doc)
	return r, doc
}

// cleanOK is clean that requires exit 0 and a JSON document.
func cleanOK(t *testing.T, dir string, env []string, args ...string) *testbin.CleanResult {
	t.Helper()
	r, doc := clean(t, dir, env, args...)
	if r.Code != 0 || doc == nil {
		t.Fatalf("git taskclean --run %s %s: exit %d, want 0\n%s", run, strings.Join(args, " "), r.Code, printed(r, doc))
	}
	return doc
}

// printed is what a clean printed, for a failure message: its actions
// rather than the whole document, and its stderr.
func printed(r testbin.Result, doc *testbin.CleanResult) string {
	out := "stdout: " + r.Stdout
	if doc != nil {
		out = "actions:\n" + doc.String()
	}
	return out + "\nstderr: " + r.Stderr
}

// requireSkip checks that the clean kept wt, said so with a skip_worktree
// action, and (when keyword is set) gave a reason holding keyword.
func requireSkip(t *testing.T, doc *testbin.CleanResult, wt string, keywords ...string) {
	t.Helper()
	if !testbin.Exists(wt) {
		t.Errorf("worktree %s was removed; it must be kept\nactions:\n%s", wt, doc)
		return
	}
	skips := doc.Find("skip_worktree", wt)
	if len(skips) == 0 {
		t.Errorf("no skip_worktree action for %s\nactions:\n%s", wt, doc)
		return
	}
	if len(keywords) == 0 {
		return
	}
	for _, s := range skips {
		for _, k := range keywords {
			if strings.Contains(strings.ToLower(s.Reason), k) {
				return
			}
		}
	}
	t.Errorf("skip_worktree of %s: reason %q names none of %q", wt, skips[0].Reason, keywords)
}

// requireRemoved checks that wt is gone and a done remove_worktree said so.
func requireRemoved(t *testing.T, doc *testbin.CleanResult, wt string) {
	t.Helper()
	if testbin.Exists(wt) {
		t.Errorf("worktree %s is still there; it must be removed\nactions:\n%s", wt, doc)
	}
	for _, a := range doc.Find("remove_worktree", wt) {
		if a.Done {
			return
		}
	}
	t.Errorf("no done remove_worktree action for %s\nactions:\n%s", wt, doc)
}

// refState is every ref with its value and the worktree list: what a change
// to the repository would show.
func refState(t *testing.T, repo string) string {
	t.Helper()
	refs := git(t, repo, "for-each-ref", "--format=%(refname) %(objectname)")
	wts := git(t, repo, "worktree", "list", "--porcelain")
	return refs + "\n--\n" + wts
}

// treeState is a worktree's files (path and blob id) and git's view of it,
// for comparing before and after.
func treeState(t *testing.T, wt string) string {
	t.Helper()
	files, err := walkTree(wt, worktreeSkip)
	if err != nil {
		t.Fatalf("read %s: %v", wt, err)
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", files[k], k)
	}
	return b.String()
}

// adminState is the files of every worktree's admin entry but those git
// rewrites on its own (index, locks).
func adminState(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	admins, _ := filepath.Glob(filepath.Join(repo, ".git", "worktrees", "*"))
	for _, a := range admins {
		files, err := walkTree(a, adminSkip)
		if err != nil {
			t.Fatalf("read %s: %v", a, err)
		}
		keys := make([]string, 0, len(files))
		for k := range files {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s/%s\n", files[k], filepath.Base(a), k)
		}
	}
	return b.String()
}

// statusV2 is git's full view of a worktree: index ids, modes, untracked and
// ignored files.
func statusV2(t *testing.T, wt string) string {
	t.Helper()
	return git(t, wt, "status", "--porcelain=v2", "--untracked-files=all", "--ignored")
}
