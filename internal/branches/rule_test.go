package branches_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
)

const (
	b11 = "x1y2z3-task-1-1-schema"
	b12 = "x1y2z3-task-1-2-deps"
	b21 = "x1y2z3-task-2-1-users"
	b22 = "x1y2z3-task-2-2-products"
)

type ruleCase struct {
	name   string
	plan   string // defaults to stdPlan
	in     branches.Input
	want   map[string]want // tasks left out are pending with no branch
	doubts []string        // task ids that must carry a doubt
	landed map[string]string
}

func TestDecide(t *testing.T) {
	cases := []ruleCase{
		{
			name: "linear stack, one commit each",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c1"), br(b12, "c2"), br(b21, "c3")},
				Walk: history("c1:B", "c2:c1", "c3:c2")},
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", b11},
				"1.2": {branches.Completed, 1, "1.1", b12},
				"2.1": {branches.Completed, 1, "1.2", b21},
			},
		},
		{
			name: "several commits of its own",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c2"), br(b12, "c5")},
				Walk: history("c1:B", "c2:c1", "c3:c2", "c4:c3", "c5:c4")},
			want: map[string]want{
				"1.1": {branches.Completed, 2, "", b11},
				"1.2": {branches.Completed, 3, "1.1", b12},
			},
		},
		{
			// Two branches at one commit and nothing names either task:
			// neither counts the commits, and both say why.
			name: "two tasks at one commit, no evidence",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c2"), br(b12, "c2")},
				Walk: history("c1:B", "c2:c1")},
			want: map[string]want{
				"1.1": {branches.Empty, 0, "", b11},
				"1.2": {branches.Empty, 0, "", b12},
			},
			doubts: []string{"1.1", "1.2"},
		},
		{
			// The same, with subjects: the commits are 2.1's, whichever
			// branch was made at its tip.
			name: "two tasks at one commit, the subjects decide",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c2"), br(b21, "c2")},
				Walk: history("c1:B|[Task 2.1] User service", "c2:c1|[Task 2.1] User service tests")},
			want: map[string]want{
				"1.1": {branches.Empty, 0, "", b11},
				"2.1": {branches.Completed, 2, "", b21},
			},
		},
		{
			name: "stacked against plan order: any task's tip is a stack parent",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c2"), br(b21, "c1")},
				Walk: history("c1:B", "c2:c1")},
			want: map[string]want{
				"1.1": {branches.Completed, 1, "2.1", b11},
				"2.1": {branches.Completed, 1, "", b21},
			},
		},
		{
			// 2.1 made at 2.2's finished tip with no work of its own.
			name: "a branch made on another task's tip is empty",
			in: branches.Input{Branches: []branches.Branch{br(b22, "c1"), br(b21, "c1")},
				Walk: history("c1:B|[Task 2.2] Product service")},
			want: map[string]want{
				"2.1": {branches.Empty, 0, "", b21},
				"2.2": {branches.Completed, 1, "", b22},
			},
		},
		{
			name: "a merge of the base into a task branch is no work",
			in: branches.Input{Branches: []branches.Branch{br(b11, "c1"), br(b12, "m")},
				Walk: history("c1:B", "m:c1,B2|Merge branch 'main' into x1y2z3-task-1-2-deps")},
			want: map[string]want{
				"1.1": {branches.Completed, 1, "", b11},
				"1.2": {branches.Empty, 0, "1.1", b12},
			},
		},
		{
			// 2.2 made at 2.1's first tip, then 2.1 amended: the old commit
			// on 2.2 names 2.1, so it is not 2.2's work.
			name: "an amended predecessor leaves nothing to the empty task",
			in: branches.Input{Branches: []branches.Branch{br(b21, "c1b"), br(b22, "c1a")},
				Walk: history("c1b:B|[Task 2.1] User service", "c1a:B|[Task 2.1] User service")},
			want: map[string]want{
				"2.1": {branches.Completed, 1, "", b21},
				"2.2": {branches.Empty, 0, "", b22},
			},
		},
		{
			// An agent fast-forwarded its task branch to a newer main and
			// crashed: main's commits are someone else's.
			name: "synced with the default branch: its commits are not the task's",
			in: branches.Input{Branches: []branches.Branch{br(b21, "m2")},
				Walk:        history("m2:m1|Fix the login page", "m1:B|[Task 2.1] Token cache"),
				DefaultHeld: map[string]bool{"m1": true, "m2": true}},
			want: map[string]want{"2.1": {branches.Empty, 0, "", b21}},
		},
		{
			// The default branch's commits count when they name the task by
			// id and whole title.
			name: "a default-branch commit that names the task by its whole title",
			in: branches.Input{Branches: []branches.Branch{br(b21, "m1")},
				Walk:        history("m1:B|[Task 2.1] User service"),
				DefaultHeld: map[string]bool{"m1": true}},
			want: map[string]want{"2.1": {branches.Completed, 1, "", b21}},
		},
		{
			// The base holds 1.1's tip (fast-forwarded into <run>-main), and
			// its commits there name it. 1.2's branch, made on <run>-main
			// afterwards with nothing of its own, is not done.
			name: "fast-forwarded into the run's base",
			in: branches.Input{Branches: []branches.Branch{br(b11, "L1"), br(b12, "L1")},
				Landed: history("L1:L0|[Task 1.1] Create database schema", "L0:S|plan: add the plan")},
			want: map[string]want{
				"1.1": {branches.Landed, 0, "", b11},
				"1.2": {branches.Empty, 0, "", b12},
			},
			landed: map[string]string{"1.1": "commit L1 base"},
		},
		{
			name: "merged into the base by a merge commit naming the branch",
			in: branches.Input{Branches: []branches.Branch{br(b12, "X")},
				Landed: history("M:L0,X|Merge branch 'x1y2z3-task-1-2-deps' into x1y2z3-main", "L0:S|other")},
			want:   map[string]want{"1.2": {branches.Landed, 0, "", b12}},
			landed: map[string]string{"1.2": "merge M base"},
		},
		{
			name: "a pull-request merge names the branch with its slash parts",
			in: branches.Input{
				Landed: history("M:L0,X|Merge pull request #7 from someone/x1y2z3-task-2-2-products/v2")},
			want:   map[string]want{"2.2": {branches.Landed, 0, "", ""}},
			landed: map[string]string{"2.2": "merge M base"},
		},
		{
			// Another run's "[Task 4] Add tests" on main: not this run's
			// "Add integration tests"; the whole title lands task 4.
			name: "on the default branch only the id and every word of the title land a task",
			plan: throughPlan,
			in: branches.Input{BaseShared: true,
				Landed: history("L2:L1|[Task 3] Add tests", "L1:L0|[Task 4] Constitution Documentation Updates")},
			want:   map[string]want{"4": {branches.Landed, 0, "", ""}},
			landed: map[string]string{"4": "commit L1 base"},
		},
		{
			// A stack rebased onto main with its branches deleted; the base
			// is <run>-main, so main's commits are searched as shared ones.
			name: "a stack landed on the default branch by rebase",
			in: branches.Input{
				LandedDefault: history("D4:D3|[Task 2.2] Product service", "D3:D2|[Task 2.1] User service",
					"D2:D1|[Task 1.2] Install dependencies", "D1:D0|[Task 1.1] Create database schema")},
			want: map[string]want{
				"1.1": {branches.Landed, 0, "", ""}, "1.2": {branches.Landed, 0, "", ""},
				"2.1": {branches.Landed, 0, "", ""}, "2.2": {branches.Landed, 0, "", ""},
			},
			landed: map[string]string{"1.1": "commit D1 default", "2.2": "commit D4 default"},
		},
		{
			name: "trailers name the task",
			in: branches.Input{Landed: []branches.CommitInfo{
				{OID: "T1", Parents: []string{"S"}, Subject: "squashed", RunIDs: []string{run}, TaskIDs: []string{"2-1"}},
				{OID: "T2", Parents: []string{"S"}, Subject: "[Task 2.2] Product service", RunIDs: []string{"aaaaaa"}, TaskIDs: []string{"2.2"}},
			}},
			want:   map[string]want{"2.1": {branches.Landed, 0, "", ""}},
			landed: map[string]string{"2.1": "commit T1 base"},
		},
		{
			// Provenance beats words: another run's task branch merged into
			// main brings that run's "[Task 1.1] ...", whatever its title,
			// on the base and on the default branch alike.
			name: "another run's merge brings its own task's commit",
			in: branches.Input{BaseShared: true,
				Landed: history("M:L0,b1|Merge branch 'bbbbbb-task-1-1-schema'", "b1:L0|[Task 1.1] Create database schema", "L0:S"),
				LandedDefault: history("D:D0,d1|Merge pull request #3 from owner/cccccc-main",
					"d1:D0|[Task 1.2] Install dependencies", "D0:S")},
		},
		{
			// The run's base merged main, which holds another run's merge:
			// the innermost merge naming a run's branch decides.
			name: "another run's merge inside a merge of main",
			in: branches.Input{
				Landed: history("A:L0,M|Merge branch 'main' into x1y2z3-main", "M:m0,b1|Merge branch 'bbbbbb-task-1-1-schema'",
					"b1:m0|[Task 1.1] Create database schema", "m0:S", "L0:S")},
		},
		{
			// A commit's own Run-Id trailer is provenance too.
			name: "this run's trailers in another run's merge",
			in: branches.Input{BaseShared: true, Landed: []branches.CommitInfo{
				{OID: "M", Parents: []string{"L0", "b1"}, Subject: "Merge branch 'bbbbbb-task-1-1-schema'"},
				{OID: "b1", Parents: []string{"L0"}, Subject: "[Task 1.1] Create database schema", RunIDs: []string{run}, TaskIDs: []string{"1.1"}},
				{OID: "L0", Parents: []string{"S"}, Subject: "other"},
			}},
			want:   map[string]want{"1.1": {branches.Landed, 0, "", ""}},
			landed: map[string]string{"1.1": "commit b1 base"},
		},
		{
			// This run's merge of its own branch still lands it, and the
			// commit it brought still names the task.
			name: "this run's merge on a shared base",
			in: branches.Input{BaseShared: true,
				Landed: history("M:L0,a1|Merge branch 'x1y2z3-main'", "a1:L0|[Task 1.1] Create database schema", "L0:S")},
			want:   map[string]want{"1.1": {branches.Landed, 0, "", ""}},
			landed: map[string]string{"1.1": "commit a1 base"},
		},
		{
			// 1.1's branch merged another run's task branch: what the merge
			// brought is that run's, so 1.1 has no work, and its branch
			// stays 1.1's (another run's marks say nothing of this plan).
			name: "a task branch that merged another run's",
			in: branches.Input{Branches: []branches.Branch{br(b11, "t")},
				Walk: history("b1:B|[Task 1.1] Create database schema", "t:B,b1|Merge branch 'bbbbbb-task-1-1-schema' into x1y2z3-task-1-1-schema")},
			want: map[string]want{"1.1": {branches.Empty, 0, "", b11}},
		},
		{
			// Retries: the task is done when any of its branches holds its
			// work, and that branch is the one counted.
			name: "several branches for one task",
			in: branches.Input{Branches: []branches.Branch{br(b21, "B"), br(b21+"-2", "c1"), br("x1y2z3-task-2.1-retry", "c2")},
				Walk: history("c1:B", "c2:B")},
			want: map[string]want{"2.1": {branches.Completed, 1, "", b21 + "-2"}},
		},
		{
			// A commit's words decide whose work it is (the plan was
			// renumbered between two attempts); the branch keeps its
			// name's task, which has no work of its own there.
			name: "subjects credit another task than the branch name",
			in: branches.Input{Branches: []branches.Branch{br(b21, "c1")},
				Walk: history("c1:B|[Task 2.1] Product service")},
			want: map[string]want{
				"2.1": {branches.Empty, 0, "", b21},
				"2.2": {branches.Completed, 1, "", b21},
			},
		},
		{
			name: "a branch whose subjects name no task of this plan is unknown",
			in: branches.Input{Branches: []branches.Branch{br(b21, "c1")},
				Walk: history("c1:B|[Task 3.1] Git-spice concurrent safety")},
		},
		{
			// <run>-main, when not the base, bounds the tasks' work.
			name: "the run's own branch bounds a task branch made on it",
			in: branches.Input{Branches: []branches.Branch{br(b12, "r2")}, Bounds: []string{"r2"},
				Walk: history("r2:r1", "r1:B|[Task 1.1] Create database schema")},
			want: map[string]want{"1.2": {branches.Empty, 0, "", b12}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.plan
			if src == "" {
				src = stdPlan
			}
			p := mustPlan(t, src)
			in := tc.in
			in.Run, in.Plan = run, p
			v := branches.Decide(in)
			checkStates(t, p, v, tc.want)
			for _, id := range tc.doubts {
				if s := stateOf(v, id); s == nil || len(s.Doubts) == 0 {
					t.Errorf("task %s: no doubt reported", id)
				}
			}
			for id, w := range tc.landed {
				s := stateOf(v, id)
				if s == nil || s.Landed == nil {
					t.Errorf("task %s: no landing, want %s", id, w)
					continue
				}
				if got := fmt.Sprintf("%s %s %s", s.Landed.How, s.Landed.Commit, s.Landed.Ref); got != w {
					t.Errorf("task %s landed %q, want %q", id, got, w)
				}
			}
		})
	}
}

