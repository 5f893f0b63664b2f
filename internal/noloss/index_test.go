package noloss

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// What a worktree's index alone holds: a staged blob that differs from the
// file on disk, and the stages of a conflicted path. Neither is a file to
// walk; the save must hold every entry, and --restore must give the index
// back as it was.

// indexState is what --restore must give back of an index and its files:
// `git ls-files -s` (every stage, mode and blob) and the files by content.
type indexState struct{ stages, files string }

func indexStateOf(t *testing.T, wt string) indexState {
	t.Helper()
	return indexState{stages: git(t, wt, "ls-files", "-s"), files: treeState(t, wt)}
}

func compareIndex(t *testing.T, wt string, want, got indexState) {
	t.Helper()
	if got.stages != want.stages {
		t.Errorf("%s: git ls-files -s differs after --restore:\nbefore:\n%s\nafter:\n%s", wt, want.stages, got.stages)
	}
	if got.files != want.files {
		t.Errorf("%s: files differ after --restore:\nbefore:\n%s\nafter:\n%s", wt, want.files, got.files)
	}
}

// stagedThenEdited stages new.txt as v1 and then writes v2 over it: v1
// is then only in the index.
func stagedThenEdited(t *testing.T, wt string) (v1 string) {
	t.Helper()
	testbin.WriteFile(t, filepath.Join(wt, "new.txt"), "v1, staged\n")
	git(t, wt, "add", "new.txt")
	testbin.WriteFile(t, filepath.Join(wt, "new.txt"), "v2, not staged\n")
	return blobID([]byte("v1, staged\n"))
}

// requireUnmerged checks that wt's index holds conflict stages of path.
func requireUnmerged(t *testing.T, wt, path string) {
	t.Helper()
	if out := git(t, wt, "ls-files", "-u", "--", path); out == "" {
		t.Fatalf("fixture: %s has no conflict stages of %s", wt, path)
	}
}

// cleanAndRestore runs a clean with args, which must remove wt with nothing
// lost, then restores task 2.2 and compares its index and files with what
// they were.
func cleanAndRestore(t *testing.T, repo, wt string, args ...string) {
	t.Helper()
	want := indexStateOf(t, wt)
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil, args...)
	requireRemoved(t, doc, wt)
	assertNoLoss(t, snap, repo)
	restore(t, repo, "2.2")
	compareIndex(t, wt, want, indexStateOf(t, wt))
}

// A `git stash pop` that conflicted (no merge in progress, so a plain clean
// takes the worktree), with new.txt staged and edited again: the staged
// v1 and the three stages of common.txt are in no file. The save holds
// them, and --restore gives back the conflict, the staged v1 and v2 on
// disk.
func TestNoLossIndexStashPopConflict(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, wt, "checkout", "-q", "--detach")
	commitFile(t, wt, "common.txt", "base\n")
	testbin.WriteFile(t, filepath.Join(wt, "common.txt"), "stashed\n")
	git(t, wt, "stash", "-q")
	testbin.WriteFile(t, filepath.Join(wt, "common.txt"), "committed\n")
	git(t, wt, "commit", "-q", "-a", "-m", "change common.txt")
	if r := testbin.Run(wt, nil, "git", "stash", "pop"); r.Code == 0 {
		t.Fatal("fixture: git stash pop did not conflict")
	}
	requireUnmerged(t, wt, "common.txt")
	v1 := stagedThenEdited(t, wt)
	git(t, wt, "stash", "drop", "-q") // a conflicted pop keeps the entry
	cleanAndRestore(t, repo, wt)
	if got := git(t, wt, "rev-parse", ":new.txt"); got != v1 {
		t.Errorf("new.txt staged as %s after --restore, want v1 %s", got, v1)
	}
}

// A merge that conflicted, under --task: the merge's state is saved with
// the admin entry, and the index's stages too.
func TestNoLossIndexMergeConflictTask(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, repo, "branch", "other", "main")
	other := filepath.Join(filepath.Dir(repo), "other")
	git(t, repo, "worktree", "add", "-q", other, "other")
	testbin.WriteFile(t, filepath.Join(other, "src", "f1.txt"), "one, theirs\n")
	git(t, other, "commit", "-q", "-a", "-m", "theirs")
	git(t, repo, "worktree", "remove", other)
	testbin.WriteFile(t, filepath.Join(wt, "src", "f1.txt"), "one, ours\n")
	git(t, wt, "commit", "-q", "-a", "-m", "ours")
	if r := testbin.Run(wt, nil, "git", "merge", "other"); r.Code == 0 {
		t.Fatal("fixture: git merge did not conflict")
	}
	requireUnmerged(t, wt, "src/f1.txt")
	requireState(t, wt, "MERGE_HEAD")
	stagedThenEdited(t, wt)
	cleanAndRestore(t, repo, wt, "--task", "2.2")
}

// `git apply --3way` that conflicted: stages in the index and no operation
// in progress at all.
func TestNoLossIndexApply3way(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	apply3wayConflict(t, wt)
	stagedThenEdited(t, wt)
	cleanAndRestore(t, repo, wt)
}

// No conflict: a file staged and then edited again. The stash-shaped
// commit's index parent holds the staged blob; this guards it.
func TestNoLossIndexStagedThenEdited(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	stagedThenEdited(t, wt)
	testbin.WriteFile(t, filepath.Join(wt, "src", "f3.txt"), "three, staged\n")
	git(t, wt, "add", "src/f3.txt")
	testbin.WriteFile(t, filepath.Join(wt, "src", "f3.txt"), "three, staged, then edited\n")
	cleanAndRestore(t, repo, wt)
	if out := git(t, wt, "diff", "--name-only"); !strings.Contains(out, "new.txt") {
		t.Errorf("after --restore new.txt on disk is the staged version; want v2 on disk, v1 staged (diff: %q)", out)
	}
}

// A worktree whose directory is gone, its index holding a conflict and a
// staged file: the clean saves the index (no files are left to save) before
// it drops the entry, and --restore gives the index back.
func TestNoLossIndexDirectoryGone(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	apply3wayConflict(t, wt)
	stagedThenEdited(t, wt)
	want := git(t, wt, "ls-files", "-s")
	if r := testbin.Run(repo, nil, "rm", "-rf", wt); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil)
	if len(doc.Find("prune_worktree", wt)) == 0 {
		t.Fatalf("no prune_worktree action for %s\nactions:\n%s", wt, doc)
	}
	assertNoLoss(t, snap, repo)
	restore(t, repo, "2.2")
	if got := git(t, wt, "ls-files", "-s"); got != want {
		t.Errorf("git ls-files -s differs after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
	}
}

// apply3wayConflict leaves src/f2.txt conflicted in wt by `git apply
// --3way` of a patch over a staged change of the same line: stages in the
// index and no operation in progress.
func apply3wayConflict(t *testing.T, wt string) {
	t.Helper()
	testbin.WriteFile(t, filepath.Join(wt, "src", "f2.txt"), "two, patched\n")
	patch := git(t, wt, "diff") + "\n"
	git(t, wt, "checkout", "-q", "--", "src/f2.txt")
	testbin.WriteFile(t, filepath.Join(wt, "src", "f2.txt"), "two, changed here\n")
	git(t, wt, "add", "src/f2.txt")
	if _, err := gitIn(wt, patch, "apply", "--3way"); err == nil {
		t.Fatal("fixture: git apply --3way did not conflict")
	}
	requireUnmerged(t, wt, "src/f2.txt")
}
