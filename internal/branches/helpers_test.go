package branches_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/plan"
)

const run = "x1y2z3"

// stdPlan has two sequential tasks and two parallel ones, in this plan
// order: 1.1, 1.2, 2.1, 2.2.
const stdPlan = `# Implementation Plan

Run ID: x1y2z3

## Phase 1: Setup (Sequential)

### Task 1.1: Create database schema (M - 1h)
- Files: ` + "`db/schema.sql`" + `

### Task 1.2: Install dependencies (S - 30m)

## Phase 2: Core Logic (Parallel)

### Task 2.1: User service (M - 2h)

### Task 2.2: Product service (M - 2h)
`

// throughPlan numbers its tasks through the plan, as one orchestrator's
// plans do: phase 2 holds tasks 3 and 4.
const throughPlan = `# Plan

Run ID: x1y2z3

## Phase 1: Setup (Sequential)

### Task 1: Spec command worktree integration

### Task 2: Plan command worktree integration

## Phase 2: Tests (Parallel)

### Task 3: Add integration tests

### Task 4: Constitution documentation updates
`

func mustPlan(t *testing.T, src string) *plan.Plan {
	t.Helper()
	p, _, err := plan.Parse("plan.md", []byte(src))
	if err != nil {
		t.Fatalf("plan.Parse: %v\n%s", err, src)
	}
	return p
}

// planWith builds a plan for run x1y2z3 with one sequential phase holding
// the given tasks, each "id: title".
func planWith(t *testing.T, tasks ...string) *plan.Plan {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Plan\n\nRun ID: x1y2z3\n\n## Phase 1: All (Sequential)\n\n")
	for _, tk := range tasks {
		fmt.Fprintf(&b, "### Task %s\n\n", tk)
	}
	return mustPlan(t, b.String())
}

func br(name, oid string) branches.Branch {
	return branches.Branch{Name: name, Ref: "refs/heads/" + name, OID: oid}
}

// history builds commits from "id:parent1,parent2|subject" specs, children
// before parents as git log lists them. Parents not listed stand for the
// base's commits (the walk stops there).
func history(specs ...string) []branches.CommitInfo {
	cs := make([]branches.CommitInfo, 0, len(specs))
	for i := len(specs) - 1; i >= 0; i-- {
		spec, subject, _ := strings.Cut(specs[i], "|")
		id, ps, _ := strings.Cut(spec, ":")
		c := branches.CommitInfo{OID: id, Subject: subject}
		if c.Subject == "" {
			c.Subject = "work " + id
		}
		if ps != "" {
			c.Parents = strings.Split(ps, ",")
		}
		cs = append(cs, c)
	}
	return cs
}

// want is the expected verdict on one task.
type want struct {
	Status      branches.Status
	Own         int
	StackParent string
	Branch      string // name of the branch counted, "" for none
}

func checkStates(t *testing.T, p *plan.Plan, v branches.Verdict, wants map[string]want) {
	t.Helper()
	tasks := p.Tasks()
	if len(v.States) != len(tasks) {
		t.Fatalf("Decide returned %d states for %d tasks", len(v.States), len(tasks))
	}
	for i, st := range v.States {
		if st.Task != tasks[i] {
			t.Errorf("state %d is for task %v, want plan order (%s)", i, st.Task, tasks[i].ID)
			continue
		}
		w, ok := wants[st.Task.ID]
		if !ok {
			w = want{Status: branches.Pending}
		}
		got := want{Status: st.Status, Own: st.OwnCommits, StackParent: st.StackParent}
		if st.Branch != nil {
			got.Branch = st.Branch.Name
		}
		if got != w {
			t.Errorf("task %s: got %+v, want %+v (doubts %q)", st.Task.ID, got, w, st.Doubts)
		}
	}
}
