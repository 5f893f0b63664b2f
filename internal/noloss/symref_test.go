package noloss

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Symbolic refs: a name the clean deletes (or a claim, a save) may be an
// alias of a branch of the user's. git's ref updates follow an alias unless
// told not to: deleting the alias would delete the branch it points to,
// with its reflog. Each test makes one such alias and checks that the alias
// goes, as an alias, and that what it points to stays.

const mainAlias = run + "-main"

// makeAlias makes refs/heads/name (deleted first when it exists) a
// symbolic ref to target.
func makeAlias(t *testing.T, repo, name, target string) {
	t.Helper()
	if branchExists(repo, name) {
		git(t, repo, "update-ref", "-d", "refs/heads/"+name)
	}
	git(t, repo, "symbolic-ref", "refs/heads/"+name, target)
}

// symrefOf is what `git symbolic-ref ref` prints, "" when ref is not a
// symbolic ref.
func symrefOf(repo, ref string) string {
	r := testbin.Run(repo, nil, "git", "symbolic-ref", "-q", ref)
	return strings.TrimSpace(r.Stdout)
}

// reflogOf lists the commits ref's reflog names, newest first.
func reflogOf(t *testing.T, repo, ref string) []string {
	t.Helper()
	return strings.Fields(git(t, repo, "log", "-g", "--format=%H", ref, "--"))
}

// reflogOnly makes a commit on branch that only the branch's reflog names
// afterwards: committed there by update-ref (no HEAD is on the branch, so
// no HEAD reflog has it) and reset away.
func reflogOnly(t *testing.T, repo, branch string) string {
	t.Helper()
	ref := "refs/heads/" + branch
	old := git(t, repo, "rev-parse", ref)
	c := git(t, repo, "commit-tree", old+"^{tree}", "-p", old, "-m", "only "+branch+"'s reflog names this")
	git(t, repo, "update-ref", "-m", "commit", ref, c, old)
	git(t, repo, "update-ref", "-m", "reset", ref, old, c)
	return c
}

// requireBranchAt checks that refs/heads/name is a plain branch at oid.
func requireBranchAt(t *testing.T, repo, name, oid string) {
	t.Helper()
	if !branchExists(repo, name) {
		t.Fatalf("branch %s is gone; the clean must leave it alone", name)
	}
	if got := git(t, repo, "rev-parse", "refs/heads/"+name); got != oid {
		t.Errorf("branch %s is at %s, want %s", name, got, oid)
	}
	if s := symrefOf(repo, "refs/heads/"+name); s != "" {
		t.Errorf("branch %s became a symbolic ref to %s", name, s)
	}
}

// requireReflogHas checks that ref's reflog still names commit.
func requireReflogHas(t *testing.T, repo, ref, commit string) {
	t.Helper()
	for _, c := range reflogOf(t, repo, ref) {
		if c == commit {
			return
		}
	}
	t.Errorf("the reflog of %s no longer names %s", ref, commit)
}

// requireAliasGone checks that refs/heads/name no longer exists, in any
// form.
func requireAliasGone(t *testing.T, repo, name string, doc *testbin.CleanResult) {
	t.Helper()
	if branchExists(repo, name) || symrefOf(repo, "refs/heads/"+name) != "" {
		t.Errorf("the alias %s is still there\nactions:\n%s", name, doc)
	}
}

