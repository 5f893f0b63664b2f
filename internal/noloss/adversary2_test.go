package noloss

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Regression tests for what a second adversary found. Each builds the
// smallest repository that showed the problem and checks the behaviour the
// promise asks for.

// gitEnv runs git in dir with extra environment and fails the test when it
// fails: fixture steps that must see the same configuration as the clean.
func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	r := testbin.Run(dir, env, "git", args...)
	if r.Code != 0 {
		t.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return strings.TrimSpace(r.Stdout)
}

// restoreEnv is restore with extra environment.
func restoreEnv(t *testing.T, repo string, env []string, what string) {
	t.Helper()
	if r := testbin.Run(repo, env, "git", "taskclean", "--run", run, "--restore", what); r.Code != 0 {
		t.Fatalf("--restore %s: exit %d\nstdout: %s\nstderr: %s", what, r.Code, r.Stdout, r.Stderr)
	}
}

// branchExists says whether refs/heads/name exists in repo.
func branchExists(repo, name string) bool {
	return testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/"+name).Code == 0
}

// A conversion configured outside the repository's own config (a global
// attributes file, a per-worktree core.autocrlf) changes what git stores
// for a file: the save must still hold the bytes on disk.
func TestAdversary2OutsideConversion(t *testing.T) {
	t.Parallel()
	t.Run("global-attributes", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		xdg := filepath.Join(realTemp(t), "xdg")
		testbin.WriteFile(t, filepath.Join(xdg, "git", "attributes"), "*.ipynb filter=strip\n")
		env := []string{"XDG_CONFIG_HOME=" + xdg}
		git(t, repo, "config", "filter.strip.clean", "sed /OUTPUT/d")
		git(t, repo, "config", "filter.strip.smudge", "cat")
		wt := addWorktree(t, repo, "2.2")
		raw := []byte("cell 1\nOUTPUT: precious result 42\n")
		testbin.WriteFile(t, filepath.Join(wt, "nb.ipynb"), string(raw))
		gitEnv(t, wt, env, "add", "nb.ipynb")
		gitEnv(t, wt, env, "commit", "-q", "-m", "notebook")
		if blob := gitEnv(t, wt, env, "rev-parse", "HEAD:nb.ipynb"); blob == blobID(raw) {
			t.Fatal("fixture: the global attributes file did not apply: the commit holds the raw notebook")
		}
		backdate(t, wt)
		want := treeState(t, wt)
		snap := snapshotForLoss(t, repo)

		doc := cleanOK(t, repo, env, "--task", "2.2")
		requireRemoved(t, doc, wt)
		if id := blobID(raw); !reachable(t, repo, id) {
			t.Errorf("the raw notebook (blob %s) is reachable from no ref\nactions:\n%s", id, doc)
		}
		assertNoLoss(t, snap, repo)
		if t.Failed() {
			return
		}
		if r := testbin.Run(repo, env, "git", "taskclean", "--run", run, "--undo"); r.Code != 0 {
			t.Fatalf("--undo: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		restoreEnv(t, repo, env, "2.2")
		requireBytes(t, filepath.Join(wt, "nb.ipynb"), raw)
		if got := treeState(t, wt); got != want {
			t.Errorf("files differ after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
		}
	})
	t.Run("worktree-config-autocrlf", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		git(t, repo, "config", "extensions.worktreeConfig", "true")
		wt := addWorktree(t, repo, "2.2")
		git(t, wt, "config", "--worktree", "core.autocrlf", "input")
		raw := []byte("line1\r\nline2\r\n")
		testbin.WriteFile(t, filepath.Join(wt, "crlf.txt"), string(raw))
		git(t, wt, "add", "crlf.txt")
		git(t, wt, "commit", "-q", "-m", "crlf")
		if blob := git(t, wt, "rev-parse", "HEAD:crlf.txt"); blob == blobID(raw) {
			t.Fatal("fixture: core.autocrlf=input in config.worktree did not apply: the commit holds the CRs")
		}
		backdate(t, wt)
		snap := snapshotForLoss(t, repo)

		doc := cleanOK(t, repo, nil, "--task", "2.2")
		requireRemoved(t, doc, wt)
		if id := blobID(raw); !reachable(t, repo, id) {
			t.Errorf("crlf.txt with its CRs (blob %s) is reachable from no ref\nactions:\n%s", id, doc)
		}
		assertNoLoss(t, snap, repo)
	})
}

// Two worktrees whose folders have the same name (one under .worktrees/,
// one elsewhere) must not share a save: one holds a symbolic link d to a
// folder outside every worktree, the other a real d/f.txt that its own
// .gitattributes converts. Each --restore gives back that worktree's own
// files, ignored ones included, and writes nothing through the link.
func TestAdversary2SameFolderName(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	// Beside the repository, so that the other worktree's path sorts
	// first: the clean then names its save before this one's.
	tmp := filepath.Dir(repo)
	appendFile(t, filepath.Join(repo, ".git", "info", "exclude"), "*.secret\n")
	outside := filepath.Join(tmp, "outside")
	testbin.WriteFile(t, filepath.Join(outside, "f.txt"), "USER PRECIOUS FILE\n")
	outsideBefore := dirState(t, outside)

	wt := addWorktree(t, repo, "2.2")
	other := filepath.Join(tmp, "else", filepath.Base(wt))
	git(t, repo, "worktree", "add", "-q", other, "-b", br21, "main")
	if err := os.Symlink(outside, filepath.Join(other, "d")); err != nil {
		t.Fatal(err)
	}
	testbin.WriteFile(t, filepath.Join(other, "e.txt"), "work of the other\n")
	testbin.WriteFile(t, filepath.Join(other, "own.secret"), "secret of the other\n")
	testbin.WriteFile(t, filepath.Join(wt, "d", "f.txt"), "from the .worktrees one\r\n")
	testbin.WriteFile(t, filepath.Join(wt, ".gitattributes"), "d/f.txt text eol=lf\n")
	testbin.WriteFile(t, filepath.Join(wt, "own.secret"), "secret of the .worktrees one\n")
	backdate(t, wt)
	backdate(t, other)
	want := map[string]string{wt: treeState(t, wt), other: treeState(t, other)}
	snap := snapshotForLoss(t, repo)

	// The other is outside the worktree folder: only a clean that names
	// its task removes it.
	doc := cleanOK(t, repo, nil, "--task", "2.1", "--task", "2.2")
	requireRemoved(t, doc, wt)
	requireRemoved(t, doc, other)
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	// The one with the link first: a restore that mixed up the saves would
	// write the other's d/f.txt through it.
	for _, p := range []string{other, wt} {
		restore(t, repo, p)
		if got := dirState(t, outside); got != outsideBefore {
			t.Errorf("--restore %s wrote outside every worktree, in %s:\nbefore:\n%s\nafter:\n%s", p, outside, outsideBefore, got)
		}
	}
	for _, p := range []string{other, wt} {
		if got := treeState(t, p); got != want[p] {
			t.Errorf("%s: files differ after --restore:\nbefore:\n%s\nafter:\n%s", p, want[p], got)
		}
	}
}

// File names that git quotes or that a line-based list cannot carry, in a
// worktree where a conversion applies (core.autocrlf=true): the worktree
// goes, and each file comes back with its own bytes.
func TestAdversary2QuotedNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		// "a.txt" with its quote characters is what git prints for a.txt
		// when it quotes a name.
		{"quote-chars", map[string]string{"plain.txt": "A\r\n", `"a.txt"`: "real-quoted\n", "a.txt": "decoy a\n"}},
		{"newline", map[string]string{"n\nl.txt": "x\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			git(t, repo, "config", "core.autocrlf", "true")
			wt := addWorktree(t, repo, "2.2")
			for name, data := range tc.files {
				testbin.WriteFile(t, filepath.Join(wt, name), data)
			}
			backdate(t, wt)
			want := treeState(t, wt)
			snap := snapshotForLoss(t, repo)

			doc := cleanOK(t, repo, nil)
			requireRemoved(t, doc, wt)
			assertNoLoss(t, snap, repo)
			if t.Failed() {
				return
			}
			restore(t, repo, "2.2")
			for name, data := range tc.files {
				requireBytes(t, filepath.Join(wt, name), []byte(data))
			}
			if got := treeState(t, wt); got != want {
				t.Errorf("files differ after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
			}
		})
	}
}

