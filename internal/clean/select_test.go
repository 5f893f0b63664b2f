package clean

import (
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// A hand-built state: tasks 1.1 (done) and 2.1, 2.2 (not done), each with a
// branch and a worktree under /r/.worktrees; the main worktree /r on main.
func handState() *resume.State {
	br := func(name string) *branches.Branch {
		return &branches.Branch{Name: name, Ref: "refs/heads/" + name, OID: strings.Repeat("a", 40)}
	}
	st := &resume.State{Report: &resume.Report{RunID: "x1"}, Claims: map[string]*claims.Claim{}}
	for _, s := range []struct {
		id, branch string
		status     branches.Status
	}{{"1.1", "x1-task-1-1-a", branches.Completed}, {"2.1", "x1-task-2-1-b", branches.Empty}, {"2.2", "x1-task-2-2-c", branches.Empty}} {
		b := br(s.branch)
		st.States = append(st.States, branches.TaskState{Task: &plan.Task{ID: s.id}, Status: s.status, Branch: b})
		st.TaskBranches = append(st.TaskBranches, *b)
		w := &resume.Worktree{Path: "/r/.worktrees/x1-task-" + strings.ReplaceAll(s.id, ".", "-"), Task: s.id,
			Branch: s.branch, Stale: !s.status.Done(), AdminDir: "/r/.git/worktrees/" + s.id}
		st.Report.Worktrees = append(st.Report.Worktrees, w)
		st.AllWorktrees = append(st.AllWorktrees, &worktree.Worktree{Path: w.Path, Branch: "refs/heads/" + s.branch})
	}
	st.AllWorktrees = append(st.AllWorktrees, &worktree.Worktree{Path: "/r", Branch: "refs/heads/main", Main: true})
	return st
}

func emptyObs() Observed {
	return Observed{Live: map[string][]worktree.Proc{}, InProgress: map[string]Operation{}, Modules: map[string][]string{},
		Nested: map[string][]string{}, LastChange: map[string]time.Time{}, Branches: map[string]string{}}
}

func paths(ts []*Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.W.Path)
	}
	return out
}

func TestSelectDefaultTakesStaleOnly(t *testing.T) {
	sel, err := Select(handState(), Options{}, emptyObs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(sel.Targets), " "); got != "/r/.worktrees/x1-task-2-1 /r/.worktrees/x1-task-2-2" {
		t.Errorf("targets %q, want the two stale worktrees", got)
	}
	if len(sel.Branches) != 0 {
		t.Errorf("a default clean deletes branches: %v", sel.Branches)
	}
}