func stateOf(v branches.Verdict, id string) *branches.TaskState {
	for i := range v.States {
		if v.States[i].Task.ID == id {
			return &v.States[i]
		}
	}
	return nil
}

func TestDecideUnknownBranches(t *testing.T) {
	p := mustPlan(t, stdPlan)
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br("x1y2z3-task-9-1-later", "c1"), br(b21, "c2")},
		Walk:     history("c1:B", "c2:B|[Task 3.1] Git-spice concurrent safety")})
	var got []string
	for _, u := range v.Unknown {
		got = append(got, u.Branch.Name)
	}
	if strings.Join(got, " ") != "x1y2z3-task-2-1-users x1y2z3-task-9-1-later" {
		t.Errorf("unknown branches %v", got)
	}
	for _, s := range v.States {
		if s.Status != branches.Pending {
			t.Errorf("task %s: %s, want pending (unknown branches are never counted)", s.Task.ID, s.Status)
		}
	}
}

// TestDecideCommitOrderIrrelevant: the verdict never depends on the order
// git listed the commits in.
func TestDecideCommitOrderIrrelevant(t *testing.T) {
	p := mustPlan(t, stdPlan)
	bs := []branches.Branch{br(b11, "c1"), br(b12, "c3"), br(b21, "c5")}
	cs := history("c1:B", "c2:c1", "c3:c2", "c4:c3,X", "c5:c4")
	ref := branches.Decide(branches.Input{Run: run, Plan: p, Branches: bs, Walk: cs})
	for shift := 1; shift < len(cs); shift++ {
		rot := append(append([]branches.CommitInfo(nil), cs[shift:]...), cs[:shift]...)
		got := branches.Decide(branches.Input{Run: run, Plan: p, Branches: bs, Walk: rot})
		for i := range got.States {
			g, r := got.States[i], ref.States[i]
			if g.Status != r.Status || g.OwnCommits != r.OwnCommits || g.StackParent != r.StackParent {
				t.Errorf("rotation %d, task %s: %+v, want %+v", shift, g.Task.ID, g, r)
			}
		}
	}
	// c4 is a merge: not work, so 2.1 has one commit of its own.
	if s := ref.States[2]; s.OwnCommits != 1 || s.StackParent != "1.2" {
		t.Errorf("2.1: own %d parent %q, want 1 and 1.2", s.OwnCommits, s.StackParent)
	}
}

