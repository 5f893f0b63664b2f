package noloss

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Fourth-round adversary (items 2 and 4): tests that fail on the code
// they were written against (a8a25e1).

// A worktree whose directory is gone and whose index git cannot read (its
// signature damaged: "bad signature", "index file corrupt"): a staged blob
// is named only by that index. The clean saves HEAD alone, says "its HEAD,
// index and admin entry are saved" and drops the entry, index and all: the
// blob is unreachable. A worktree whose directory is there is kept in this
// case (the proof's "the index" unproven); without a directory the entry
// must be kept too, or the index file's bytes saved.
func TestAdv4GoneDirCorruptIndex(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	testbin.WriteFile(t, filepath.Join(wt, "zzz.txt"), "staged only, last entry\n")
	git(t, wt, "add", "zzz.txt")
	v1 := blobID([]byte("staged only, last entry\n"))
	admin := strings.TrimSpace(git(t, wt, "rev-parse", "--absolute-git-dir"))
	idx := filepath.Join(admin, "index")
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	// Neither git nor the clean's reader can read the index now, and the
	// staged blob's id is in its bytes only.
	data[0] = 'X'
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := testbin.Run(wt, nil, "git", "ls-files", "-s"); r.Code == 0 {
		t.Logf("git still reads the index: %s", r.Stdout)
	} else {
		t.Logf("git cannot read the index: %s", r.Stderr)
	}
	if r := testbin.Run(repo, nil, "rm", "-rf", wt); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	before := string(data)
	r, doc := clean(t, repo, nil)
	t.Logf("exit %d\n%s", r.Code, printed(r, doc))
	if !reachable(t, repo, v1) && !testbin.Exists(idx) {
		t.Errorf("the staged blob %s is unreachable and the index naming it is gone", v1)
	}
	if after, err := os.ReadFile(idx); err == nil && string(after) != before {
		t.Errorf("the index was rewritten")
	}
}

// --older-than and a live agent that commits with plumbing in a repository
// that keeps no reflogs (core.logAllRefUpdates=false, so the worktree has
// no logs/HEAD): `git commit-tree` and `git update-ref` write objects and
// refs/heads/<branch> in the common directory, and in the admin entry only
// a HEAD.lock made and removed (the directory's time, which is not read).
// Task 2.2's agent does so after the limit: its worktree must look busy.
// Task 2.1 does nothing and is removed (the limit does select).
func TestAdv4OlderThanPlumbingCommit(t *testing.T) {
	repo := newRepo(t)
	git(t, repo, "config", "core.logAllRefUpdates", "false")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "one more on main")
	moveBase(t, repo)
	wts := dirtyWorktrees(t, repo, "2.1", "2.2")
	if testbin.Exists(filepath.Join(repo, ".git", "worktrees", filepath.Base(wts[1]), "logs", "HEAD")) {
		t.Fatal("fixture: the worktree has a HEAD reflog")
	}
	time.Sleep(5 * time.Second)
	// The agent's new commit on its branch, made from inside its worktree.
	head := git(t, wts[1], "rev-parse", "HEAD")
	c := git(t, wts[1], "commit-tree", "-p", head, "-m", "agent: step 7", head+"^{tree}")
	git(t, wts[1], "update-ref", "refs/heads/"+br22, c)
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil, "--older-than", "4s")
	requireRemoved(t, doc, wts[0])
	requireSkip(t, doc, wts[1], "--older-than")
	assertNoLoss(t, snap, repo)
}
