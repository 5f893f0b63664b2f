package noloss

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestNoLossOldTimesWriter: --older-than must not take a live agent's
// worktree for idle because the agent writes with old modification times.
// Everything is written, the test waits past the limit, then:
//   - 2.2: `cp -p` over a file (new bytes, a three-hour-old mtime), and
//     `touch -t` of another file: only their change times are new;
//   - 2.3: `git reset --soft HEAD~1`, which writes no file of the worktree
//     and not its index, only the branch (in the common directory) and the
//     worktree's own logs/HEAD;
//   - 2.1: nothing, so it is removed (the limit does select).
func TestNoLossOldTimesWriter(t *testing.T) {
	repo := newRepo(t)
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "one more on main")
	moveBase(t, repo)
	wts := dirtyWorktrees(t, repo, "2.1", "2.2", "2.3")
	outside := filepath.Join(realTemp(t), "new-version.txt")
	if err := os.WriteFile(outside, []byte("written by a live agent with cp -p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-3 * time.Hour)
	if err := os.Chtimes(outside, old, old); err != nil {
		t.Fatal(err)
	}

	time.Sleep(5 * time.Second)
	testbin.Must(t, testbin.Run(wts[1], nil, "cp", "-p", outside, filepath.Join(wts[1], "untracked-2.2.txt")))
	// touch -t (GNU's -d "3 hours ago" is not BSD's), in UTC to match the
	// stamp.
	testbin.Must(t, testbin.Run(wts[1], []string{"TZ=UTC"}, "touch", "-t", old.UTC().Format("200601021504.05"), filepath.Join(wts[1], "notes", "2.2", "todo.md")))
	git(t, wts[2], "reset", "-q", "--soft", "HEAD~1")
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil, "--older-than", "4s")
	requireRemoved(t, doc, wts[0])
	requireSkip(t, doc, wts[1], "--older-than")
	requireSkip(t, doc, wts[2], "--older-than")
	assertNoLoss(t, snap, repo)
}