// TestDecideLargeSet crosses the 64-commit word boundary of the bit sets.
func TestDecideLargeSet(t *testing.T) {
	p := mustPlan(t, stdPlan)
	var specs []string
	for i := 200; i >= 1; i-- {
		parent := fmt.Sprintf("c%d", i-1)
		if i == 1 {
			parent = "B"
		}
		specs = append(specs, fmt.Sprintf("c%d:%s", i, parent))
	}
	v := branches.Decide(branches.Input{Run: run, Plan: p, Walk: history(specs...), Branches: []branches.Branch{
		br(b11, "c63"), br(b12, "c64"), br(b21, "c130"), br(b22, "c200")}})
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 63, "", b11},
		"1.2": {branches.Completed, 1, "1.1", b12},
		"2.1": {branches.Completed, 66, "1.2", b21},
		"2.2": {branches.Completed, 70, "2.1", b22},
	})
}

func TestStatusDone(t *testing.T) {
	for s, done := range map[branches.Status]bool{branches.Completed: true, branches.Landed: true, branches.Empty: false, branches.Pending: false} {
		if s.Done() != done {
			t.Errorf("%s.Done() = %v", s, !done)
		}
	}
}

// A fresh branch made at another task's finished tip keeps its own name:
// it holds that task's commits, not evidence about itself.
func TestDecideFreshBranchAtAnotherTip(t *testing.T) {
	p := mustPlan(t, stdPlan)
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b11, "c1"), br(b12, "c2"), br(b21, "c2")},
		Walk:     history("c1:B|[Task 1.1] Create database schema", "c2:c1|[Task 1.2] Install dependencies")})
	if v.ByBranch[b21] != "2.1" {
		t.Errorf("%s went to %q, want 2.1", b21, v.ByBranch[b21])
	}
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 1, "", b11},
		"1.2": {branches.Completed, 1, "1.1", b12},
		"2.1": {branches.Empty, 0, "1.1", b21},
	})
	// The same with 1.2's work still without a branch of its own (a
	// sequential task whose branch the orchestrator creates when it ends).
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b11, "c1"), br(b21, "c2")},
		Walk:     history("c1:B|[Task 1.1] Create database schema", "c2:c1|[Task 1.2] Install dependencies")})
	if v.ByBranch[b21] != "2.1" {
		t.Errorf("without 1.2's branch, %s went to %q, want 2.1", b21, v.ByBranch[b21])
	}
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 1, "", b11},
		"1.2": {branches.Completed, 1, "1.1", b21},
		"2.1": {branches.Empty, 0, "1.1", b21},
	})
}