// A clean killed right after it moved a worktree aside; then a process
// still inside appends to a file there, and an agent makes a new folder at
// the worktree's path. Reruns must lose neither, and must say where the
// folder aside is.
func TestAdversary2AsideAndRecreated(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "aside")
	backdate(t, wt)
	aside := wt + ".taskclean-removing"
	snap := snapshotForLoss(t, repo)
	snap.extra = append(snap.extra, aside)

	if r, doc := clean(t, repo, []string{"GIT_TASKCLEAN_CRASH_AFTER=1"}); r.Code != 99 {
		t.Fatalf("GIT_TASKCLEAN_CRASH_AFTER=1: exit %d, want 99\n%s", r.Code, printed(r, doc))
	}
	if !testbin.Exists(aside) || testbin.Exists(wt) {
		t.Fatalf("fixture: after the first change %s should be aside at %s (aside there: %v, still at its path: %v)", wt, aside, testbin.Exists(aside), testbin.Exists(wt))
	}
	const rel = "untracked-aside.txt"
	late := "untracked in aside\nwritten after the crash by a process inside\n"
	appendFile(t, filepath.Join(aside, rel), "written after the crash by a process inside\n")
	agent := "the agent's new work\n"
	testbin.WriteFile(t, filepath.Join(wt, "agent.txt"), agent)
	backdate(t, wt)
	backdate(t, aside)
	snap.expect(aside, rel, []byte(late))
	snap.expect(wt, "agent.txt", []byte(agent))

	for i := 1; i <= 2; i++ {
		r, doc := clean(t, repo, nil)
		if r.Code != 0 {
			t.Errorf("rerun %d: exit %d, want 0\n%s", i, r.Code, printed(r, doc))
		}
		named := false
		for _, a := range doc.Actions {
			if strings.Contains(a.Path, aside) || strings.Contains(a.Reason, aside) {
				named = true
			}
		}
		if !named {
			t.Errorf("rerun %d: no action names the folder left aside, %s\n%s", i, aside, printed(r, doc))
		}
		if got, err := os.ReadFile(filepath.Join(aside, rel)); (err != nil || string(got) != late) && !reachable(t, repo, blobID([]byte(late))) {
			t.Errorf("rerun %d: the bytes appended in %s are neither there (%v) nor reachable", i, aside, err)
		}
		assertNoLoss(t, snap, repo)
	}
}

