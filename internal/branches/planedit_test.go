package branches_test

import (
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
)

// planFilesPlan has a task whose work is the plan itself (its Files name
// it), beside ordinary ones.
const planFilesPlan = `# Plan

Run ID: x1y2z3

## Phase 1: Setup (Sequential)

### Task 1.1: Write the plan
- Files: ` + "`specs/x1y2z3/plan.md`" + `

### Task 1.2: Install dependencies

## Phase 2: Core Logic (Parallel)

### Task 2.1: User service

### Task 2.2: Product service
`

const planPath = "specs/x1y2z3/plan.md"

// Editing the plan is not doing a task: a commit whose whole change is to
// the plan is no task's work and lands none, whatever its words say,
// except for a task whose Files name the plan.
func TestDecidePlanOnly(t *testing.T) {
	p := mustPlan(t, planFilesPlan)
	only := map[string][]string{"c1": {planPath}, "L1": {planPath}, "D1": {planPath}}
	for _, c := range []struct {
		name string
		in   branches.Input
		want map[string]want
		land map[string]bool
		// differs: the verdict without PlanOnly (the rule before it)
		// differs, so the case holds the rule.
		differs bool
	}{
		{
			name: "a task branch whose one commit names its task and edits the plan", differs: true,
			in: branches.Input{Branches: []branches.Branch{br(b21, "c1")},
				Walk: history("c1:B|[Task 2.1] User service: mark in progress")},
			want: map[string]want{"2.1": {branches.Empty, 0, "", b21}},
		},
		{
			name: "the same naming nothing: the branch cannot credit it either", differs: true,
			in:   branches.Input{Branches: []branches.Branch{br(b21, "c1")}, Walk: history("c1:B|Update plan")},
			want: map[string]want{"2.1": {branches.Empty, 0, "", b21}},
		},
		{
			name: "a plan edit on top of real work takes nothing away",
			in: branches.Input{Branches: []branches.Branch{br(b21, "c1")},
				Walk: history("c0:B|[Task 2.1] User service", "c1:c0|[Task 2.1] User service: tick the box")},
			want: map[string]want{"2.1": {branches.Completed, 1, "", b21}},
		},
		{
			name: "a task whose Files name the plan keeps its plan edit, named or not",
			in:   branches.Input{Branches: []branches.Branch{br("x1y2z3-task-1-1-write-the-plan", "c1")}, Walk: history("c1:B|[Task 1.1] Write the plan")},
			want: map[string]want{"1.1": {branches.Completed, 1, "", "x1y2z3-task-1-1-write-the-plan"}},
		},
		{
			name: "the same, its commit naming nothing",
			in:   branches.Input{Branches: []branches.Branch{br("x1y2z3-task-1-1-write-the-plan", "c1")}, Walk: history("c1:B|Write it")},
			want: map[string]want{"1.1": {branches.Completed, 1, "", "x1y2z3-task-1-1-write-the-plan"}},
		},
		{
			name: "landed on the base and the default branch: no evidence", differs: true,
			in: branches.Input{Landed: history("L1:L0|docs: Task 2.1 - User service", "L0:S|plan: add the plan"),
				LandedDefault: history("D1:S|[Task 2.2] Product service")},
			land: map[string]bool{},
		},
		{
			name: "landed, for the task whose Files name the plan",
			in:   branches.Input{Landed: history("L1:L0|[Task 1.1] Write the plan", "L0:S|other")},
			land: map[string]bool{"1.1": true},
		},
		{
			name: "trailers naming two tasks: only the one whose Files name the plan", differs: true,
			in: branches.Input{Landed: []branches.CommitInfo{{OID: "L1", Parents: []string{"L0"}, Subject: "plan",
				RunIDs: []string{run}, TaskIDs: []string{"2.1", "1.1"}}}},
			land: map[string]bool{"1.1": true},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.Run, in.Plan, in.PlanOnly = run, p, only
			v := branches.Decide(in)
			if c.want != nil {
				checkStates(t, p, v, c.want)
			}
			for _, st := range v.States {
				if c.land != nil && (st.Landed != nil) != c.land[st.Task.ID] {
					t.Errorf("task %s landed: %+v, want %v", st.Task.ID, st.Landed, c.land[st.Task.ID])
				}
			}
			in.PlanOnly = nil
			old := branches.Decide(in)
			differs := false
			for i := range old.States {
				a, b := old.States[i], v.States[i]
				differs = differs || a.Status != b.Status || (a.Landed == nil) != (b.Landed == nil)
			}
			if differs != c.differs {
				t.Errorf("the verdict without PlanOnly differs: %v, want %v", differs, c.differs)
			}
		})
	}
}