// An attempt that committed once and stopped with work uncommitted is
// interrupted, not done; another branch holding the task's work, or landed
// work, keeps it done and names the attempt as a leftover.
func TestDecideInterrupted(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("c1:B|[Task 2.1] User service", "c2:B|Product service, first part")
	stop := map[string]string{b22: "worktree w holds uncommitted changes"}
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b22, "c2")}, Walk: walk, Interrupted: stop})
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Completed, 1, "", b21},
		"2.2": {branches.Interrupted, 1, "", b22},
	})
	if got := v.States[3].Interrupted; got != stop[b22] {
		t.Errorf("2.2's Interrupted = %q, want %q", got, stop[b22])
	}
	if v.States[3].Status.Done() {
		t.Errorf("interrupted counts as done")
	}

	// A retry that stopped, beside the branch that holds the finished work.
	retry := b22 + "-2"
	walk = history("c1:B|[Task 2.2] Product service", "c3:B|Product service again")
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b22, "c1"), br(retry, "c3")}, Walk: walk,
		Interrupted: map[string]string{retry: "worktree r holds uncommitted changes"}})
	checkStates(t, p, v, map[string]want{"2.2": {branches.Completed, 1, "", b22}})
	if v.States[3].Leftover == "" {
		t.Errorf("the stopped retry beside finished work is not named as a leftover")
	}

	// Landed work wins over what an attempt left.
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b22, "c2")}, Walk: history("c2:B|more"),
		Landed:      history("m:B,x|Merge branch '" + b22 + "' into x1y2z3-main"),
		Interrupted: map[string]string{b22: "worktree w holds uncommitted changes"}})
	if st := v.States[3]; st.Status != branches.Landed || st.Leftover == "" {
		t.Errorf("landed task with a stopped attempt: status %s, leftover %q; want landed with a leftover", st.Status, st.Leftover)
	}
}

