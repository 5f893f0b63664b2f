package clean_test

import (
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestCleanSplitIndex: with core.splitIndex (and an fsmonitor setting that
// points at nothing) the worktree's index is split in two files; the save's
// copy must still be read whole by the proof, so the stale worktree is
// saved and removed rather than kept as unprovable.
func TestCleanSplitIndex(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	gitIn(t, s.root, "", "config", "core.splitIndex", "true")
	for _, d := range s.dirty {
		// Rewrite each index so that it is split now.
		gitIn(t, d.path, "", "update-index", "--split-index")
	}
	out := mustClean(t, s.root, "--run", run)
	saved := savedRefs(t, s.root)
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s kept with a split index:\n%s", d.name, out)
			continue
		}
		rs := savedFor(saved, "worktree", d.name)
		if len(rs) != 1 {
			t.Errorf("saves of %s: %v, want one", d.name, rs)
			continue
		}
		if err := savedContentErr(t, s.root, rs[0], d); err != nil {
			t.Error(err)
		}
	}
}