// A stale transaction record of this run names packed-refs.lock; the lock
// there now was taken a minute after the record's start by another git:
// the rerun must not remove it.
func TestAdversary2ForeignLockAfterStaleRecord(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "stale-record")
	git(t, repo, "pack-refs", "--all")
	backdate(t, wt)
	common := filepath.Join(repo, ".git")
	lock := filepath.Join(common, "packed-refs.lock")
	record := fmt.Sprintf("start %d\nlock - %s\n", time.Now().Add(-time.Minute).UnixNano(), strconv.Quote(lock))
	testbin.WriteFile(t, filepath.Join(common, "taskclean-"+run+".txn"), record)
	testbin.WriteFile(t, lock, "")
	snap := snapshotForLoss(t, repo)

	r, doc := clean(t, repo, nil, "--task", "2.2")
	if !testbin.Exists(lock) {
		t.Errorf("the foreign %s was removed (exit %d)\n%s", lock, r.Code, printed(r, doc))
	}
	switch {
	case r.Code == 0:
	case r.Code == 2 || r.Code == 3:
		if !strings.Contains(r.Stderr, "packed-refs.lock") {
			t.Errorf("exit %d without naming the lock that stopped it:\n%s", r.Code, r.Stderr)
		}
	default:
		t.Errorf("exit %d, want 0, 2 or 3\n%s", r.Code, printed(r, doc))
	}
	os.Remove(lock)
	assertNoLoss(t, snap, repo)
}