// What a clean discarded (a deleted task branch's saved tip) is no task's
// work, even on another task's branch made at that tip; a branch of the
// same name holding the tip again (--undo) takes it back.
func TestDecideDiscarded(t *testing.T) {
	p := mustPlan(t, stdPlan)
	for _, subject := range []string{"[Task 2.1] User service", "Add user model"} {
		walk := history("c1:B|" + subject)
		gone := []branches.Discard{{Name: b21, OID: "c1", Stamp: "s"}}
		v := branches.Decide(branches.Input{Run: run, Plan: p,
			Branches: []branches.Branch{br(b22, "c1")}, Walk: walk, Discarded: gone})
		checkStates(t, p, v, map[string]want{"2.2": {branches.Empty, 0, "", b22}})
		if len(v.States[3].Doubts) == 0 || !strings.Contains(v.States[3].Doubts[0], "deleted so that its task runs again") {
			t.Errorf("%q: 2.2's doubts %q do not name the discarded branch", subject, v.States[3].Doubts)
		}
		v = branches.Decide(branches.Input{Run: run, Plan: p,
			Branches: []branches.Branch{br(b21, "c1"), br(b22, "c1")}, Walk: walk, Discarded: gone})
		if v.States[2].Status == branches.Pending || v.States[2].Status == branches.Empty && subject[0] == '[' {
			t.Errorf("%q: after --undo 2.1 is %s, want its work back", subject, v.States[2].Status)
		}
	}
}

