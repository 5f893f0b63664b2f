package resume

import (
	"fmt"

	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// judgeWorktrees decides which of the run's worktrees are stale (what a
// plain git taskclean removes), and says what keeps the others.
func (st *State) judgeWorktrees(wts []*Worktree) {
	rep := st.Report
	done := map[string]bool{}
	for _, s := range st.States {
		if s.Status.Done() {
			done[s.Task.ID] = true
		}
	}
	for _, w := range wts {
		switch {
		case w.Current || w.Main || w.Task == "" || w.Shared || w.Outside:
			// never stale: the worktree we run in, the repository's own
			// checkout, and <run>-main (--all only)
		case w.Unreadable || w.Error != "" && !w.Broken && !w.Symlink:
			// nothing a clean can do: it would skip it; say so instead
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnreadableWorktree, Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s: %s; it is left alone", w.Path, w.Error)})
		case w.Missing || w.Broken:
			w.Stale = true
		case st.Plan == nil:
			// without a plan nothing else can be called stale
		case w.Task == "?":
			// Not stale: it belongs to no task we know; --all removes it.
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnknownWorktree,
				Message: fmt.Sprintf("worktree %s matches no task of the plan (git taskclean --all removes it)", w.Path)})
		case st.ClaimOf(w.Task) != nil && !st.ClaimOf(w.Task).Expired:
			// An orchestrator holds the task: its worktree is live work
			// (git taskclean --task or --all still removes it).
		case st.ClaimOf(w.Task) != nil && st.ClaimOf(w.Task).Cached && !done[w.Task]:
			// Expired by this repository's copy, but the claim lives on a
			// remote that was not read: its holder may have renewed it.
			cl := st.ClaimOf(w.Task)
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemClaimNotRead, Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s: task %s is claimed on %s by %s, expired by this repository's copy; it is kept until a read with --remote %s shows the claim expired there",
					w.Path, w.TaskID(), cl.Remote, cl.Holder, cl.Remote)})
		case !done[w.Task]:
			// Stale even while a process works in it or an operation is
			// stopped there: the clean then skips it and says why
			// (--ignore-live, or --task, still take it), and the problems
			// below say it first.
			w.Stale = true
			if op := stoppedOp(w); op != "" {
				rep.Problems = append(rep.Problems, Problem{Kind: ProblemStoppedOperation, Task: w.TaskID(),
					Message: fmt.Sprintf("worktree %s: a %s stopped there; a plain clean leaves it: finish it, or abort it (git -C %s %s --abort)", w.Path, op, ui.ShellQuote(w.Path), op)})
			}
		}
		if w.Stale && w.Locked {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemLockedWorktree, Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s is stale but locked (%s): unlock it to clean it", w.Path, w.LockText())})
			w.Stale, w.StaleLocked = false, true
		}
		if w.Stale {
			rep.StaleWorktrees = append(rep.StaleWorktrees, w.Path)
		}
		if w.Unreachable > 0 {
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnreachableCommits, Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s holds %s on a detached HEAD that no branch has", w.Path, ui.Plural(w.Unreachable, "commit"))})
		}
	}
	if len(rep.StaleWorktrees) > 0 {
		rep.CleanCommand = "git taskclean --run " + rep.RunID + st.sameReadFlags()
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemStaleWorktree,
			Message: fmt.Sprintf("%s: %s", ui.Plural(len(rep.StaleWorktrees), "stale worktree"), rep.CleanCommand)})
	}
}

// stoppedOp is the operation stopped in a worktree ("" for none; a bisect
// is no edit left half done).
func stoppedOp(w *Worktree) string {
	if w.AdminDir == "" {
		return ""
	}
	op, _ := worktree.InProgress(w.AdminDir)
	if op == "bisect" {
		return ""
	}
	return op
}
