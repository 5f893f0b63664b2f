package resume

import (
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

func strp(s string) *string { return &s }

// build fills the report from the task states and worktrees.
func (st *State) build(wts []*Worktree, v branches.Verdict) {
	rep := st.Report
	run := rep.RunID
	rep.Worktrees = append(rep.Worktrees, wts...)
	// The rule has the last word on a branch's task: its commits may
	// overrule its name.
	if st.Plan != nil {
		for _, w := range wts {
			if id, ok := v.ByBranch[w.Branch]; ok && w.Branch != "" && !w.Shared && w.Task != "" {
				w.Task = id
				if id == "" {
					w.Task = "?"
				}
			}
		}
	}
	wtByTask := map[string]*Worktree{}
	for _, w := range wts {
		if w.Task != "" && w.Task != "?" {
			if _, dup := wtByTask[w.Task]; !dup {
				wtByTask[w.Task] = w
			}
		}
	}
	for _, mm := range v.Mismatched {
		if st.Plan == nil {
			break
		}
		var works []string
		for _, id := range mm.Work {
			works = append(works, taskLabel(st.Plan, id))
		}
		// Why, as far as git says: a committed version of the plan that
		// gave one of those titles the branch's id, else nothing git holds.
		why := "was the branch made on that task's work?"
		if st.renumbered(mm) {
			why = "the plan was renumbered: an earlier committed version gave that title the branch's id"
		}
		msg := fmt.Sprintf("branch %s is named for task %s, but its commits name task %s: counted there (%s)",
			mm.Branch, taskLabel(st.Plan, mm.Task), strings.Join(works, ", "), why)
		if mm.Restacked {
			// Still said: merging the branch brings those tasks' work too.
			msg = fmt.Sprintf("branch %s is named for task %s, but holds copies of commits naming task %s that other branches of the run add (it was restacked on them): counted for those tasks, not for %s",
				mm.Branch, taskLabel(st.Plan, mm.Task), strings.Join(works, ", "), mm.Task)
		}
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemBranchNamesOtherTask, Task: mm.Task, Message: msg})
	}
	for _, u := range v.Unknown {
		switch {
		case st.Plan == nil: // without a plan every branch is unmatched; it is said once below
		case u.Earlier:
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemEarlierPlan, Message: st.earlierMessage(u.Branch.Name)})
		default:
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemUnknownBranch,
				Message: fmt.Sprintf("branch %s is no task's: %s; it is reported, never counted", u.Branch.Name, u.Why)})
		}
	}

	if st.Plan == nil {
		rep.Status = RunUnknown
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemNoPlan,
			Message: noPlanHint(run, st.planLooked, st) + "; cannot tell what remains"})
		for _, l := range st.planLooked {
			if l == "." {
				l = "the main worktree"
			}
			rep.PlanSearched = append(rep.PlanSearched, l)
		}
		for _, b := range st.TaskBranches {
			rep.UnknownBranches = appendUniq(rep.UnknownBranches, b.Name)
		}
	} else {
		st.buildPhases(wtByTask)
		st.staleBaseProblems()
		st.sharedWorkFor()
	}
	st.judgeWorktrees(wts)
}

// taskLabel is a task's id with its title: `2.2 "Cache layer"`.
func taskLabel(p *plan.Plan, id string) string {
	if t := p.Task(id); t != nil {
		return fmt.Sprintf("%s %q", id, t.Title)
	}
	return id
}

func appendUniq(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

// sameReadFlags repeats how this report read the run (--plan,
// --plan-run-id, --base, --remote), so the suggested clean sees the same run.
func (st *State) sameReadFlags() string {
	var b strings.Builder
	for _, f := range [][2]string{{"--plan", st.opts.PlanPath}, {"--plan-run-id", st.opts.PlanRunID}, {"--base", st.opts.Base}, {"--remote", st.opts.Remote}} {
		if f[1] != "" {
			b.WriteString(" " + f[0] + " " + ui.ShellQuote(f[1]))
		}
	}
	return b.String()
}

// renumbered says whether a committed version of the plan gave the title
// of a task mm's commits name the id of the task mm's branch is named for.
func (st *State) renumbered(mm branches.Mismatch) bool {
	for _, id := range mm.Work {
		t := st.Plan.Task(id)
		if t == nil {
			continue
		}
		for _, v := range st.planVersions {
			if was := v.Task(mm.Task); was != nil && strings.EqualFold(strings.TrimSpace(was.Title), strings.TrimSpace(t.Title)) {
				return true
			}
		}
	}
	return false
}

// staleBaseProblems says, for each task whose branch stands on a
// dependency's discarded work, why it is not done and the one command
// that restacks it: its own commits onto the dependency's branch as it is
// now, else onto the base (docs/DESIGN.md, "Forced re-execution and its
// dependents").
func (st *State) staleBaseProblems() {
	rep := st.Report
	for _, s := range st.States {
		sb := s.StaleBase
		if sb == nil || s.Branch == nil {
			continue
		}
		onto, where := sb.Onto, "onto task "+sb.Dep+"'s branch as it is now"
		if onto == "" {
			onto, where = rep.Base.Ref, "onto the base, as task "+sb.Dep+" has no branch"
		} else if dep := st.stateOf(sb.Dep); dep != nil && dep.Branch != nil && dep.Branch.Remote != "" {
			// Read from the remote only: its remote-tracking name.
			onto = dep.Branch.Remote + "/" + dep.Branch.Name
		}
		// A branch held only as the remote's copy is made here first:
		// rebasing a remote-tracking ref would only detach HEAD.
		mk := ""
		if r := s.Branch.Remote; r != "" {
			mk = fmt.Sprintf("git branch %s %s && ", ui.ShellQuote(s.Branch.Name), ui.ShellQuote(r+"/"+s.Branch.Name))
		}
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemStaleBase, Task: s.Task.ID, Message: fmt.Sprintf(
			"task %s: branch %s stands on %s of task %s (up to %s) that no branch of task %s holds any more (it was forced to run again, or its branch rebuilt): not done until restacked or run again; to restack it %s: %sgit rebase --onto %s %s %s",
			s.Task.ID, s.Branch.Name, ui.Plural(sb.Commits, "commit"), sb.Dep, ui.Short(sb.OldTip), sb.Dep, where,
			mk, ui.ShellQuote(onto), sb.OldTip, ui.ShellQuote(s.Branch.Name))})
	}
}

// stateOf is the verdict on task id, nil when the plan lacks it.
func (st *State) stateOf(id string) *branches.TaskState {
	for i := range st.States {
		if st.States[i].Task.ID == id {
			return &st.States[i]
		}
	}
	return nil
}