// A branch named for one task whose commits name another is reported.
func TestDecideMismatched(t *testing.T) {
	p := mustPlan(t, stdPlan)
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1")}, Walk: history("c1:B|[Task 2.1] Product service")})
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Empty, 0, "", b21},
		"2.2": {branches.Completed, 1, "", b21},
	})
	if len(v.Mismatched) != 1 || v.Mismatched[0].Branch != b21 || v.Mismatched[0].Task != "2.1" || strings.Join(v.Mismatched[0].Work, ",") != "2.2" {
		t.Errorf("Mismatched = %+v, want %s named for 2.1 with work of 2.2", v.Mismatched, b21)
	}
}

// A tip already in the base is behind a tip whose commits leave the base
// right at it; one the other's commits do not start from stays unknown.
func TestRelateAtBase(t *testing.T) {
	walk := history("c1:B|one", "c2:c1|two")
	for _, c := range []struct{ a, b, want string }{
		{"B", "c2", "behind"},
		{"c2", "B", "ahead"},
		{"A", "c2", "differs"},
		{"c1", "c2", "behind"},
		{"c2", "c2", "same"},
	} {
		if got := branches.Relate(walk, c.a, c.b); got != c.want {
			t.Errorf("Relate(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

// Deleting the top of a stack discards what that branch added, never the
// finished work of the branches below it.
func TestDecideDiscardedStackTop(t *testing.T) {
	p := mustPlan(t, stdPlan)
	for _, subjects := range [][3]string{
		{"[Task 1.1] Create database schema", "[Task 1.2] Install dependencies", "[Task 2.1] User service"},
		{"one", "two", "three"},
	} {
		walk := history("c1:B|"+subjects[0], "c2:c1|"+subjects[1], "c3:c2|"+subjects[2])
		v := branches.Decide(branches.Input{Run: run, Plan: p,
			Branches:  []branches.Branch{br(b11, "c1"), br(b12, "c2")},
			Walk:      walk,
			Discarded: []branches.Discard{{Name: b21, OID: "c3", Stamp: "s"}}})
		checkStates(t, p, v, map[string]want{
			"1.1": {branches.Completed, 1, "", b11},
			"1.2": {branches.Completed, 1, "1.1", b12},
		})
	}
	// A commit naming another task on the deleted branch stays that
	// task's: the user asked for 2.1 to run again, not 1.2.
	walk := history("c1:B|[Task 1.2] Install dependencies", "c2:c1|[Task 2.1] User service")
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b22, "c2")}, Walk: walk,
		Discarded: []branches.Discard{{Name: b21, OID: "c2", Stamp: "s"}}})
	checkStates(t, p, v, map[string]want{
		"1.2": {branches.Completed, 1, "", b22},
		"2.2": {branches.Empty, 0, "", b22},
	})
}

