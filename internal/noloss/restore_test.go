package noloss

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// wtState is what --restore must bring back: files by content, git's view
// (index ids and modes, untracked, ignored), and HEAD.
type wtState struct {
	files, status, symref, head string
}

func stateOf(t *testing.T, wt string) wtState {
	t.Helper()
	return wtState{
		files:  treeState(t, wt),
		status: statusV2(t, wt),
		symref: strings.TrimSpace(testbin.Run(wt, nil, "git", "symbolic-ref", "-q", "HEAD").Stdout),
		head:   strings.TrimSpace(testbin.Run(wt, nil, "git", "rev-parse", "-q", "--verify", "HEAD").Stdout),
	}
}

func compareState(t *testing.T, wt string, want, got wtState) {
	t.Helper()
	if got.files != want.files {
		t.Errorf("%s: files differ after --restore:\nbefore:\n%s\nafter:\n%s", wt, want.files, got.files)
	}
	if got.status != want.status {
		t.Errorf("%s: git status differs after --restore:\nbefore:\n%s\nafter:\n%s", wt, want.status, got.status)
	}
	if got.symref != want.symref || got.head != want.head {
		t.Errorf("%s: HEAD is %q at %q after --restore, want %q at %q", wt, got.symref, got.head, want.symref, want.head)
	}
}

// restoreFixture is task 2.2's worktree with staged, unstaged, untracked
// and ignored work.
func restoreFixture(t *testing.T) (repo, wt string) {
	repo = newRepo(t)
	wt = addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "restore")
	// Staged, then changed again: index and file differ.
	testbin.WriteFile(t, filepath.Join(wt, "src", "f2.txt"), "two, staged\n")
	git(t, wt, "add", "src/f2.txt")
	testbin.WriteFile(t, filepath.Join(wt, "src", "f2.txt"), "two, staged, then edited\n")
	git(t, wt, "rm", "-q", "src/f3.txt")
	testbin.WriteFile(t, filepath.Join(wt, ".gitignore"), ".env\n")
	testbin.WriteFile(t, filepath.Join(wt, ".env"), "SECRET=ignored but saved\n")
	return repo, wt
}

func restore(t *testing.T, repo, what string) {
	t.Helper()
	if r := testbin.Run(repo, nil, "git", "taskclean", "--run", run, "--restore", what); r.Code != 0 {
		t.Fatalf("--restore %s: exit %d\nstdout: %s\nstderr: %s", what, r.Code, r.Stdout, r.Stderr)
	}
}

// After a default clean the branch stays: --restore (by task or by path)
// puts the worktree back on it, with its index, files and ignored files.
func TestNoLossRestoreOnBranch(t *testing.T) {
	t.Parallel()
	for _, by := range []string{"task", "path"} {
		t.Run(by, func(t *testing.T) {
			t.Parallel()
			repo, wt := restoreFixture(t)
			want := stateOf(t, wt)
			if want.symref != "refs/heads/"+br22 {
				t.Fatalf("fixture: HEAD is %q", want.symref)
			}
			doc := cleanOK(t, repo, nil)
			requireRemoved(t, doc, wt)
			what := "2.2"
			if by == "path" {
				what = wt
			}
			restore(t, repo, what)
			compareState(t, wt, want, stateOf(t, wt))
		})
	}
}

// After --task the branch is gone: --restore puts the worktree back
// detached at the saved HEAD.
func TestNoLossRestoreDeletedBranch(t *testing.T) {
	t.Parallel()
	repo, wt := restoreFixture(t)
	want := stateOf(t, wt)
	doc := cleanOK(t, repo, nil, "--task", "2.2")
	requireRemoved(t, doc, wt)
	if v := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/"+br22); v.Code == 0 {
		t.Fatalf("fixture: --task 2.2 left branch %s", br22)
	}
	restore(t, repo, "2.2")
	want.symref = "" // detached
	compareState(t, wt, want, stateOf(t, wt))
}

// A worktree on an unborn branch (no commit yet) comes back on that same
// unborn branch, with its staged and untracked files.
func TestNoLossRestoreUnborn(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := wtPath(repo, "2.3")
	git(t, repo, "worktree", "add", "-q", "--detach", wt)
	git(t, wt, "checkout", "-q", "--orphan", br23)
	git(t, wt, "rm", "-rf", "-q", ".")
	testbin.WriteFile(t, filepath.Join(wt, "order.go"), "package order\n")
	testbin.WriteFile(t, filepath.Join(wt, "order_test.go"), "package order // test\n")
	git(t, wt, "add", "order.go")
	testbin.WriteFile(t, filepath.Join(wt, "NOTES"), "not staged\n")
	want := stateOf(t, wt)
	if want.symref != "refs/heads/"+br23 || want.head != "" {
		t.Fatalf("fixture: HEAD %q at %q, want unborn %s", want.symref, want.head, br23)
	}
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	assertNoLoss(t, snap, repo)
	restore(t, repo, "2.3")
	compareState(t, wt, want, stateOf(t, wt))
}

// --backups lists every clean of the run; --undo STAMP restores what that
// clean deleted, not what a later one did.
func TestNoLossBackupsAndUndoStamp(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	b21 := testbin.Finish(t, repo, run, "2.1", "user-service", "main")
	b22 := testbin.Finish(t, repo, run, "2.2", "product-service", "main")
	tip21 := git(t, repo, "rev-parse", b21)
	first := cleanOK(t, repo, nil, "--task", "2.1")
	second := cleanOK(t, repo, nil, "--task", "2.2")
	if first.Stamp == "" || second.Stamp == "" || first.Stamp == second.Stamp {
		t.Fatalf("want two distinct stamps, got %q and %q", first.Stamp, second.Stamp)
	}
	for _, json := range []bool{false, true} {
		args := []string{"taskclean", "--run", run, "--backups"}
		if json {
			args = append(args, "--json")
		}
		r := testbin.Run(repo, nil, "git", args...)
		if r.Code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
			continue
		}
		for _, s := range []string{first.Stamp, second.Stamp} {
			if !strings.Contains(r.Stdout, s) {
				t.Errorf("%v does not list stamp %s:\n%s", args, s, r.Stdout)
			}
		}
	}
	if r := testbin.Run(repo, nil, "git", "taskclean", "--run", run, "--undo", first.Stamp); r.Code != 0 {
		t.Fatalf("--undo %s: exit %d\n%s%s", first.Stamp, r.Code, r.Stdout, r.Stderr)
	}
	if got := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/"+b21); strings.TrimSpace(got.Stdout) != tip21 {
		t.Errorf("--undo %s: branch %s is %q, want %s", first.Stamp, b21, got.Stdout, tip21)
	}
	if got := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/"+b22); got.Code == 0 {
		t.Errorf("--undo %s restored %s, which the later clean deleted", first.Stamp, b22)
	}
}