// undoOK runs --undo and requires exit 0.
func undoOK(t *testing.T, repo string, args ...string) testbin.Result {
	t.Helper()
	r := testbin.Taskclean(repo, nil, append([]string{"--run", run, "--undo"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("--undo: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// The run built on main: its base <run>-main is an alias of main. A clean
// of the whole run deletes the alias, never main: main stays where it was
// with its reflog (and a commit only that reflog names), whether main is
// checked out or not, and --undo makes the alias again as a symbolic ref.
func TestSymrefRunMainAlias(t *testing.T) {
	t.Parallel()
	for _, detached := range []bool{true, false} {
		name := "main-checked-out"
		if detached {
			name = "main-not-checked-out"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			makeAlias(t, repo, mainAlias, "refs/heads/main")
			wt := addWorktree(t, repo, "2.1")
			makeDirty(t, wt, "2.1")
			if detached {
				git(t, repo, "switch", "-q", "--detach")
			}
			only := reflogOnly(t, repo, "main")
			mainTip := git(t, repo, "rev-parse", "refs/heads/main")
			snap := snapshotForLoss(t, repo)
			snap.keepReflog("refs/heads/main")

			doc := cleanOK(t, repo, nil, "--all")
			requireRemoved(t, doc, wt)
			requireBranchAt(t, repo, "main", mainTip)
			requireReflogHas(t, repo, "refs/heads/main", only)
			requireAliasGone(t, repo, mainAlias, doc)
			if !detached {
				if head := symrefOf(repo, "HEAD"); head != "refs/heads/main" {
					t.Errorf("the main worktree's HEAD is %q, want refs/heads/main", head)
				}
			}
			assertNoLoss(t, snap, repo)
			if t.Failed() {
				return
			}

			r := undoOK(t, repo)
			if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "refs/heads/main" {
				t.Errorf("after --undo, %s is %q as a symbolic ref, want refs/heads/main\n%s%s", mainAlias, got, r.Stdout, r.Stderr)
			}
			requireBranchAt(t, repo, "main", mainTip)
			// Undone again: the alias is there as it was, nothing moves.
			r = undoOK(t, repo)
			if !strings.Contains(r.Stdout, "already restored") {
				t.Errorf("a second --undo does not say the alias is already restored:\n%s", r.Stdout)
			}
			if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "refs/heads/main" {
				t.Errorf("after a second --undo, %s is %q as a symbolic ref, want refs/heads/main", mainAlias, got)
			}
		})
	}
}

// A worktree that stays with its HEAD on the alias itself (HEAD ->
// <run>-main -> main) holds the alias as it would a branch: the clean
// refuses, and changes nothing. git's worktree list names only main there.
func TestSymrefAliasIsHeadOfAWorktree(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	makeAlias(t, repo, mainAlias, "refs/heads/main")
	other := filepath.Join(filepath.Dir(repo), "other")
	git(t, repo, "worktree", "add", "-q", "--detach", other, "main")
	git(t, other, "symbolic-ref", "HEAD", "refs/heads/"+mainAlias)
	mainTip := git(t, repo, "rev-parse", "refs/heads/main")

	r, doc := clean(t, repo, nil, "--all")
	if r.Code != 2 || !strings.Contains(r.Stderr, mainAlias) || !strings.Contains(r.Stderr, other) {
		t.Fatalf("--all with the alias as HEAD of %s: exit %d, want 2 naming the alias and the worktree\n%s", other, r.Code, printed(r, doc))
	}
	if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "refs/heads/main" {
		t.Errorf("the alias is %q, want it left as a symbolic ref to refs/heads/main", got)
	}
	requireBranchAt(t, repo, "main", mainTip)
	if got := symrefOf(other, "HEAD"); got != "refs/heads/main" { // resolved to the end
		t.Errorf("HEAD of %s resolves to %q, want refs/heads/main", other, got)
	}
}

// A task branch that is an alias of the user's branch feature, checked
// out in a worktree of the user's: deleting the task's branch is not
// refused for it (the alias is not checked out), deletes the alias only,
// and feature stays with its reflog; --undo makes the alias again.
func TestSymrefTaskBranchAlias(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	feature := filepath.Join(filepath.Dir(repo), "feature")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", feature, "main")
	commitFile(t, feature, "feature.txt", "the user's feature\n")
	featureTip := git(t, feature, "rev-parse", "HEAD")
	logBefore := reflogOf(t, repo, "refs/heads/feature")
	makeAlias(t, repo, br21, "refs/heads/feature")
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil, "--task", "2.1")
	requireBranchAt(t, repo, "feature", featureTip)
	if got := reflogOf(t, repo, "refs/heads/feature"); strings.Join(got, " ") != strings.Join(logBefore, " ") {
		t.Errorf("feature's reflog changed: %v, was %v", got, logBefore)
	}
	if got := symrefOf(feature, "HEAD"); got != "refs/heads/feature" {
		t.Errorf("HEAD of %s is %q, want refs/heads/feature", feature, got)
	}
	requireAliasGone(t, repo, br21, doc)
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	undoOK(t, repo)
	if got := symrefOf(repo, "refs/heads/"+br21); got != "refs/heads/feature" {
		t.Errorf("after --undo, %s is %q as a symbolic ref, want refs/heads/feature", br21, got)
	}
	requireBranchAt(t, repo, "feature", featureTip)
}

// --undo never replaces a branch made since under the alias's name: it
// says what is there. And an alias whose target is gone comes back as a
// plain branch at the tip it resolved to.
func TestSymrefUndoNeverReplaces(t *testing.T) {
	t.Parallel()
	t.Run("name-taken", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		makeAlias(t, repo, mainAlias, "refs/heads/main")
		cleanOK(t, repo, nil, "--all")
		b11 := run + "-task-1-1-schema"
		git(t, repo, "branch", mainAlias, "refs/taskclean/"+run+"/"+lastStamp(t, repo)+"/branch/"+b11)
		taken := git(t, repo, "rev-parse", "refs/heads/"+mainAlias)
		r := undoOK(t, repo)
		requireBranchAt(t, repo, mainAlias, taken)
		if !strings.Contains(r.Stdout, mainAlias) || !strings.Contains(r.Stdout, "exists") {
			t.Errorf("--undo does not say %s exists:\n%s", mainAlias, r.Stdout)
		}
	})
	t.Run("target-gone", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		git(t, repo, "branch", "trunk", "main")
		makeAlias(t, repo, mainAlias, "refs/heads/trunk")
		tip := git(t, repo, "rev-parse", "refs/heads/trunk")
		cleanOK(t, repo, nil, "--all")
		git(t, repo, "branch", "-D", "trunk")
		r := undoOK(t, repo)
		requireBranchAt(t, repo, mainAlias, tip)
		if !strings.Contains(r.Stdout, "no longer exists") {
			t.Errorf("--undo does not say the alias's target is gone:\n%s", r.Stdout)
		}
	})
}

// lastStamp is the stamp of the newest saved clean of the run.
func lastStamp(t *testing.T, repo string) string {
	t.Helper()
	refs := strings.Fields(git(t, repo, "for-each-ref", "--format=%(refname)", "refs/taskclean/"+run+"/"))
	last := ""
	for _, r := range refs {
		if s := strings.Split(strings.TrimPrefix(r, "refs/taskclean/"+run+"/"), "/")[0]; s > last {
			last = s
		}
	}
	if last == "" {
		t.Fatal("no saved clean")
	}
	return last
}

// A claim that is an alias of a branch (it reads as a claim without an
// expiry: expired): dropping it, or taking the task over, must replace or
// delete the alias, never move or delete the branch.
func TestSymrefClaimAlias(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (repo, tip string) {
		repo = newRepo(t)
		git(t, repo, "branch", "feature", "main")
		reflogOnly(t, repo, "feature")
		git(t, repo, "symbolic-ref", "refs/taskclaims/"+run+"/2.1", "refs/heads/feature")
		return repo, git(t, repo, "rev-parse", "refs/heads/feature")
	}
	t.Run("dropped-by-clean", func(t *testing.T) {
		t.Parallel()
		repo, tip := setup(t)
		snap := snapshotForLoss(t, repo)
		snap.keepReflog("refs/heads/feature")
		doc := cleanOK(t, repo, nil)
		if len(doc.Find("drop_claim", "")) == 0 {
			t.Fatalf("the expired claim was not dropped\nactions:\n%s", doc)
		}
		requireBranchAt(t, repo, "feature", tip)
		if testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/taskclaims/"+run+"/2.1").Code == 0 {
			t.Errorf("the claim alias is still there\nactions:\n%s", doc)
		}
		assertNoLoss(t, snap, repo)
	})
	t.Run("taken-over", func(t *testing.T) {
		t.Parallel()
		repo, tip := setup(t)
		r := testbin.Taskresume(repo, nil, run, "--claim", "--as", "agent-a")
		if r.Code != 0 || strings.TrimSpace(r.Stdout) != "2.1" {
			t.Fatalf("--claim: exit %d, printed %q, want 2.1\n%s", r.Code, r.Stdout, r.Stderr)
		}
		requireBranchAt(t, repo, "feature", tip)
		if s := symrefOf(repo, "refs/taskclaims/"+run+"/2.1"); s != "" {
			t.Errorf("the claim is still a symbolic ref to %s", s)
		}
	})
}

