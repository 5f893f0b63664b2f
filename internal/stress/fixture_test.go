package stress

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

const run = "x1y2z3"

// tmpRoot holds the template and every iteration's copy; testbin.Main
// removes it after the tests.
var tmpRoot string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Options{Setup: func(scratch string) error {
		tmpRoot = scratch
		return nil
	}}))
}

// fixture is one copy of the crashed run: the repository's top and its three
// stale task worktrees.
type fixture struct {
	root string
	wts  []string
}

var (
	tplMu sync.Mutex
	tpl   *fixture
	seq   int
)

// The three stale worktrees of phase 2, by directory name (the name clean
// goes by for a detached HEAD).
var wtNames = []string{run + "-task-2-1", run + "-task-2-2", run + "-task-2-3"}

// newFixture copies the template into a new folder and repairs the copy's
// worktree links (the only absolute paths a repository holds). The template
// was built in a folder that no longer exists, so its links lead nowhere and
// `git worktree repair` cannot mistake the template's entries for the copy's.
// A copy costs cp and one git process against about thirty for a build.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	tplMu.Lock()
	if tpl == nil {
		tpl = buildTemplate(t)
	}
	seq++
	dir := filepath.Join(tmpRoot, "it-"+strconv.Itoa(seq))
	tplMu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: filepath.Join(dir, "repo")}
	if out, err := exec.Command("cp", "-a", tpl.root, f.root).CombinedOutput(); err != nil {
		t.Fatalf("copy the template: %v\n%s", err, out)
	}
	for _, n := range wtNames {
		f.wts = append(f.wts, filepath.Join(f.root, ".worktrees", n))
	}
	testbin.Git(t, f.root, append([]string{"worktree", "repair"}, f.wts...)...)
	got := worktreeList(t, f.root)
	for _, wt := range f.wts {
		if !got[wt] || len(got) != 1+len(f.wts) {
			t.Fatalf("the copy's worktrees were not repaired: %v", got)
		}
	}
	return f
}

// remove deletes one iteration's copy, so that long runs stay small on disk.
func (f *fixture) remove() { os.RemoveAll(filepath.Dir(f.root)) }

// buildTemplate builds the seven-task run: 1.1 and 1.2 finished, and phase 2
// crashed with three worktrees, none with a commit on a task branch (so each
// is incomplete, hence stale), each dirty in every way: a staged new file, an
// unstaged change to a tracked file, untracked files (one in a new folder).
// 2.2 also holds an ignored .env (.gitignore is committed on main before the
// task branches start, so that they stay without commits of their own); 2.3
// is a detached HEAD holding a commit no branch has.
func buildTemplate(t testing.TB) *fixture {
	t.Helper()
	build := filepath.Join(tmpRoot, "build", "repo")
	root := testbin.NewRun(t, build, run)
	testbin.WriteFile(t, filepath.Join(root, ".gitignore"), ".env\n")
	testbin.Git(t, root, "add", ".gitignore")
	testbin.Git(t, root, "commit", "-q", "-m", "Ignore .env")
	testbin.Git(t, root, "branch", "-f", run+"-main", "main")
	b11 := testbin.Finish(t, root, run, "1.1", "create-database-schema", run+"-main")
	b12 := testbin.Finish(t, root, run, "1.2", "install-dependencies", b11)

	slugs := []string{"user-service", "product-service", "order-service"}
	for i, name := range wtNames {
		id := "2." + strconv.Itoa(i+1)
		path := filepath.Join(root, ".worktrees", name)
		if i < 2 {
			testbin.Git(t, root, "worktree", "add", "-q", "-b", run+"-task-2-"+strconv.Itoa(i+1)+"-"+slugs[i], path, b12)
		} else {
			testbin.Git(t, root, "worktree", "add", "-q", "--detach", path, b12)
			testbin.WriteFile(t, filepath.Join(path, "wip/order.go"), "package wip // task 2.3, committed on a detached HEAD\n")
			testbin.Git(t, path, "add", "wip/order.go")
			testbin.Git(t, path, "commit", "-q", "-m", "wip: order service")
		}
		testbin.WriteFile(t, filepath.Join(path, "src/"+slugs[i]+".go"), "package src // task "+id+", staged\n")
		testbin.Git(t, path, "add", "src/"+slugs[i]+".go")
		testbin.WriteFile(t, filepath.Join(path, "task-1-1.txt"), "task 1.1\nchanged by task "+id+", not staged\n")
		testbin.WriteFile(t, filepath.Join(path, "NOTES.md"), "notes of task "+id+"\n")
		testbin.WriteFile(t, filepath.Join(path, "scratch/todo.txt"), "todo of task "+id+"\n")
		if i == 1 {
			testbin.WriteFile(t, filepath.Join(path, ".env"), "API_KEY=secret-of-task-"+id+"\n")
		}
	}
	if st := testbin.Git(t, filepath.Join(root, ".worktrees", wtNames[1]), "status", "--porcelain", "--ignored"); !strings.Contains(st, "!! .env") {
		t.Fatalf("the fixture's .env is not ignored:\n%s", st)
	}
	// Moved away from where it was built: see newFixture.
	dst := filepath.Join(tmpRoot, "template")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(build, filepath.Join(dst, "repo")); err != nil {
		t.Fatal(err)
	}
	return &fixture{root: filepath.Join(dst, "repo")}
}

