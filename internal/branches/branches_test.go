package branches_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
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

// taskBranch is the canonical branch of task id in p.
func taskBranch(t *testing.T, p *plan.Plan, id string) string {
	t.Helper()
	tk := p.Task(id)
	if tk == nil {
		t.Fatalf("plan has no task %s", id)
	}
	return plan.BranchName(run, tk)
}

func br(name, oid string) branches.Branch {
	return branches.Branch{Name: name, Ref: "refs/heads/" + name, OID: oid}
}

// graph builds the walk result from "id:parent1,parent2" specs. Parents
// that are not themselves listed stand for commits of the base (the walk
// stops there). The order is reversed so that, like rev-list, children come
// before parents; Decide must not depend on it anyway.
func graph(specs ...string) []gitcmd.Commit {
	cs := make([]gitcmd.Commit, 0, len(specs))
	for i := len(specs) - 1; i >= 0; i-- {
		id, ps, _ := strings.Cut(specs[i], ":")
		c := gitcmd.Commit{OID: id}
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
	Branch      string // name of the single branch, "" for none
}

type decideCase struct {
	name    string
	plan    string            // defaults to stdPlan
	tips    map[string]string // task id -> tip of its canonical branch
	extra   []branches.Branch // more branches (e.g. conflicting ones)
	commits []gitcmd.Commit
	merged  map[string]bool
	want    map[string]want
}

func TestDecide(t *testing.T) {
	cases := []decideCase{
		{
			name:    "linear stack, one commit each",
			tips:    map[string]string{"1.1": "c1", "1.2": "c2", "2.1": "c3"},
			commits: graph("c1:B", "c2:c1", "c3:c2"),
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Completed, 1, "1.1", "1.2"},
				"2.1": {branches.Completed, 1, "1.2", "2.1"},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			name:    "several commits of its own",
			tips:    map[string]string{"1.1": "c2", "1.2": "c5"},
			commits: graph("c1:B", "c2:c1", "c3:c2", "c4:c3", "c5:c4"),
			want: map[string]want{
				"1.1": {branches.Completed, 2, "", "1.1"},
				"1.2": {branches.Completed, 3, "1.1", "1.2"},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			// The anchors' bug: counting 1.2 against the base says 2 commits.
			name:    "branch at the same tip as its predecessor is empty",
			tips:    map[string]string{"1.1": "c2", "1.2": "c2"},
			commits: graph("c1:B", "c2:c1"),
			want: map[string]want{
				"1.1": {branches.Completed, 2, "", "1.1"},
				"1.2": {branches.Empty, 0, "1.1", "1.2"},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			name:    "parallel tasks forking from one point",
			tips:    map[string]string{"1.1": "c1", "1.2": "c2", "2.1": "c3", "2.2": "c4"},
			commits: graph("c1:B", "c2:c1", "c3:c2", "c4:c2"),
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Completed, 1, "1.1", "1.2"},
				"2.1": {branches.Completed, 1, "1.2", "2.1"},
				// 2.1 is nearer in plan order but not an ancestor of c4.
				"2.2": {branches.Completed, 1, "1.2", "2.2"},
			},
		},
		{
			name:    "parallel tasks forking from the base",
			tips:    map[string]string{"2.1": "c1", "2.2": "c2"},
			commits: graph("c1:B", "c2:B"),
			want: map[string]want{
				"1.1": {branches.Pending, 0, "", ""},
				"1.2": {branches.Pending, 0, "", ""},
				"2.1": {branches.Completed, 1, "", "2.1"},
				"2.2": {branches.Completed, 1, "", "2.2"},
			},
		},
		{
			// B is a base commit: the walk never lists it.
			name:    "tip reachable from the base has no own commits",
			tips:    map[string]string{"1.1": "B", "1.2": "c1"},
			commits: graph("c1:B"),
			want: map[string]want{
				"1.1": {branches.Empty, 0, "", "1.1"},
				// 1.1's tip is not in the set: never a stack parent.
				"1.2": {branches.Completed, 1, "", "1.2"},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			name:    "tip unknown to the walk",
			tips:    map[string]string{"1.1": "nowhere"},
			commits: nil,
			want: map[string]want{
				"1.1": {branches.Empty, 0, "", "1.1"},
				"1.2": {branches.Pending, 0, "", ""},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			// c3 merges 1.1 (c1) and 1.2 (c2); 2.1 adds c4 on top. The
			// nearest earlier ancestor tip is 1.2, so 1.1's c1 is 2.1's too.
			name:    "merge commit of two task branches inside the run",
			tips:    map[string]string{"1.1": "c1", "1.2": "c2", "2.1": "c4"},
			commits: graph("c1:B", "c2:B", "c3:c1,c2", "c4:c3"),
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Completed, 1, "", "1.2"},
				"2.1": {branches.Completed, 3, "1.2", "2.1"},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			// 1.2 only merged the base back in: the merge commit is its own.
			name:    "merge of the base into a task branch",
			tips:    map[string]string{"1.1": "c1", "1.2": "m"},
			commits: graph("c1:B", "m:c1,B2"),
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Completed, 1, "1.1", "1.2"},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			name:    "two tasks sharing a tip: the later one is empty",
			tips:    map[string]string{"1.1": "c1", "1.2": "c2", "2.1": "c1"},
			commits: graph("c1:B", "c2:B"),
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Completed, 1, "", "1.2"},
				// 1.2 is nearer but not an ancestor; 1.1 is.
				"2.1": {branches.Empty, 0, "1.1", "2.1"},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			// Only earlier tasks can be stack parents.
			name:    "stacked against plan order",
			tips:    map[string]string{"1.1": "c2", "2.1": "c1"},
			commits: graph("c1:B", "c2:c1"),
			want: map[string]want{
				"1.1": {branches.Completed, 2, "", "1.1"},
				"1.2": {branches.Pending, 0, "", ""},
				"2.1": {branches.Completed, 1, "", "2.1"},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			name:    "merged evidence: pending and empty become merged, completed stays",
			tips:    map[string]string{"1.1": "c1", "1.2": "c1"},
			commits: graph("c1:B"),
			merged:  map[string]bool{"1.1": true, "1.2": true, "2.1": true},
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", "1.1"},
				"1.2": {branches.Merged, 0, "1.1", "1.2"},
				"2.1": {branches.Merged, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
		{
			// A fast-forwarded task branch: its tip is now in the base.
			name:    "merged evidence for a branch the base already holds",
			tips:    map[string]string{"1.1": "B"},
			merged:  map[string]bool{"1.1": true},
			commits: nil,
			want: map[string]want{
				"1.1": {branches.Merged, 0, "", "1.1"},
				"1.2": {branches.Pending, 0, "", ""},
				"2.1": {branches.Pending, 0, "", ""},
				"2.2": {branches.Pending, 0, "", ""},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.plan
			if src == "" {
				src = stdPlan
			}
			p := mustPlan(t, src)
			bs := append([]branches.Branch(nil), tc.extra...)
			for id, tip := range tc.tips {
				bs = append(bs, br(taskBranch(t, p, id), tip))
			}
			m := branches.MatchBranches(run, p, bs)
			if len(m.Unknown) != 0 {
				t.Fatalf("unexpected unknown branches: %v", m.Unknown)
			}
			states := branches.Decide(p, m, tc.commits, tc.merged)
			checkStates(t, p, states, tc.want)
		})
	}
}

func checkStates(t *testing.T, p *plan.Plan, states []branches.TaskState, wants map[string]want) {
	t.Helper()
	tasks := p.Tasks()
	if len(states) != len(tasks) {
		t.Fatalf("Decide returned %d states for %d tasks", len(states), len(tasks))
	}
	for i, st := range states {
		if st.Task != tasks[i] {
			t.Errorf("state %d is for task %v, want plan order (%s)", i, st.Task, tasks[i].ID)
			continue
		}
		w, ok := wants[st.Task.ID]
		if !ok {
			t.Errorf("test case has no expectation for task %s", st.Task.ID)
			continue
		}
		got := want{Status: st.Status, Own: st.OwnCommits, StackParent: st.StackParent}
		if st.Branch != nil {
			got.Branch = st.Branch.Name
		}
		exp := w
		if exp.Branch != "" {
			exp.Branch = taskBranch(t, p, exp.Branch)
		}
		if got != exp {
			t.Errorf("task %s: got %+v, want %+v", st.Task.ID, got, exp)
		}
	}
}

func TestDecideConflict(t *testing.T) {
	p := mustPlan(t, stdPlan)
	a := br(run+"-task-1-1-schema-v2", "c2")
	b := br(taskBranch(t, p, "1.1"), "c1")
	bs := []branches.Branch{a, b, br(taskBranch(t, p, "1.2"), "c2")}
	m := branches.MatchBranches(run, p, bs)
	if got := len(m.ByTask["1.1"]); got != 2 {
		t.Fatalf("1.1 claimed by %d branches, want 2: %v", got, m.ByTask["1.1"])
	}
	commits := graph("c1:B", "c2:c1")
	for _, merged := range []map[string]bool{nil, {"1.1": true}} {
		states := branches.Decide(p, m, commits, merged)
		st := states[0]
		if st.Task.ID != "1.1" || st.Status != branches.Conflict {
			t.Fatalf("merged=%v: task %s status %s, want 1.1 conflict", merged, st.Task.ID, st.Status)
		}
		if st.Branch != nil {
			t.Errorf("conflict must not pick a branch, got %s", st.Branch.Name)
		}
		var names []string
		for _, b := range st.Branches {
			names = append(names, b.Name)
		}
		wantNames := []string{b.Name, a.Name} // name order
		sort.Strings(wantNames)
		if !reflect.DeepEqual(names, wantNames) {
			t.Errorf("conflict branches %v, want %v", names, wantNames)
		}
		if states[1].Status != branches.Completed {
			t.Errorf("1.2 next to a conflict: status %s, want completed", states[1].Status)
		}
		if states[1].StackParent == "1.1" {
			t.Errorf("a task in conflict has no single tip and cannot be a stack parent")
		}
	}
}

func TestDecideCommitOrderIrrelevant(t *testing.T) {
	p := mustPlan(t, stdPlan)
	m := branches.MatchBranches(run, p, []branches.Branch{
		br(taskBranch(t, p, "1.1"), "c1"),
		br(taskBranch(t, p, "1.2"), "c3"),
		br(taskBranch(t, p, "2.1"), "c5"),
	})
	cs := graph("c1:B", "c2:c1", "c3:c2", "c4:c3,X", "c5:c4")
	ref := branches.Decide(p, m, cs, nil)
	for shift := 1; shift < len(cs); shift++ {
		rot := append(append([]gitcmd.Commit(nil), cs[shift:]...), cs[:shift]...)
		got := branches.Decide(p, m, rot, nil)
		for i := range got {
			if got[i].Status != ref[i].Status || got[i].OwnCommits != ref[i].OwnCommits || got[i].StackParent != ref[i].StackParent {
				t.Errorf("rotation %d, task %s: %+v, want %+v", shift, got[i].Task.ID, got[i], ref[i])
			}
		}
	}
	if ref[2].OwnCommits != 2 || ref[2].StackParent != "1.2" {
		t.Errorf("2.1: own %d parent %q, want 2 and 1.2", ref[2].OwnCommits, ref[2].StackParent)
	}
}

// TestDecideLargeSet crosses the 64-commit word boundary of the bit sets.
func TestDecideLargeSet(t *testing.T) {
	p := mustPlan(t, stdPlan)
	var specs []string
	prev := "B"
	for i := 1; i <= 200; i++ {
		id := fmt.Sprintf("c%d", i)
		specs = append(specs, id+":"+prev)
		prev = id
	}
	m := branches.MatchBranches(run, p, []branches.Branch{
		br(taskBranch(t, p, "1.1"), "c63"),
		br(taskBranch(t, p, "1.2"), "c64"),
		br(taskBranch(t, p, "2.1"), "c130"),
		br(taskBranch(t, p, "2.2"), "c200"),
	})
	states := branches.Decide(p, m, graph(specs...), nil)
	checkStates(t, p, states, map[string]want{
		"1.1": {branches.Completed, 63, "", "1.1"},
		"1.2": {branches.Completed, 1, "1.1", "1.2"},
		"2.1": {branches.Completed, 66, "1.2", "2.1"},
		"2.2": {branches.Completed, 70, "2.1", "2.2"},
	})
}

func names(bs []branches.Branch) []string {
	out := []string{}
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

func byTaskNames(m branches.Match) map[string][]string {
	out := map[string][]string{}
	for id, bs := range m.ByTask {
		out[id] = names(bs)
	}
	return out
}

func TestMatchLongestPrefix(t *testing.T) {
	withSub := planWith(t, "1.1: Schema", "1.10: Ten", "1.1.2: Sub")
	withoutSub := planWith(t, "1.1: Schema", "1.10: Ten")
	cases := []struct {
		name   string
		p      *plan.Plan
		branch string
		task   string // "" for unknown
	}{
		{"exact 1.1", withSub, "x1y2z3-task-1-1-schema", "1.1"},
		{"renamed 1.1", withSub, "x1y2z3-task-1-1-old-title", "1.1"},
		{"exact 1.10", withSub, "x1y2z3-task-1-10-ten", "1.10"},
		{"1.10 prefix never 1.1", withSub, "x1y2z3-task-1-10-other", "1.10"},
		{"1.1.2 exact", withSub, "x1y2z3-task-1-1-2-sub", "1.1.2"},
		{"1.1.2 renamed wins over 1.1", withSub, "x1y2z3-task-1-1-2-foo", "1.1.2"},
		{"no 1.1.2 task: belongs to 1.1", withoutSub, "x1y2z3-task-1-1-2-foo", "1.1"},
		{"1.10 without 1.10 task is not 1.1", planWith(t, "1.1: Schema"), "x1y2z3-task-1-10-ten", ""},
		{"no dash after the id", withSub, "x1y2z3-task-1-1", ""},
		{"dashed id alone of a missing task", withSub, "x1y2z3-task-9-9-x", ""},
		{"bare prefix", withSub, "x1y2z3-task-", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := branches.MatchBranches(run, tc.p, []branches.Branch{br(tc.branch, "c1")})
			got := byTaskNames(m)
			if tc.task == "" {
				if len(got) != 0 || !reflect.DeepEqual(names(m.Unknown), []string{tc.branch}) {
					t.Errorf("%s: ByTask %v Unknown %v, want only unknown", tc.branch, got, names(m.Unknown))
				}
				return
			}
			if !reflect.DeepEqual(got, map[string][]string{tc.task: {tc.branch}}) || len(m.Unknown) != 0 {
				t.Errorf("%s: ByTask %v Unknown %v, want task %s", tc.branch, got, names(m.Unknown), tc.task)
			}
		})
	}
}

func TestMatchExactNameWins(t *testing.T) {
	// Task 1.1's own branch name "x1y2z3-task-1-1-2-fix" also starts with
	// 1.1.2's prefix; being exactly 1.1's name, it is 1.1's.
	p := planWith(t, "1.1: 2 fix", "1.1.2: Sub")
	exact := taskBranch(t, p, "1.1")
	if exact != "x1y2z3-task-1-1-2-fix" {
		t.Fatalf("BranchName(1.1) = %q", exact)
	}
	m := branches.MatchBranches(run, p, []branches.Branch{br(exact, "c1"), br("x1y2z3-task-1-1-2-sub", "c2")})
	want := map[string][]string{"1.1": {exact}, "1.1.2": {"x1y2z3-task-1-1-2-sub"}}
	if got := byTaskNames(m); !reflect.DeepEqual(got, want) {
		t.Errorf("ByTask = %v, want %v", got, want)
	}

	// A title with no slug: the branch name is the bare dashed id.
	p = planWith(t, "1.1: 日本語", "1.2: Two")
	bare := taskBranch(t, p, "1.1")
	if bare != "x1y2z3-task-1-1" {
		t.Fatalf("BranchName(1.1) = %q", bare)
	}
	m = branches.MatchBranches(run, p, []branches.Branch{br(bare, "c1")})
	if got := byTaskNames(m); !reflect.DeepEqual(got, map[string][]string{"1.1": {bare}}) {
		t.Errorf("ByTask = %v, want 1.1", got)
	}
}

func TestMatchOtherRunsAndUnknown(t *testing.T) {
	p := mustPlan(t, stdPlan)
	bs := []branches.Branch{
		br("x1y2z3x-task-1-1-a", "c1"),    // another run whose id extends ours
		br("x1y2z3-main", "c1"),           // the run's own branch: not a task
		br("main", "c1"),                  // unrelated
		br("x1y2z3-task-9-1-ghost", "c2"), // our run, no such task
		br("x1y2z3-task-1-1-create-database-schema", "c3"),
		br("x1y2z3-task-1-3-later", "c4"), // our run, no such task
		br("feature/x1y2z3-task-1-1-a", "c5"),
	}
	m := branches.MatchBranches(run, p, bs)
	if got, want := names(m.Unknown), []string{"x1y2z3-task-1-3-later", "x1y2z3-task-9-1-ghost"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Unknown = %v, want %v", got, want)
	}
	if got, want := byTaskNames(m), map[string][]string{"1.1": {"x1y2z3-task-1-1-create-database-schema"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ByTask = %v, want %v", got, want)
	}

	// A nil plan: every branch of the run is unknown.
	m = branches.MatchBranches(run, nil, bs)
	if len(m.ByTask) != 0 || len(m.Unknown) != 3 {
		t.Errorf("nil plan: ByTask %v Unknown %v, want 3 unknown", byTaskNames(m), names(m.Unknown))
	}
}

func TestMatchConflictOrderDeterministic(t *testing.T) {
	p := mustPlan(t, stdPlan)
	bs := []branches.Branch{
		br("x1y2z3-task-1-1-create-database-schema", "c1"),
		br("x1y2z3-task-1-1-zeta", "c2"),
		br("x1y2z3-task-1-1-alpha", "c3"),
		br("x1y2z3-task-1-1-b", "c4"),
		br("x1y2z3-task-7-z", "c5"),
		br("x1y2z3-task-7-a", "c6"),
	}
	wantTask := []string{"x1y2z3-task-1-1-alpha", "x1y2z3-task-1-1-b", "x1y2z3-task-1-1-create-database-schema", "x1y2z3-task-1-1-zeta"}
	wantUnknown := []string{"x1y2z3-task-7-a", "x1y2z3-task-7-z"}
	perm := append([]branches.Branch(nil), bs...)
	for i := 0; i < 24; i++ {
		// a deterministic shuffle per round
		for j := range perm {
			k := (j*7 + i*5 + 3) % len(perm)
			perm[j], perm[k] = perm[k], perm[j]
		}
		in := append([]branches.Branch(nil), perm...)
		m := branches.MatchBranches(run, p, in)
		if got := names(m.ByTask["1.1"]); !reflect.DeepEqual(got, wantTask) {
			t.Fatalf("round %d: 1.1 claimants %v, want %v", i, got, wantTask)
		}
		if got := names(m.Unknown); !reflect.DeepEqual(got, wantUnknown) {
			t.Fatalf("round %d: unknown %v, want %v", i, got, wantUnknown)
		}
		if !reflect.DeepEqual(in, perm) {
			t.Fatalf("round %d: MatchBranches reordered its input", i)
		}
		st := branches.Decide(p, m, nil, nil)
		if st[0].Status != branches.Conflict || !reflect.DeepEqual(names(st[0].Branches), wantTask) {
			t.Fatalf("round %d: Decide 1.1 = %s %v", i, st[0].Status, names(st[0].Branches))
		}
	}
}

func TestStatusDone(t *testing.T) {
	for s, done := range map[branches.Status]bool{
		branches.Completed: true, branches.Merged: true,
		branches.Empty: false, branches.Pending: false, branches.Conflict: false,
	} {
		if s.Done() != done {
			t.Errorf("%s.Done() = %v", s, s.Done())
		}
	}
	if branches.TaskPrefix(run) != "x1y2z3-task-" || branches.MainBranch(run) != "x1y2z3-main" {
		t.Errorf("TaskPrefix/MainBranch = %q %q", branches.TaskPrefix(run), branches.MainBranch(run))
	}
}