// A second branch of the task at the interrupted tip (a copy, a rename
// left behind) holds nothing more: the task stays interrupted.
func TestDecideInterruptedCopy(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("c1:B|[Task 2.2] Product service, first part")
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b22, "c1"), br(b22+"-2", "c1")}, Walk: walk,
		Interrupted: map[string]string{b22: "worktree w holds uncommitted changes"}})
	if st := v.States[3]; st.Status != branches.Interrupted || st.Leftover != "" {
		t.Errorf("2.2 with a copy of its interrupted branch: %s (leftover %q), want interrupted and no leftover", st.Status, st.Leftover)
	}
	// A copy that went further holds more: that is finished work.
	walk = history("c1:B|[Task 2.2] Product service, first part", "c2:c1|[Task 2.2] Product service, rest")
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b22, "c1"), br(b22+"-2", "c2")}, Walk: walk,
		Interrupted: map[string]string{b22: "worktree w holds uncommitted changes"}})
	if st := v.States[3]; st.Status != branches.Completed || st.Leftover == "" {
		t.Errorf("2.2 with a branch beyond the interrupted one: %s (leftover %q), want completed with a leftover", st.Status, st.Leftover)
	}
}

// A branch that reverts its own commit holds no work.
func TestDecideRevertedOnBranch(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("c1:B|[Task 2.1] User service", "c2:c1|Revert \"[Task 2.1] User service\"")
	v := branches.Decide(branches.Input{Run: run, Plan: p, Branches: []branches.Branch{br(b21, "c2")}, Walk: walk})
	checkStates(t, p, v, map[string]want{"2.1": {branches.Empty, 0, "", b21}})
	if len(v.States[2].Doubts) == 0 || !strings.Contains(v.States[2].Doubts[0], "reverts 1 commit of its own") {
		t.Errorf("doubts %q do not name the revert", v.States[2].Doubts)
	}
	// A revert of another's commit (something it brought in) takes only
	// that away.
	walk = history("c1:B|[Task 2.1] User service", "c2:c1|Revert \"[Task 2.1] User service\"", "c3:c2|[Task 2.1] User service, again")
	v = branches.Decide(branches.Input{Run: run, Plan: p, Branches: []branches.Branch{br(b21, "c3")}, Walk: walk})
	checkStates(t, p, v, map[string]want{"2.1": {branches.Completed, 1, "", b21}})
}