// worktreeList returns the paths git has registered as worktrees.
func worktreeList(t testing.TB, root string) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, l := range strings.Split(testbin.Git(t, root, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			m[p] = true
		}
	}
	return m
}

// fileState is one file of a worktree as it was before a clean.
type fileState struct {
	wt, rel string
	data    []byte
	oid     string
}

// snapshot is what must survive a clean: every file in every worktree (the
// main one too), and every commit any worktree can reach, reflogs included.
type snapshot struct {
	files   []fileState
	commits []string
}

func takeSnapshot(t testing.TB, root string) snapshot {
	t.Helper()
	var s snapshot
	var paths []string
	wts := worktreeList(t, root)
	for wt := range wts {
		err := filepath.WalkDir(wt, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// .git is git's admin data; .worktrees/ of the main worktree
			// holds the other worktrees, walked on their own.
			if d.Name() == ".git" || (wt == root && p == filepath.Join(root, ".worktrees")) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(wt, p)
			s.files = append(s.files, fileState{wt: wt, rel: rel, data: b})
			paths = append(paths, p)
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", wt, err)
		}
		s.commits = append(s.commits, strings.Fields(testbin.Git(t, wt, "rev-list", "--all", "--reflog"))...)
	}
	// Bytes as git would store them, whatever the object format.
	cmd := exec.Command("git", "hash-object", "--no-filters", "--stdin-paths")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, err := cmd.Output()
	oids := strings.Fields(string(out))
	if err != nil || len(oids) != len(s.files) {
		t.Fatalf("hash-object: %v, %d ids for %d files", err, len(oids), len(s.files))
	}
	for i := range s.files {
		s.files[i].oid = oids[i]
	}
	s.commits = uniq(s.commits)
	return s
}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// reachable is what the repository holds after a clean: the worktrees still
// registered, and the objects and commits reachable from its refs (saves,
// branches, every worktree's HEAD).
type reachable struct {
	wts     map[string]bool
	objects map[string]bool
	commits map[string]bool
}

func readReachable(t testing.TB, root string) reachable {
	t.Helper()
	r := reachable{wts: worktreeList(t, root), objects: map[string]bool{}, commits: map[string]bool{}}
	for _, l := range strings.Split(testbin.Git(t, root, "rev-list", "--objects", "--all"), "\n") {
		if oid, _, _ := strings.Cut(l, " "); oid != "" {
			r.objects[oid] = true
		}
	}
	for _, c := range strings.Fields(testbin.Git(t, root, "rev-list", "--all")) {
		r.commits[c] = true
	}
	return r
}

// inKept reports whether a worktree that is still registered holds data at
// rel.
func (r reachable) inKept(wt, rel string, data []byte) bool {
	if !r.wts[wt] {
		return false
	}
	b, err := os.ReadFile(filepath.Join(wt, rel))
	return err == nil && bytes.Equal(b, data)
}

// losses lists what existed before and is now neither in a kept worktree nor
// reachable.
func (r reachable) losses(before snapshot) []string {
	var out []string
	for _, f := range before.files {
		if !r.inKept(f.wt, f.rel, f.data) && !r.objects[f.oid] {
			out = append(out, fmt.Sprintf("file %s (blob %s)", filepath.Join(f.wt, f.rel), f.oid))
		}
	}
	for _, c := range before.commits {
		if !r.commits[c] {
			out = append(out, "commit "+c)
		}
	}
	return out
}

// leftovers lists what a clean must not leave behind once it has finished:
// git ref locks, its own temporary entries in the common dir, and worktrees
// renamed aside for removal.
func leftovers(t testing.TB, root string) []string {
	t.Helper()
	common := filepath.Join(root, ".git")
	var out []string
	filepath.WalkDir(filepath.Join(common, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".lock") {
			out = append(out, p)
		}
		return nil
	})
	if _, err := os.Lstat(filepath.Join(common, "packed-refs.lock")); err == nil {
		out = append(out, filepath.Join(common, "packed-refs.lock"))
	}
	ents, err := os.ReadDir(common)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "taskclean-") && e.Name() != "taskclean-"+run+".lock" {
			out = append(out, filepath.Join(common, e.Name()))
		}
	}
	aside, _ := filepath.Glob(filepath.Join(root, ".worktrees", "*.taskclean-removing"))
	return append(out, aside...)
}
