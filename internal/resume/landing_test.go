package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// addedNear answers what `git log -1 --diff-filter=A <tip> -- <plan>`
// answers wherever it answers at all, and leaves to git the histories whose
// answer it cannot read as git would: a merge below the tip, a submodule
// where the plan is now, more commits than its limit.
func TestAddedNearEqualsGit(t *testing.T) {
	testbin.IsolateGit(t)
	const plan = "specs/r1/plan.md"
	type step func(t *testing.T, dir string)
	write := func(name, body string) step {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			testbin.Git(t, dir, "add", "-A")
			testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "write "+name+" "+strconv.Quote(body))
		}
	}
	remove := func(name string) step {
		return func(t *testing.T, dir string) {
			testbin.Git(t, dir, "rm", "-q", "-r", name)
			testbin.Git(t, dir, "commit", "-q", "-m", "remove "+name)
		}
	}
	other := func(n int) step {
		return func(t *testing.T, dir string) {
			for i := 0; i < n; i++ {
				write("src/f.txt", "v"+strconv.Itoa(i))(t, dir)
			}
		}
	}
	// A submodule entry at the plan's path: a commit id in the tree.
	gitlink := func(t *testing.T, dir string) {
		oid := testbin.Git(t, dir, "rev-parse", "HEAD")
		testbin.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+oid+","+plan)
		testbin.Git(t, dir, "commit", "-q", "-m", "submodule at the plan's path")
		testbin.Git(t, dir, "rm", "-q", "--cached", plan)
		testbin.Git(t, dir, "commit", "-q", "-m", "submodule gone")
	}
	// A side branch merged below the tip, the plan already on both sides.
	merge := func(t *testing.T, dir string) {
		testbin.Git(t, dir, "checkout", "-q", "-b", "side")
		write("side.txt", "side")(t, dir)
		testbin.Git(t, dir, "checkout", "-q", "main")
		write("main.txt", "main")(t, dir)
		testbin.Git(t, dir, "merge", "-q", "--no-edit", "side")
	}
	for _, c := range []struct {
		name  string
		steps []step
		ok    bool // answered without git
	}{
		{"the tip adds it", []step{other(1), write(plan, "a")}, true},
		{"the root commit adds it", []step{write(plan, "a"), other(2)}, true},
		{"added, then changed and other work", []step{other(1), write(plan, "a"), other(2), write(plan, "b"), other(1)}, true},
		{"added, deleted, added again: the newest", []step{write(plan, "a"), other(1), remove(plan), other(1), write(plan, "b"), other(1)}, true},
		{"a directory where the file is now", []step{write(plan+"/x", "d"), remove(plan), write(plan, "a"), other(1)}, true},
		{"a directory turned file in one commit", []step{write(plan+"/x", "d"), func(t *testing.T, dir string) {
			testbin.Git(t, dir, "rm", "-q", "-r", "--cached", plan)
			if err := os.RemoveAll(filepath.Join(dir, plan)); err != nil {
				t.Fatal(err)
			}
		}, write(plan, "a"), other(1)}, true},
		{"a submodule there before, gone, then the file", []step{other(1), gitlink, write(plan, "a"), other(1)}, true},
		{"a merge below the tip", []step{write(plan, "a"), merge, other(1)}, false},
		{"past the limit", []step{write(plan, "a"), other(addedNearLimit + 1)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			testbin.Git(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
			for _, s := range c.steps {
				s(t, dir)
			}
			want := testbin.Git(t, dir, "log", "-1", "--format=%H", "--diff-filter=A", "HEAD", "--", plan)
			ctx := context.Background()
			repo, objs := openObjects(t, dir)
			tip := testbin.Git(t, dir, "rev-parse", "HEAD")
			got, ok, err := addedNear(objs, tip, plan, addedNearLimit)
			if err != nil {
				t.Fatal(err)
			}
			if ok != c.ok {
				t.Fatalf("answered without git: %v, want %v", ok, c.ok)
			}
			if ok && got != want {
				t.Errorf("added in %s, git says %s", got, want)
			}
			// Whatever answers, runStart's start is git's.
			start, _, fromPlan, err := runStart(ctx, repo, objs, plan, tip, nil, addedNearLimit, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !fromPlan || start != want {
				t.Errorf("runStart: %s (from the plan: %v), want %s", start, fromPlan, want)
			}
			// The plan's history, from git (stopped at the addition) and
			// in-process, is git's whole log of the file back to it.
			fromGit, err := repo.PathChanges(ctx, tip, plan)
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, c := range fromGit {
				listed = append(listed, c.Commit+" "+c.Blob)
			}
			all := strings.Fields(testbin.Git(t, dir, "log", "--format=%H", "HEAD", "--not", want+"^@", "--", plan))
			if len(fromGit) != len(all) || !fromGit[len(fromGit)-1].Added || fromGit[len(fromGit)-1].Commit != want {
				t.Errorf("PathChanges: %q, want %d commits down to %s", listed, len(all), want)
			}
			for i, c := range fromGit {
				if i < len(all) && (c.Commit != all[i] || c.Blob != testbin.Git(t, dir, "rev-parse", c.Commit+":"+plan)) {
					t.Errorf("PathChanges[%d] = %s %s, want %s and its blob", i, c.Commit, c.Blob, all[i])
				}
			}
			if ok {
				near, _, err := planChangesNear(objs, tip, plan, addedNearLimit)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(near) != fmt.Sprint(fromGit) {
					t.Errorf("in-process %v, git %v", near, fromGit)
				}
			}
		})
	}
}

// A submodule at the plan's path right below a commit that adds the file is
// a type change to git, not an addition: addedNear leaves it to git.
func TestAddedNearSubmoduleBelow(t *testing.T) {
	testbin.IsolateGit(t)
	const plan = "plan.md"
	dir := filepath.Join(t.TempDir(), "repo")
	testbin.Git(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "root")
	oid := testbin.Git(t, dir, "rev-parse", "HEAD")
	testbin.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+oid+","+plan)
	testbin.Git(t, dir, "commit", "-q", "-m", "submodule at the plan's path")
	testbin.Git(t, dir, "rm", "-q", "--cached", plan)
	if err := os.WriteFile(filepath.Join(dir, plan), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	testbin.Git(t, dir, "add", plan)
	testbin.Git(t, dir, "commit", "-q", "-m", "the file where the submodule was")
	testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "more")
	_, objs := openObjects(t, dir)
	if got, ok, err := addedNear(objs, testbin.Git(t, dir, "rev-parse", "HEAD"), plan, addedNearLimit); err != nil || ok {
		t.Errorf("addedNear = %q, %v, %v; want it left to git", got, ok, err)
	}
}

