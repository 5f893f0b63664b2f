package clean

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
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
	if _, ok := err.(*exit.BadInputError); !ok {
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
	// A live claim of a done task stays: its holder may still be at work
	// (a task is done at its first commit).
	if strings.Join(got, " ") != "2.2" {
		t.Errorf("claims dropped %v, want the expired one only", got)
	}
}

// sharedState is handState plus the run's shared worktree /r/.worktrees/x1-main
// (left on 1.1's branch by the sequential phase, holding uncommitted work)
// and a review checkout /review of 2.1's branch outside the worktree folder,
// which the report calls stale (Select must not trust that alone).
func sharedState() *resume.State {
	st := handState()
	st.Report.Worktrees = append(st.Report.Worktrees,
		&resume.Worktree{Path: "/r/.worktrees/x1-main", Branch: "x1-task-1-1-a", Shared: true, Unstaged: 1, WorkFor: "2.1",
			AdminDir: "/r/.git/worktrees/x1-main"},
		&resume.Worktree{Path: "/review", Task: "2.1", Branch: "x1-task-2-1-b", Outside: true, Stale: true,
			AdminDir: "/r/.git/worktrees/review"})
	main := &branches.Branch{Name: "x1-main", Ref: "refs/heads/x1-main", OID: strings.Repeat("b", 40)}
	st.MainBranch = main
	return st
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestSelectSharedAndOutside(t *testing.T) {
	const shared, review = "/r/.worktrees/x1-main", "/review"
	cases := []struct {
		name      string
		opts      Options
		tasks     []string
		shared    bool // the shared worktree is a target
		outside   bool // the review checkout is a target
		refusal   string
		checkedAt map[string]string // worktree path -> branch it has checked out
	}{
		{name: "default", shared: false, outside: false},
		{name: "--completed", opts: Options{Completed: true}},
		{name: "--task 2.1 (the task whose work the shared worktree holds)", tasks: []string{"2.1"}, outside: true},
		{name: "--task 1.1, whose branch the shared worktree has checked out", tasks: []string{"1.1"},
			checkedAt: map[string]string{shared: "x1-task-1-1-a"},
			refusal:   "refusing to delete branch x1-task-1-1-a is checked out in " + shared + " (it stays); free it with: git -C " + shared + " switch --detach"},
		{name: "--all", opts: Options{All: true}, shared: true, outside: true},
	}
	for _, c := range cases {
		st, obs := sharedState(), emptyObs()
		for p, b := range c.checkedAt {
			obs.Branches[p] = b
		}
		want := map[string]bool{}
		for _, id := range c.tasks {
			want[id] = true
		}
		c.opts.Tasks = c.tasks
		sel, err := Select(st, c.opts, obs, want)
		if c.refusal != "" {
			if err == nil || err.Error() != c.refusal {
				t.Errorf("%s: err %v, want the refusal %q", c.name, err, c.refusal)
			}
			if _, ok := err.(*exit.BadInputError); !ok {
				t.Errorf("%s: refusal is %T, want an input error (exit 2, nothing changed)", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := paths(sel.Targets)
		if contains(got, shared) != c.shared {
			t.Errorf("%s: shared worktree a target: %v, want %v (targets %v)", c.name, !c.shared, c.shared, got)
		}
		if contains(got, review) != c.outside {
			t.Errorf("%s: outside worktree a target: %v, want %v (targets %v)", c.name, !c.outside, c.outside, got)
		}
		for _, s := range sel.Skips {
			if s.Path == shared || s.Path == review {
				t.Errorf("%s: %s is skipped (%s): a worktree that is not selected is no skip", c.name, s.Path, s.Reason)
			}
		}
	}
}

// nestedState: the shared worktree /r/.worktrees/x1-main on branch x1-main
// holds 2.1's worktree (made by an orchestrator working there), which holds
// one more worktree of an unknown task; 2.2's worktree sits beside them.
func nestedState() (*resume.State, Observed) {
	st := sharedState()
	const shared = "/r/.worktrees/x1-main"
	st.Report.Worktrees = st.Report.Worktrees[:len(st.Report.Worktrees)-1] // no review checkout
	st.Report.Worktrees[3].Branch = "x1-main"
	st.Report.Worktrees[1].Path = shared + "/.worktrees/x1-task-2-1"
	st.Report.Worktrees[1].Outside = true
	deep := &resume.Worktree{Path: shared + "/.worktrees/x1-task-2-1/sub/x1-task-9-9", Task: "?", Branch: "x1-task-9-9-z", Outside: true}
	// Listed first: the order Select returns must not come from the
	// report's.
	st.Report.Worktrees = append([]*resume.Worktree{st.Report.Worktrees[3]}, st.Report.Worktrees[:3]...)
	st.Report.Worktrees = append(st.Report.Worktrees, deep)
	obs := emptyObs()
	obs.Inner = map[string][]string{
		shared:                             {shared + "/.worktrees/x1-task-2-1", deep.Path},
		shared + "/.worktrees/x1-task-2-1": {deep.Path},
	}
	obs.Branches[shared] = "x1-main"
	obs.RemovesInWaves = true
	return st, obs
}

func TestSelectNestedRemovedFirst(t *testing.T) {
	const shared = "/r/.worktrees/x1-main"
	const inner, deep = shared + "/.worktrees/x1-task-2-1", shared + "/.worktrees/x1-task-2-1/sub/x1-task-9-9"
	st, obs := nestedState()
	sel, err := Select(st, Options{All: true}, obs, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(sel.Targets)
	want := []string{"/r/.worktrees/x1-task-1-1", "/r/.worktrees/x1-task-2-2", deep, inner, shared}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("--all removes in the order\n%v\nwant each worktree after those inside it, the shared one last:\n%v", got, want)
	}
	var waves [][]string
	for _, w := range sel.Waves() {
		waves = append(waves, paths(w))
	}
	if len(waves) != 3 || strings.Join(waves[0], " ") != "/r/.worktrees/x1-task-1-1 /r/.worktrees/x1-task-2-2 "+deep ||
		strings.Join(waves[1], " ") != inner || strings.Join(waves[2], " ") != shared {
		t.Errorf("waves %q, want [1.1 2.2 deep] [2.1] [shared]", waves)
	}
	for _, tg := range sel.Targets {
		if tg.W.Path == shared && strings.Join(paths(tg.Inner), " ") != inner+" "+deep {
			t.Errorf("the shared worktree's inner targets are %v, want 2.1's and the one inside it", paths(tg.Inner))
		}
	}
	if len(sel.Skips) != 0 {
		t.Errorf("skips %v, want none", sel.Skips)
	}

	// Without a caller that removes in waves, the outer worktrees wait for
	// a rerun; the branch x1-main that the shared worktree then keeps
	// checked out cannot go: refused as a whole.
	st, obs = nestedState()
	obs.RemovesInWaves = false
	_, err = Select(st, Options{All: true}, obs, map[string]bool{})
	if err == nil || !strings.Contains(err.Error(), "branch x1-main is checked out in "+shared) ||
		!strings.Contains(err.Error(), "holds the worktree "+inner+", which this clean removes; run it again") {
		t.Errorf("err %v, want a refusal saying the shared worktree waits for its inner worktree", err)
	}
	// --task names a worktree inside the shared one: it goes alone, the
	// shared worktree is not selected.
	st, obs = nestedState()
	st.Report.Worktrees = st.Report.Worktrees[:len(st.Report.Worktrees)-1]
	obs.Inner = map[string][]string{shared: {inner}}
	sel, err = Select(st, Options{Tasks: []string{"2.1"}}, obs, map[string]bool{"2.1": true})
	if err != nil || strings.Join(paths(sel.Targets), " ") != inner || len(sel.Skips) != 0 {
		t.Errorf("--task 2.1 inside the shared worktree: targets %v, skips %v, err %v; want 2.1's worktree alone", paths(sel.Targets), sel.Skips, err)
	}
}

func TestSelectNestedStaysKeepsOuter(t *testing.T) {
	const shared = "/r/.worktrees/x1-main"
	const inner, deep = shared + "/.worktrees/x1-task-2-1", shared + "/.worktrees/x1-task-2-1/sub/x1-task-9-9"
	st, obs := nestedState()
	st.Report.Worktrees[len(st.Report.Worktrees)-1].Locked = true // the deepest one stays
	// The shared worktree is detached: no branch of its to refuse over.
	st.Report.Worktrees[0].Branch = ""
	st.MainBranch = nil
	sel, err := Select(st, Options{All: true}, obs, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(sel.Targets), " "); got != "/r/.worktrees/x1-task-1-1 /r/.worktrees/x1-task-2-2" {
		t.Errorf("targets %q: a locked worktree inside 2.1's must keep 2.1's and the shared one", got)
	}
	reasons := map[string]string{}
	for _, s := range sel.Skips {
		reasons[s.Path] = s.Reason
	}
	if r := reasons[inner]; !strings.Contains(r, "holds the worktree "+deep+", which stays (locked") {
		t.Errorf("2.1's skip reason %q, want one naming the locked worktree inside it", r)
	}
	if r := reasons[shared]; !strings.Contains(r, "holds the worktree ") || !strings.Contains(r, ", which stays (") {
		t.Errorf("shared skip reason %q, want one naming a worktree inside it that stays, and why", r)
	}
	// 2.1's branch stays checked out in its kept worktree: --all refuses
	// when it has one.
	st, obs = nestedState()
	st.Report.Worktrees[len(st.Report.Worktrees)-1].Locked = true
	obs.Branches[inner] = "x1-task-2-1-b"
	if _, err := Select(st, Options{All: true}, obs, map[string]bool{}); err == nil || !strings.Contains(err.Error(), "x1-task-2-1-b is checked out in "+inner) {
		t.Errorf("err %v, want a refusal for 2.1's branch", err)
	}
}

// An alias (a branch that is a symbolic ref) is held only by a staying
// worktree whose HEAD goes through it, never by one that has its target
// checked out; a plain branch an alias of a staying HEAD points to is held
// as before (git's worktree list names it).
func TestSelectAliasHolders(t *testing.T) {
	withAlias := func() *resume.State {
		st := handState()
		st.MainBranch = &branches.Branch{Name: "x1-main", Ref: "refs/heads/x1-main", OID: strings.Repeat("a", 40), Symref: "refs/heads/main"}
		return st
	}
	// The main worktree /r has main, the alias's target, checked out.
	obs := emptyObs()
	obs.Branches["/r"] = "main"
	sel, err := Select(withAlias(), Options{All: true}, obs, nil)
	if err != nil {
		t.Fatalf("--all with the alias's target checked out in the main worktree: %v, want the alias deleted", err)
	}
	found := false
	for _, bt := range sel.Branches {
		found = found || bt.B.Name == "x1-main"
		if bt.B.Name == "main" {
			t.Errorf("main, the alias's target, is selected for deletion")
		}
	}
	if !found {
		t.Errorf("the alias x1-main is not selected with --all: %v", sel.Branches)
	}

	// A worktree outside the run whose HEAD is the alias itself.
	obs = emptyObs()
	obs.Branches["/elsewhere"] = "main"
	obs.HeadAliases = map[string][]string{"/elsewhere": {"x1-main"}}
	_, err = Select(withAlias(), Options{All: true}, obs, nil)
	var bad *exit.BadInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "x1-main") || !strings.Contains(err.Error(), "/elsewhere") {
		t.Errorf("--all with /elsewhere's HEAD on the alias: err %v, want a refusal naming the alias and the worktree", err)
	}

	// A target that stays at run time keeps the aliases its HEAD goes
	// through: Select hands them over.
	obs = emptyObs()
	obs.HeadAliases = map[string][]string{"/r/.worktrees/x1-task-2-1": {"x1-main"}}
	sel, err = Select(withAlias(), Options{All: true}, obs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range sel.Targets {
		if tg.W.Path == "/r/.worktrees/x1-task-2-1" && strings.Join(tg.aliases, " ") != "x1-main" {
			t.Errorf("target %s carries aliases %v, want [x1-main]", tg.W.Path, tg.aliases)
		}
	}
}