func TestSelectNeverMainOrCurrent(t *testing.T) {
	for _, mark := range []string{"main", "current"} {
		st := handState()
		w := st.Report.Worktrees[1]
		if mark == "main" {
			w.Main = true
		} else {
			w.Current = true
		}
		for _, opts := range []Options{{}, {All: true}, {Completed: true}} {
			obs := emptyObs()
			sel, err := Select(st, opts, obs, map[string]bool{})
			if opts.All {
				// --all must delete 2.1's branch, which the staying
				// worktree has checked out: refused.
				obs.Branches[w.Path] = w.Branch
				if _, err := Select(st, opts, obs, map[string]bool{}); err == nil || !strings.Contains(err.Error(), "switch --detach") {
					t.Errorf("%s, --all: deleting the branch a staying worktree has checked out: err %v, want a refusal naming the command that frees it", mark, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths(sel.Targets) {
				if p == w.Path {
					t.Errorf("%s worktree selected for removal with %+v", mark, opts)
				}
			}
		}
	}
}

func TestSelectSkips(t *testing.T) {
	cases := []struct {
		name string
		set  func(st *resume.State, obs *Observed)
		opts Options
		want string // in the skip reason of 2.1; "" means it is a target
	}{
		{"live process", func(st *resume.State, o *Observed) {
			o.Live["/r/.worktrees/x1-task-2-1"] = []worktree.Proc{{PID: 42, Command: "agent"}}
		}, Options{}, "pid 42"},
		{"live process, --ignore-live", func(st *resume.State, o *Observed) {
			o.Live["/r/.worktrees/x1-task-2-1"] = []worktree.Proc{{PID: 42, Command: "agent"}}
		}, Options{IgnoreLive: true}, ""},
		{"rebase in progress", func(st *resume.State, o *Observed) {
			o.InProgress["/r/.worktrees/x1-task-2-1"] = Operation{Op: "rebase"}
		}, Options{}, "rebase is in progress"},
		{"rebase in progress, named by --task", func(st *resume.State, o *Observed) {
			o.InProgress["/r/.worktrees/x1-task-2-1"] = Operation{Op: "rebase"}
		}, Options{Tasks: []string{"2.1"}}, ""},
		{"submodule repositories", func(st *resume.State, o *Observed) {
			o.Modules["/r/.worktrees/x1-task-2-1"] = []string{"modules/lib"}
		}, Options{All: true}, "submodule"},
		{"holds the git directory", func(st *resume.State, o *Observed) {
			o.Protected = []string{"/r/.worktrees/x1-task-2-1/sub/.git"}
		}, Options{}, "no removal may touch"},
		{"locked", func(st *resume.State, o *Observed) {
			st.Report.Worktrees[1].Locked = true
		}, Options{}, "locked"},
		{"recently changed", func(st *resume.State, o *Observed) {
			o.LastChange["/r/.worktrees/x1-task-2-1"] = time.Unix(1000, 0)
		}, Options{OlderThan: time.Hour, Now: time.Unix(1060, 0)}, "--older-than"},
	}
	for _, c := range cases {
		st, obs := handState(), emptyObs()
		c.set(st, &obs)
		want := map[string]bool{}
		for _, id := range c.opts.Tasks {
			want[id] = true
		}
		sel, err := Select(st, c.opts, obs, want)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		reason := ""
		for _, a := range sel.Skips {
			if a.Path == "/r/.worktrees/x1-task-2-1" && a.Op == OpSkipWorktree {
				reason = a.Reason
			}
		}
		targeted := false
		for _, p := range paths(sel.Targets) {
			targeted = targeted || p == "/r/.worktrees/x1-task-2-1"
		}
		switch {
		case c.want == "" && (!targeted || reason != ""):
			t.Errorf("%s: 2.1 not a target (skip %q)", c.name, reason)
		case c.want != "" && (targeted || !strings.Contains(reason, c.want)):
			t.Errorf("%s: targeted %v, skip reason %q, want one with %q", c.name, targeted, reason, c.want)
		}
	}
}

func TestSelectRefusesBranchOfStayingWorktree(t *testing.T) {
	// --task 2.1 while the main worktree rebases 2.1's branch.
	st, obs := handState(), emptyObs()
	obs.InProgress["/r"] = Operation{Op: "rebase", Branch: "x1-task-2-1-b"}
	_, err := Select(st, Options{Tasks: []string{"2.1"}}, obs, map[string]bool{"2.1": true})
	if err == nil || !strings.Contains(err.Error(), "rebase --abort") {
		t.Fatalf("err %v, want a refusal naming git rebase --abort", err)
	}
	if _, ok := err.(*resume.InputError); !ok {
		t.Errorf("refusal is %T, want an input error (exit 2, nothing changed)", err)
	}
	// The same rebase in 2.1's own worktree, which --task 2.1 removes:
	// no refusal, the branch goes.
	st, obs = handState(), emptyObs()
	obs.InProgress["/r/.worktrees/x1-task-2-1"] = Operation{Op: "rebase", Branch: "x1-task-2-1-b"}
	sel, err := Select(st, Options{Tasks: []string{"2.1"}}, obs, map[string]bool{"2.1": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Branches) != 1 || sel.Branches[0].B.Name != "x1-task-2-1-b" {
		t.Errorf("branches %v, want 2.1's", sel.Branches)
	}
	if len(sel.Targets) != 1 || sel.Targets[0].Op != "rebase" {
		t.Errorf("targets %v, want 2.1's worktree with its rebase to save", paths(sel.Targets))
	}
}

func TestSelectClaims(t *testing.T) {
	st := handState()
	st.Claims["1.1"] = &claims.Claim{Task: "1.1"}
	st.Claims["2.1"] = &claims.Claim{Task: "2.1"}
	st.Claims["2.2"] = &claims.Claim{Task: "2.2", Expired: true}
	sel, err := Select(st, Options{}, emptyObs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range sel.Claims {
		got = append(got, c.Task)
	}
	if strings.Join(got, " ") != "1.1 2.2" {
		t.Errorf("claims dropped %v, want the done task's and the expired one", got)
	}
}
