package clean

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// dependents are the tasks that stand on the tasks in want (docs/DESIGN.md,
// "Forced re-execution and its dependents"): those whose plan
// Dependencies name one of them, as scheduling honours them (ids the plan
// lacks and the dependencies phase order cannot honour are ignored), and those
// whose branch is stacked on one's, taken transitively. Only the ones with
// a branch, a worktree or a live claim of the run are returned in deps: a
// dependent with nothing in git has nothing to stand on the discarded
// work, and a claimed one has a holder at work on it. Landed ones are in
// landed: their work is in the base, which the clean never touches, so
// they are named and kept (and the walk goes on through them).
func dependents(st *resume.State, want map[string]bool) (deps, landed []string) {
	if st.Plan == nil {
		return nil, nil
	}
	hasWorktree := map[string]bool{}
	for _, w := range st.Report.Worktrees {
		if id := w.TaskID(); id != "" && !w.Main && !w.Shared {
			hasWorktree[id] = true
		}
	}
	hasBranch := map[string]bool{}
	isLanded := map[string]bool{}
	for _, s := range st.States {
		hasBranch[s.Task.ID] = s.Branch != nil || len(s.Duplicates) > 0
		isLanded[s.Task.ID] = s.Status == branches.Landed
	}
	reached := standOn(st, want)
	for _, t := range st.Plan.Tasks() {
		cl := st.ClaimOf(t.ID)
		switch {
		case want[t.ID] || !reached[t.ID]:
		case isLanded[t.ID]:
			landed = append(landed, t.ID)
		case hasBranch[t.ID] || hasWorktree[t.ID] || cl != nil && !cl.Expired:
			deps = append(deps, t.ID)
		}
	}
	return deps, landed
}

// standOn is every task that stands on a task of want, transitively, by
// the plan's Dependencies or by a branch stacked on another's; want's own
// tasks are in it.
func standOn(st *resume.State, want map[string]bool) map[string]bool {
	// on maps a task to the tasks it stands on.
	on := map[string][]string{}
	for _, t := range st.Plan.Tasks() {
		// The dependencies scheduling honours (plan.Task.Needs), as the
		// scheduler reads them: one it ignores (on a later phase, a
		// later task of a sequential phase, a cycle) never held the task
		// back, so the task cannot stand on that work but by its branch,
		// which the stacking below counts.
		for _, dt := range t.Needs {
			on[t.ID] = append(on[t.ID], dt.ID)
		}
	}
	for _, s := range st.States {
		id := s.Task.ID
		if p := st.Plan.Task(s.StackParent); s.StackParent != "" && p != nil && p.ID != id {
			on[id] = append(on[id], p.ID)
		}
	}
	reached := map[string]bool{}
	for id := range want {
		reached[id] = true
	}
	for grew := true; grew; {
		grew = false
		for _, t := range st.Plan.Tasks() {
			if reached[t.ID] {
				continue
			}
			if slices.ContainsFunc(on[t.ID], func(p string) bool { return reached[p] }) {
				reached[t.ID], grew = true, true
			}
		}
	}
	return reached
}

// claimsStay are the checks that go into the transaction deleting the
// branches of tasks: the claim refs of every task standing on them that
// the clean does not name, each at the value read (absent when none). A
// resumer that claims such a task after the clean read the claims (its
// --claim saw the dependency done) makes the deletion fail, whole: the
// task is never held while the work it stands on is gone. Both the claim
// and this transaction lock the claim ref, and a claim checks the
// dependency's branch the same way, so one of the two fails. A claim ref
// the clean itself dropped (an expired claim) is expected absent: the
// values read are those before the drop. A claim that lives on a remote
// is not checked here: this repository's copy of it may or may not
// exist, and a claim on the remote is taken there, which no ref
// transaction of this repository can lock (docs/DESIGN.md, Known
// limits).
func claimsStay(st *resume.State, deleted []string, want map[string]bool, zero string, dropped map[string]bool) []gitcmd.RefUpdate {
	if st.Plan == nil || len(deleted) == 0 {
		return nil
	}
	from := map[string]bool{}
	for _, id := range deleted {
		if t := st.Plan.Task(id); t != nil {
			from[t.ID] = true
		}
	}
	reached := standOn(st, from)
	var out []gitcmd.RefUpdate
	for _, t := range st.Plan.Tasks() {
		if !reached[t.ID] || from[t.ID] || want[t.ID] {
			continue
		}
		at := map[string]string{}
		c := st.ClaimOf(t.ID)
		if c != nil && c.Remote != "" {
			continue
		}
		if c != nil {
			for _, c := range c.WithRivals() {
				for _, r := range c.AllRefs() {
					at[r] = c.Commit
				}
			}
		}
		for _, r := range claims.RefsOf(st.Report.RunID, t.ID) {
			old := at[r]
			if old == "" || dropped[r] {
				old = zero
			}
			out = append(out, gitcmd.RefUpdate{Op: "verify", Ref: r, Old: old})
		}
	}
	return out
}

// refuseDependents is --task's refusal when tasks with a branch or a
// worktree stand on what it would discard: it names them and the two
// ways on. Nothing has changed.
func refuseDependents(tasks, deps, landed []string) error {
	named := strings.Join(tasks, ", ")
	who := "task " + deps[0] + " depends on or is stacked on it"
	if len(deps) > 1 {
		who = "tasks " + strings.Join(deps, ", ") + " depend on or are stacked on it"
	}
	kept := ""
	if len(landed) > 0 {
		kept = fmt.Sprintf(" (landed, kept whatever you choose: %s)", strings.Join(landed, ", "))
	}
	return exit.BadInput("--task %s: %s, with a branch, worktree or live claim of the run%s; add --with-dependents to run them again too, or --only to run %s alone (they then read stale_base until restacked)",
		named, who, kept, named)
}
