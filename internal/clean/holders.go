package clean

import (
	"maps"
	"slices"
	"strings"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// noteDanglingAliases says, on the action deleting each branch, which of
// the other local branches are symbolic refs to it (a user's short name
// for a task branch: refs/heads/feature -> refs/heads/<task branch>), or
// go to it through other aliases: deleting the branch leaves them
// pointing to nothing (`git branch` no longer lists them, `git log
// feature` fails), and bringing it back brings them back. They are not
// deleted: they are not the run's, and an alias deleted would be the
// user's branch gone. Read only when the clean deletes a branch (a walk of
// refs/heads' loose files, see worktree.BranchAliases).
func (c *cleaner) noteDanglingAliases(deleted []BranchTarget, acts []*Action) {
	if len(deleted) == 0 {
		return
	}
	gone := map[string]int{} // full ref -> index in deleted
	for i, bt := range deleted {
		gone[bt.B.Ref] = i
	}
	aliases := worktree.BranchAliases(c.repo.CommonDir)
	dangling := make([][]string, len(deleted))
	for _, ref := range slices.Sorted(maps.Keys(aliases)) {
		if _, ok := gone[ref]; ok {
			continue // deleted itself, and saved as an alias
		}
		// The first deleted ref on its chain is what it now misses.
		next := aliases[ref]
		for i := 0; i < worktree.MaxSymrefDepth && next != ""; i++ {
			if k, ok := gone[next]; ok {
				dangling[k] = append(dangling[k], strings.TrimPrefix(ref, "refs/heads/"))
				break
			}
			next = aliases[next]
		}
	}
	for i, names := range dangling {
		if len(names) == 0 {
			continue
		}
		what := "the branch " + names[0] + ", a symbolic ref to it, is"
		if len(names) > 1 {
			what = "the branches " + strings.Join(names, ", ") + ", symbolic refs to it, are"
		}
		back := "--undo brings it back, and them with it"
		if len(names) == 1 {
			back = "--undo brings it back, and " + names[0] + " with it"
		}
		if c.opts.NoBackup {
			back = "not saved (--no-backup): git branch " + deleted[i].B.Name + " " + deleted[i].B.OID + " brings it back"
		}
		note := what + " left pointing to nothing (" + back + ")"
		if acts[i].Reason != "" {
			note = acts[i].Reason + "; " + note
		}
		acts[i].Reason = note
	}
}