// A save ref that is an alias of a branch (no clean writes one): expiring
// the saves deletes the alias, never the branch.
func TestSymrefSaveAliasExpired(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	// --only: 1.2 is stacked on 1.1; this test needs a save, not them.
	cleanOK(t, repo, nil, "--task", "1.1", "--only")
	git(t, repo, "branch", "feature", "main")
	git(t, repo, "branch", "feature2", "main")
	tip := git(t, repo, "rev-parse", "refs/heads/feature")
	stamp := lastStamp(t, repo)
	// A save (deleted expecting its value) and a link between cleans
	// (deleted whatever its value).
	git(t, repo, "symbolic-ref", "refs/taskclean/"+run+"/"+stamp+"/branch/zz-feature", "refs/heads/feature")
	git(t, repo, "symbolic-ref", "refs/taskclean/"+run+"/"+stamp+"/continues/"+stamp, "refs/heads/feature2")
	r := testbin.Taskclean(repo, nil, "--run", run, "--expire-backups", "1ns")
	if r.Code != 0 {
		t.Fatalf("--expire-backups: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	requireBranchAt(t, repo, "feature", tip)
	requireBranchAt(t, repo, "feature2", tip)
	if out := git(t, repo, "for-each-ref", "refs/taskclean/"+run+"/"); out != "" {
		t.Errorf("saves left after expiry:\n%s", out)
	}
}

// A worktree restored on a branch name that has become an alias stays
// detached: HEAD on the alias would commit to the branch it points to,
// here one checked out in another worktree.
func TestSymrefRestoreOntoAlias(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "2.2")
	head := git(t, wt, "rev-parse", "HEAD")
	cleanOK(t, repo, nil, "--task", "2.2")
	feature := filepath.Join(filepath.Dir(repo), "feature")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", feature, head)
	makeAlias(t, repo, br22, "refs/heads/feature")

	r := testbin.Taskclean(repo, nil, "--run", run, "--restore", "2.2")
	if r.Code != 0 {
		t.Fatalf("--restore 2.2: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if s := symrefOf(wt, "HEAD"); s != "" {
		t.Errorf("the restored worktree's HEAD is on %s (through the alias %s), which %s has checked out\n%s", s, br22, feature, r.Stdout)
	}
	if got := git(t, wt, "rev-parse", "HEAD"); got != head {
		t.Errorf("the restored worktree is at %s, want %s", got, head)
	}
	if !strings.Contains(r.Stdout, "symbolic ref") {
		t.Errorf("--restore does not say why HEAD stays detached:\n%s", r.Stdout)
	}
}

// A clean killed inside the transaction that deletes the alias leaves the
// lock of the alias's own file, which it recorded beforehand: the rerun
// knows it as its own, removes it and finishes; main is never locked.
func TestSymrefCrashInAliasDelete(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	makeAlias(t, repo, mainAlias, "refs/heads/main")
	mainTip := git(t, repo, "rev-parse", "refs/heads/main")
	// The first transaction records the saves, the second deletes the
	// branches.
	r := testbin.Taskclean(repo, []string{"GIT_TASKCLEAN_CRASH_IN_TXN=2"}, "--run", run, "--all")
	if r.Code != 99 {
		t.Fatalf("crash in the branch transaction: exit %d, want 99\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	common := filepath.Join(repo, ".git")
	if testbin.Exists(filepath.Join(common, "refs", "heads", "main.lock")) {
		t.Errorf("the transaction locked main, which it must not touch")
	}
	if !testbin.Exists(filepath.Join(common, "refs", "heads", mainAlias+".lock")) {
		t.Errorf("the transaction did not lock the alias's own file")
	}
	cleanOK(t, repo, nil, "--all")
	requireBranchAt(t, repo, "main", mainTip)
	if out := testbin.Run(repo, nil, "find", ".git/refs", ".git/packed-refs.lock", "-name", "*.lock").Stdout; strings.TrimSpace(out) != "" {
		t.Errorf("locks left after the rerun:\n%s", out)
	}
	requireAliasGone(t, repo, mainAlias, nil)
}