// openObjects opens the repository in dir and a running object reader,
// closed when the test ends.
func openObjects(t *testing.T, dir string) (*gitcmd.Repo, *gitcmd.Objects) {
	t.Helper()
	repo, err := gitcmd.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := repo.ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { objs.Close() })
	return repo, objs
}

// allHoldStart answers from the history in hand whether every branch holds
// the commit that added the plan; where it cannot show it, git is asked.
func TestAllHoldStart(t *testing.T) {
	e := func(oid string, parents ...string) gitcmd.LogEntry {
		return gitcmd.LogEntry{OID: oid, Parents: parents}
	}
	b := func(oid string) branches.Branch { return branches.Branch{Name: "t-" + oid, OID: oid} }
	// The base's commits since start S (S included): S <- a <- m, where m
	// also merges x, a side commit made before S (its parent P is S's).
	landed := []gitcmd.LogEntry{e("m", "a", "x"), e("a", "S"), e("x", "P"), e("S", "P")}
	for _, c := range []struct {
		name string
		walk []gitcmd.LogEntry
		bs   []branches.Branch
		want bool
	}{
		{"left at start", []gitcmd.LogEntry{e("t1", "S")}, []branches.Branch{b("t1")}, true},
		{"left after start", []gitcmd.LogEntry{e("t1", "a"), e("t2", "m")}, []branches.Branch{b("t1"), b("t2")}, true},
		{"a tip on the base, after start", nil, []branches.Branch{b("a")}, true},
		{"left at a side commit made before start", []gitcmd.LogEntry{e("t1", "x")}, []branches.Branch{b("t1")}, false},
		{"left before start", []gitcmd.LogEntry{e("t1", "P")}, []branches.Branch{b("t1")}, false},
		{"a tip the history read does not hold", nil, []branches.Branch{b("zz")}, false},
		{"one of two left before start", []gitcmd.LogEntry{e("t1", "a"), e("t2", "t3"), e("t3", "P")}, []branches.Branch{b("t1"), b("t2")}, false},
	} {
		if got := allHoldStart(c.walk, c.bs, "S", landed); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
