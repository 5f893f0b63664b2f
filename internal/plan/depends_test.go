package plan

import (
	"reflect"
	"slices"
	"testing"
)

// TestDependencyOrder: the dependencies phase order cannot honour (a later
// phase, a later task of the same sequential phase, the task itself, a
// cycle) are warned at their line and left out of Needs; one inside a
// parallel phase is kept and warned; one on an earlier task is kept quietly.
func TestDependencyOrder(t *testing.T) {
	src := `# P

Run ID: a1b2c3

## Phase 1: One (sequential)

### Task 1.1: A
**Dependencies**: 1.2

### Task 1.2: B
**Dependencies**: 1.1, 1.1

## Phase 2: Two (parallel)

### Task 2.1: C
**Dependencies**: 2.2, 1.2

### Task 2.2: D
**Dependencies**: 2.3

### Task 2.3: E
**Dependencies**: task-2-1, 3.1

### Task 2.4: F
**Dependencies**: 2.4, 2.1

## Phase 3: Three (sequential)

### Task 3.1: G
`
	p, ws := mustParse(t, src)
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{
		"plan.md:8: dependency 1.2 of task 1.1 is a later task of sequential phase 1: phase order cannot honour it; ignored for scheduling",
		"plan.md:16: dependency 2.2 of task 2.1 is in a cycle of tasks 2.1, 2.2, 2.3: ignored for scheduling",
		"plan.md:19: dependency 2.3 of task 2.2 is in a cycle of tasks 2.1, 2.2, 2.3: ignored for scheduling",
		"plan.md:22: dependency 3.1 of task 2.3 is a task of a later phase (3): phase order cannot honour it; ignored for scheduling",
		"plan.md:22: dependency 2-1 of task 2.3 is in a cycle of tasks 2.1, 2.2, 2.3: ignored for scheduling",
		"plan.md:25: dependency 2.4 of task 2.4 is the task itself: ignored for scheduling",
		"plan.md:25: dependency 2.1 of task 2.4 is a task of the same parallel phase 2: 2.4 waits for it rather than start with the phase",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
	needs := func(id string) []string {
		var ids []string
		for _, n := range p.Task(id).Needs {
			ids = append(ids, n.ID)
		}
		return ids
	}
	for id, w := range map[string][]string{"1.1": nil, "1.2": {"1.1"}, "2.1": {"1.2"}, "2.2": nil, "2.3": nil, "2.4": {"2.1"}, "3.1": nil} {
		if g := needs(id); !reflect.DeepEqual(g, w) {
			t.Errorf("%s needs %v, want %v", id, g, w)
		}
	}
	if p.Task("3.1").DepsGiven || !p.Task("2.4").DepsGiven {
		t.Errorf("DepsGiven: 3.1 %v, 2.4 %v", p.Task("3.1").DepsGiven, p.Task("2.4").DepsGiven)
	}
}

// TestDependencyProse: a Dependencies line of prose that names no task
// ("Phase 1 complete", "see above") is not "None": under the deps
// schedule a task with it must not start before the earlier phases, so
// it counts as no line (DepsGiven false) and is warned at its line. None
// and its spellings, and a list that names a task, are given.
func TestDependencyProse(t *testing.T) {
	src := `# P

Run ID: a1b2c3

## Phase 1: One (sequential)

### Task 1.1: A
**Dependencies**: None

### Task 1.2: B
**Dependencies**: N/A

## Phase 2: Two (parallel)

### Task 2.1: C
**Dependencies**: Phase 1 complete

### Task 2.2: D
**Dependencies**: see above

### Task 2.3: E
**Dependencies:**
- All of phase 1

### Task 2.4: F
**Dependencies:**
- Task 1.1 (needs A)

### Task 2.5: G
- **Dependencies**: -

### Task 2.6: H
- **Dependencies**: No dependencies

### Task 2.7: I
- **Dependencies**: No earlier than phase 1's end
`
	p, ws := mustParse(t, src)
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{
		`plan.md:16: the Dependencies of task 2.1 name no task ("Phase 1 complete"): read as no Dependencies line (under schedule deps it waits for every task of the earlier phases)`,
		`plan.md:19: the Dependencies of task 2.2 name no task ("see above"): read as no Dependencies line (under schedule deps it waits for every task of the earlier phases)`,
		`plan.md:23: the Dependencies of task 2.3 name no task ("All of phase 1"): read as no Dependencies line (under schedule deps it waits for every task of the earlier phases)`,
		`plan.md:36: the Dependencies of task 2.7 name no task ("No earlier than phase 1's end"): read as no Dependencies line (under schedule deps it waits for every task of the earlier phases)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
	for id, w := range map[string]bool{"1.1": true, "1.2": true, "2.1": false, "2.2": false, "2.3": false, "2.4": true, "2.5": true, "2.6": true, "2.7": false} {
		if g := p.Task(id).DepsGiven; g != w {
			t.Errorf("%s DepsGiven %v, want %v", id, g, w)
		}
	}
}

// TestDependencyRange: "Tasks 1.1 through 1.3", "1.1 to 1.3", "1.1 – 1.3"
// and "1.1–1.3" name every task from the first to the last in plan order,
// not the first alone (under the deps schedule the task would start once
// 1.1 is done, 1.2 and 1.3 pending).
func TestDependencyRange(t *testing.T) {
	src := `# P

Run ID: a1b2c3

## Phase 1: One (sequential)

### Task 1.1: A
### Task 1.2: B
### Task 1.3: C
### Task 1.4: D

## Phase 2: Two (parallel)

### Task 2.1: E
**Dependencies**: Tasks 1.1 through 1.3

### Task 2.2: F
**Dependencies**: 1.2 to 1.4 (the models)

### Task 2.3: G
**Dependencies**: 1.1 – 1.2, 1.4

### Task 2.4: H
**Dependencies**: task-1-2–task-1-3
`
	p, ws := mustParse(t, src)
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
	for id, w := range map[string][]string{
		"2.1": {"1.1", "1.2", "1.3"},
		"2.2": {"1.2", "1.3", "1.4"},
		"2.3": {"1.1", "1.2", "1.4"},
		"2.4": {"1.2", "1.3"},
	} {
		var g []string
		for _, n := range p.Task(id).Needs {
			g = append(g, n.ID)
		}
		slices.Sort(g)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s needs %v, want %v", id, g, w)
		}
	}
}

// TestDependencyBranchNames: the orchestrators name dependencies as their
// task branches are named after the run id, "task-1-test-fixtures" or
// "task-2-1-user-service": the numbers before the slug are the id. A word
// without the "task-" prefix is not read so ("2-step plan" is prose).
func TestDependencyBranchNames(t *testing.T) {
	for _, c := range []struct {
		v    string
		want []string
	}{
		{"task-1-test-fixtures, task-2-test-scenarios, task-3-testing-skill", []string{"1", "2", "3"}},
		{"task-2-1-user-service", []string{"2-1"}},
		{"`task-1-1-create-schema`", []string{"1-1"}},
		{"task-1.2", []string{"1.2"}},
		{"task-setup", nil},
		{"2-step plan", nil},
		{"task-01-x", nil},
	} {
		got, _ := dependencyIDs(c.v)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("dependencyIDs(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}
