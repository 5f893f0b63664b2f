package noloss

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// git taskclean --all removes the run's shared worktree after the task
// worktree nested in it, in two rounds, each saved and recorded before it
// removes anything. A clean killed after any of its changes, in either
// round, and then run again, loses nothing of either worktree.
func TestNoLossCrashBetweenNestedRounds(t *testing.T) {
	t.Parallel()
	for k := 1; ; k++ {
		repo := newRepo(t)
		shared := filepath.Join(repo, ".worktrees", run+"-main")
		git(t, repo, "worktree", "add", "-q", shared, run+"-main")
		makeDirty(t, shared, "shared")
		inner := filepath.Join(shared, ".worktrees", run+"-task-2-2")
		git(t, repo, "worktree", "add", "-q", inner, "-b", br22, "main")
		makeDirty(t, inner, "inner")
		snap := snapshotForLoss(t, repo)

		r, doc := clean(t, repo, []string{"GIT_TASKCLEAN_CRASH_AFTER=" + strconv.Itoa(k)}, "--all")
		if r.Code == 0 {
			if k < 4 {
				t.Fatalf("the clean finished after %d changes; two rounds take more\n%s", k-1, printed(r, doc))
			}
			t.Logf("the clean makes %d changes; a crash after each was survived", k-1)
			requireRemoved(t, doc, inner)
			requireRemoved(t, doc, shared)
			assertNoLoss(t, snap, repo)
			return
		}
		if r.Code != 99 {
			t.Fatalf("GIT_TASKCLEAN_CRASH_AFTER=%d: exit %d, want 99\n%s", k, r.Code, printed(r, doc))
		}
		cleanOK(t, repo, nil, "--all")
		if testbin.Exists(inner) || testbin.Exists(shared) {
			t.Errorf("crash after change %d: the rerun left %v %v", k, testbin.Exists(inner), testbin.Exists(shared))
		}
		assertNoLoss(t, snap, repo)
		if t.Failed() {
			t.Fatalf("crash after change %d", k)
		}
	}
}