// A worktree whose admin entry's commondir names another repository (a
// clone with the same objects) is kept: git run there would write into
// the clone. The run's other stale worktree is still cleaned.
func TestAdversary2ForeignCommondir(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	odd, other := addWorktree(t, repo, "2.1"), addWorktree(t, repo, "2.2")
	testbin.WriteFile(t, filepath.Join(odd, "work.txt"), "work\n")
	makeDirty(t, other, "other")
	clone := filepath.Join(realTemp(t), "clone")
	git(t, "", "clone", "-q", repo, clone)
	admin := git(t, odd, "rev-parse", "--absolute-git-dir")
	testbin.WriteFile(t, filepath.Join(admin, "commondir"), filepath.Join(clone, ".git")+"\n")
	backdate(t, odd)
	backdate(t, other)
	objects := filepath.Join(clone, ".git", "objects")
	before := dirState(t, objects)
	snap := snapshotForLoss(t, repo)

	r, doc := clean(t, repo, nil)
	if r.Code != 0 {
		t.Errorf("exit %d, want 0\n%s", r.Code, printed(r, doc))
	}
	requireSkip(t, doc, odd, "commondir")
	requireRemoved(t, doc, other)
	if after := dirState(t, objects); after != before {
		t.Errorf("the clean wrote into %s:\nbefore:\n%s\nafter:\n%s", objects, before, after)
	}
	assertNoLoss(t, snap, repo)
}

// ownCommits gives task 2.2's branch three commits of its own, made in a
// worktree that is then removed: a finished task whose branch is all that
// is left of it.
func ownCommits(t *testing.T, repo string) {
	t.Helper()
	wt := addWorktree(t, repo, "2.2")
	for i := 1; i <= 3; i++ {
		commitFile(t, wt, fmt.Sprintf("f%d.txt", i), fmt.Sprintf("%d\n", i))
	}
	git(t, repo, "worktree", "remove", wt)
}

// refuses checks that `--task 2.2` exits 2 with one error line, changes no
// ref or worktree, and leaves the task's branch.
func refuses(t *testing.T, repo string) {
	t.Helper()
	refs := refState(t, repo)
	r, doc := clean(t, repo, nil, "--task", "2.2")
	if r.Code != 2 {
		t.Errorf("--task 2.2: exit %d, want 2 (a refusal)\n%s", r.Code, printed(r, doc))
	} else if n := strings.Count(r.Stderr, "error:"); n != 1 {
		t.Errorf("a refusal prints one error: line, got %d:\n%s", n, r.Stderr)
	}
	if !branchExists(repo, br22) {
		t.Errorf("branch %s was deleted", br22)
	}
	if after := refState(t, repo); after != refs {
		t.Errorf("the refusal changed refs or worktrees:\nbefore:\n%s\nafter:\n%s", refs, after)
	}
}

// The main worktree bisects from the task's branch, and a merge is in
// progress on top: the bisect still holds the branch (bisect reset goes
// back to it), so --task refuses to delete it.
func TestAdversary2BisectAndMerge(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	ownCommits(t, repo)
	git(t, repo, "checkout", "-q", br22)
	git(t, repo, "bisect", "start")
	git(t, repo, "bisect", "bad")
	git(t, repo, "bisect", "good", "main")
	// A commit that is no ancestor of any bisect step, so the merge stops
	// with MERGE_HEAD whatever step the bisect is at.
	side := git(t, repo, "commit-tree", "main^{tree}", "-p", "main", "-m", "side")
	git(t, repo, "merge", "-q", "--no-ff", "--no-commit", side)
	requireState(t, repo, "BISECT_START")
	requireState(t, repo, "MERGE_HEAD")

	refuses(t, repo)
}

// A rebase --update-refs in another worktree will move the task's branch
// when it finishes: --task refuses to delete it.
func TestAdversary2UpdateRefs(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"main", "linked"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			ownCommits(t, repo)
			git(t, repo, "branch", "stack", br22)
			dir := repo
			if where == "linked" {
				dir = filepath.Join(realTemp(t), "stack")
				git(t, repo, "worktree", "add", "-q", dir, "stack")
			} else {
				git(t, repo, "checkout", "-q", "stack")
			}
			commitFile(t, dir, "s.txt", "on the stack\n")
			env := []string{"GIT_SEQUENCE_EDITOR=sed -i.orig 1s/^pick/edit/"}
			if r := testbin.Run(dir, env, "git", "rebase", "-q", "-i", "--update-refs", "main"); r.Code != 0 {
				t.Fatalf("rebase -i --update-refs: %s%s", r.Stdout, r.Stderr)
			}
			requireState(t, dir, "rebase-merge/update-refs")
			gd := git(t, dir, "rev-parse", "--absolute-git-dir")
			if data, _ := os.ReadFile(filepath.Join(gd, "rebase-merge", "update-refs")); !strings.Contains(string(data), "refs/heads/"+br22) {
				t.Fatalf("fixture: update-refs does not list %s:\n%s", br22, data)
			}

			refuses(t, repo)
		})
	}
}

