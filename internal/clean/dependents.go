package clean

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// dependents are the tasks that stand on the tasks in want (docs/DESIGN.md,
// "Forced re-execution and its dependents"): those whose plan
// Dependencies name one of them (ids the plan lacks are ignored) and those
// whose branch is stacked on one's, taken transitively. Only the ones with
// a branch or a worktree of the run are returned in deps: a dependent
// with nothing in git has nothing to stand on the discarded work. Landed
// ones are in landed: their work is in the base, which the clean never
// touches, so they are named and kept (and the walk goes on through them).
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
	// on maps a task to the tasks it stands on.
	on := map[string][]string{}
	for _, t := range st.Plan.Tasks() {
		for _, d := range t.DependsOn {
			if dt := st.Plan.Task(d); dt != nil && dt.ID != t.ID {
				on[t.ID] = append(on[t.ID], dt.ID)
			}
		}
	}
	hasBranch := map[string]bool{}
	isLanded := map[string]bool{}
	for _, s := range st.States {
		id := s.Task.ID
		hasBranch[id] = s.Branch != nil || len(s.Duplicates) > 0
		isLanded[id] = s.Status == branches.Landed
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
	for _, t := range st.Plan.Tasks() {
		switch {
		case want[t.ID] || !reached[t.ID]:
		case isLanded[t.ID]:
			landed = append(landed, t.ID)
		case hasBranch[t.ID] || hasWorktree[t.ID]:
			deps = append(deps, t.ID)
		}
	}
	return deps, landed
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
	return exit.BadInput("--task %s: %s, with a branch or worktree of the run%s; add --with-dependents to run them again too, or --only to run %s alone (they then read stale_base until restacked)",
		named, who, kept, named)
}