// The next task's branch made at an interrupted task's tip (a sequential
// hand-off) holds nothing more of the interrupted task's than the attempt.
func TestDecideInterruptedHandOff(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("c1:B|[Task 2.1] User service, part one")
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b22, "c1")}, Walk: walk,
		Interrupted: map[string]string{b21: "worktree w holds uncommitted changes"}})
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Interrupted, 1, "", b21},
		"2.2": {branches.Empty, 0, "", b22},
	})
	if v.States[2].InterruptedBranch != b21 {
		t.Errorf("InterruptedBranch = %q, want %s", v.States[2].InterruptedBranch, b21)
	}
	// Once 2.2 commits on top, 2.1 is still interrupted and 2.2 done.
	walk = history("c1:B|[Task 2.1] User service, part one", "c2:c1|[Task 2.2] Product service")
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b22, "c2")}, Walk: walk,
		Interrupted: map[string]string{b21: "worktree w holds uncommitted changes"}})
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Interrupted, 1, "", b21},
		"2.2": {branches.Completed, 1, "2.1", b22},
	})
}

// An attempt is a line of commits: a branch of the task made at the tip of
// its first branch (and a third on the second's) continues that attempt,
// so where the top stopped the task is interrupted, counted on the top. A
// retry made beside the first branch is another attempt, and landed work
// still wins.
func TestDecideInterruptedContinuation(t *testing.T) {
	p := mustPlan(t, stdPlan)
	stop := func(b string) map[string]string { return map[string]string{b: "worktree w holds uncommitted changes"} }
	walk := history("c1:B|[Task 2.1] User service", "c2:c1|More user service", "c3:c2|Even more")
	v := branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b21+"-2", "c2")}, Walk: walk[1:], Interrupted: stop(b21 + "-2")})
	checkStates(t, p, v, map[string]want{"2.1": {branches.Interrupted, 2, "", b21 + "-2"}})
	if st := v.States[2]; st.Leftover != "" || st.InterruptedBranch != b21+"-2" || st.From != "B" {
		t.Errorf("continued attempt: leftover %q, interrupted on %q, from %q; want none, %s-2, B", st.Leftover, st.InterruptedBranch, st.From, b21)
	}
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b21+"-2", "c2"), br(b21+"-3", "c3")}, Walk: walk, Interrupted: stop(b21 + "-3")})
	checkStates(t, p, v, map[string]want{"2.1": {branches.Interrupted, 3, "", b21 + "-3"}})

	// Finished on top: done.
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b21+"-2", "c2")}, Walk: walk[1:]})
	if st := v.States[2]; st.Status != branches.Completed {
		t.Errorf("continued attempt, finished: %s, want completed", st.Status)
	}

	// Another task's branch between them: 2.1-2 continues 2.2's branch,
	// not 2.1's first one.
	walk2 := history("c1:B|[Task 2.1] User service", "c2:c1|[Task 2.2] Product service", "c3:c2|More user service")
	v = branches.Decide(branches.Input{Run: run, Plan: p,
		Branches: []branches.Branch{br(b21, "c1"), br(b22, "c2"), br(b21+"-2", "c3")}, Walk: walk2, Interrupted: stop(b21 + "-2")})
	if st := v.States[2]; st.Status != branches.Completed || st.Leftover == "" {
		t.Errorf("retry on another task's branch: %s (leftover %q), want completed with a leftover", st.Status, st.Leftover)
	}

	// A bound between them (the first branch merged into <run>-main, the
	// retry made from there): the retry starts from the bound.
	walk3 := history("c1:B|[Task 2.1] User service", "m:B,c1|Merge branch '"+b21+"' into x1y2z3-main", "c2:m|More user service")
	v = branches.Decide(branches.Input{Run: run, Plan: p, Bounds: []string{"m"},
		Branches: []branches.Branch{br(b21, "c1"), br(b21+"-2", "c2")}, Walk: walk3, Interrupted: stop(b21 + "-2")})
	if st := v.States[2]; st.Status != branches.Completed {
		t.Errorf("retry from the run's branch: %s, want completed", st.Status)
	}
}