// --restore while the task's branch is being rebased in the main worktree:
// the branch is taken, so the worktree comes back detached at its saved
// HEAD, with its files.
func TestAdversary2RestoreWhileRebased(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	work := []byte("work\n")
	testbin.WriteFile(t, filepath.Join(wt, "w.txt"), string(work))
	backdate(t, wt)
	head := git(t, wt, "rev-parse", "HEAD")
	requireRemoved(t, cleanOK(t, repo, nil), wt)

	git(t, repo, "checkout", "-q", br22)
	env := []string{"GIT_SEQUENCE_EDITOR=sed -i.orig 1s/^pick/edit/"}
	if r := testbin.Run(repo, env, "git", "rebase", "-q", "-i", "HEAD~2"); r.Code != 0 {
		t.Fatalf("rebase -i: %s%s", r.Stdout, r.Stderr)
	}
	requireState(t, repo, "rebase-merge")

	restore(t, repo, "2.2")
	if r := testbin.Run(wt, nil, "git", "symbolic-ref", "-q", "HEAD"); r.Code == 0 {
		t.Errorf("the restored worktree is on %s, which the main worktree is rebasing; want it detached", strings.TrimSpace(r.Stdout))
	}
	if got := git(t, wt, "rev-parse", "HEAD"); got != head {
		t.Errorf("the restored worktree's HEAD is %s, want the saved %s", got, head)
	}
	requireBytes(t, filepath.Join(wt, "w.txt"), work)
	requireState(t, repo, "rebase-merge")
}

// Runs x1 and x1-a in one repository: a clean of x1 removes the temporary
// folders a dead clean of x1 left, and never one of run x1-a (its clean may
// be live). The names follow the product's scheme: "taskclean-tmp-",
// the run, "@", and os.MkdirTemp's random digits.
func TestAdversary2TempFolderOfOtherRun(t *testing.T) {
	t.Parallel()
	repo := testbin.NewRun(t, filepath.Join(realTemp(t), "repo"), "x1")
	testbin.WriteFile(t, filepath.Join(repo, "specs", "x1-a", "plan.md"), testbin.SevenTaskPlan("x1-a"))
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "plan of run x1-a")
	// The new commit is part of both runs' base, so a task branch made
	// from main has no commit of its own.
	git(t, repo, "branch", "-f", "x1-main", "main")
	git(t, repo, "branch", "x1-a-main", "main")
	wt := filepath.Join(repo, ".worktrees", "x1-task-2-2")
	git(t, repo, "worktree", "add", "-q", wt, "-b", "x1-task-2-2-product-service", "main")
	testbin.WriteFile(t, filepath.Join(wt, "work.txt"), "work\n")
	backdate(t, wt)
	common := filepath.Join(repo, ".git")
	own := filepath.Join(common, "taskclean-tmp-x1@123456789")
	theirs := filepath.Join(common, "taskclean-tmp-x1-a@987654321")
	testbin.WriteFile(t, filepath.Join(own, "index"), "left by a dead clean of x1\n")
	testbin.WriteFile(t, filepath.Join(theirs, "index"), "in use by a clean of x1-a\n")

	r := testbin.Run(repo, nil, "git", "taskclean", "--run", "x1", "--json")
	if r.Code != 0 {
		t.Fatalf("git taskclean --run x1: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if testbin.Exists(wt) {
		t.Errorf("fixture: the clean of x1 kept its stale worktree %s\n%s", wt, r.Stdout)
	}
	if testbin.Exists(own) {
		t.Errorf("the clean of x1 left %s, a temporary folder of its own run: the name scheme here is not the product's", own)
	}
	if got, err := os.ReadFile(filepath.Join(theirs, "index")); err != nil || string(got) != "in use by a clean of x1-a\n" {
		t.Errorf("the clean of x1 removed or changed %s, run x1-a's temporary folder (%v)", theirs, err)
	}
}
