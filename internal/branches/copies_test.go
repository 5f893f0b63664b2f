package branches_test

import (
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
)

// timed sets the committer time of the walk's commits: id -> seconds.
func timed(cs []branches.CommitInfo, times map[string]int64) []branches.CommitInfo {
	for i := range cs {
		cs[i].Time = times[cs[i].OID]
	}
	return cs
}

// A stack restacked with copies: each branch carries copies (new ids, the
// same patch) of the commits below it, and none names a task. Each piece
// of work is the task's of the branch where it sits lowest: 1.1's branch
// holds only a, 1.2's a and b, 2.1's a, b and c.
func TestDecideRestackedCopies(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("a1:B|Add schema",
		"a2:B|Add schema", "b2:a2|Add deps",
		"a3:B|Add schema", "b3:a3|Add deps", "c3:b3|Add users")
	copies := map[string]string{"a1": "a1", "a2": "a1", "a3": "a1", "b2": "b2", "b3": "b2"}
	in := branches.Input{Run: run, Plan: p, Walk: walk, Copies: copies,
		Branches: []branches.Branch{br(b11, "a1"), br(b12, "b2"), br(b21, "c3")}}
	v := branches.Decide(in)
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 1, "", b11},
		"1.2": {branches.Completed, 1, "", b12},
		"2.1": {branches.Completed, 1, "", b21},
	})
	for _, st := range v.States {
		if len(st.Doubts) > 0 {
			t.Errorf("task %s: doubts %q, want none", st.Task.ID, st.Doubts)
		}
	}
	// Without the copies known, each copy is its branch's work: 1.2 and
	// 2.1 are credited with what 1.1 did (today's rule before copies).
	in.Copies = nil
	v = branches.Decide(in)
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 1, "", b11},
		"1.2": {branches.Completed, 2, "", b12},
		"2.1": {branches.Completed, 3, "", b21},
	})
}

// One commit two branches add alike is one piece of work too: 2.1's
// branch was rebuilt with a copy of 1.2's commit on 1.1's, which 1.2's
// branch holds as it is. The lowest branch holding it is 1.2's.
func TestDecideSharedCommitLowest(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("a:B|Add schema", "b:a|Add deps", "b2:a|Add deps", "c:b2|Add users")
	v := branches.Decide(branches.Input{Run: run, Plan: p, Walk: walk,
		Copies:   map[string]string{"b": "b", "b2": "b"},
		Branches: []branches.Branch{br(b11, "a"), br(b12, "b"), br(b21, "c")}})
	checkStates(t, p, v, map[string]want{
		"1.1": {branches.Completed, 1, "", b11},
		"1.2": {branches.Completed, 1, "1.1", b12},
		"2.1": {branches.Completed, 1, "1.1", b21},
	})
}

// Two branches holding the same pieces of work, copies made at one time:
// nothing says whose they are. The task holding nothing else is not done,
// and a doubt names both tasks.
func TestDecideCopiesTie(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("x1:B|[Task 2.1] User service", "a1:x1|Add users",
		"x2:B|[Task 2.1] User service", "a2:x2|Add users")
	in := branches.Input{Run: run, Plan: p, Walk: walk,
		Copies:   map[string]string{"x1": "x1", "x2": "x1", "a1": "a1", "a2": "a1"},
		Branches: []branches.Branch{br(b21, "a1"), br(b22, "a2")}}
	v := branches.Decide(in)
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Completed, 1, "", b21},
		"2.2": {branches.Empty, 0, "", b22},
	})
	if d := v.States[3].Doubts; len(d) != 1 || !strings.Contains(d[0], "tasks 2.2, 2.1 alike") {
		t.Errorf("2.2 doubts %q, want one naming 2.2 and 2.1", d)
	}
	// The copies were made later than the originals: the piece is the
	// original's, 2.1's; 2.2 holds only copies of it.
	in.Walk = timed(history("x1:B|[Task 2.1] User service", "a1:x1|Add users",
		"x2:B|[Task 2.1] User service", "a2:x2|Add users"), map[string]int64{"x1": 10, "a1": 11, "x2": 20, "a2": 21})
	v = branches.Decide(in)
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Completed, 2, "", b21},
		"2.2": {branches.Empty, 0, "", b22},
	})
	if d := v.States[3].Doubts; len(d) != 0 {
		t.Errorf("2.2 doubts %q, want none", d)
	}
}

// The copies of a named commit on another task's branch say that the
// branch was restacked, not renumbered; a named commit with no copy still
// says renumbered.
func TestDecideMismatchRestacked(t *testing.T) {
	p := mustPlan(t, stdPlan)
	walk := history("a:B|[Task 2.1] User service", "a2:B|[Task 2.1] User service", "b:a2|Add products")
	v := branches.Decide(branches.Input{Run: run, Plan: p, Walk: walk,
		Copies:   map[string]string{"a": "a", "a2": "a"},
		Branches: []branches.Branch{br(b21, "a"), br(b22, "b")}})
	if len(v.Mismatched) != 1 || v.Mismatched[0].Branch != b22 || !v.Mismatched[0].Restacked || strings.Join(v.Mismatched[0].Work, ",") != "2.1" {
		t.Errorf("Mismatched = %+v, want %s restacked with copies of 2.1's", v.Mismatched, b22)
	}
	checkStates(t, p, v, map[string]want{
		"2.1": {branches.Completed, 1, "", b21},
		"2.2": {branches.Completed, 1, "", b22},
	})
	// No copies known: a renumbered plan, maybe.
	v = branches.Decide(branches.Input{Run: run, Plan: p, Walk: walk,
		Branches: []branches.Branch{br(b21, "a"), br(b22, "b")}})
	if len(v.Mismatched) != 1 || v.Mismatched[0].Restacked {
		t.Errorf("Mismatched = %+v, want one, not restacked", v.Mismatched)
	}
}
