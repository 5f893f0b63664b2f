package resume

import (
	"slices"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// Schedule is how the resume point is chosen (docs/DESIGN.md, "What runs
// next"): by phases, as the orchestrators run a plan, or by dependencies.
type Schedule string

const (
	// SchedulePhases offers tasks of the first phase not complete only
	// (the default).
	SchedulePhases Schedule = "phases"
	// ScheduleDeps offers every task whose dependencies are done, a task
	// of a later phase too.
	ScheduleDeps Schedule = "deps"
)

// ValidSchedule checks a --schedule value: one line naming both values.
func ValidSchedule(v string) error {
	if v != string(SchedulePhases) && v != string(ScheduleDeps) {
		return exit.BadInput("--schedule %q: want phases (the default: phase by phase) or deps (a task starts once its dependencies are done)", v)
	}
	return nil
}

// scheduleOf is the schedule asked for: the flag, else git config
// taskresume.schedule, else phases. A config value neither names is
// refused as a flag's would be: a scheduler must not guess.
func scheduleOf(flag, config string) (Schedule, error) {
	switch {
	case flag != "":
		return Schedule(flag), ValidSchedule(flag)
	case config == "":
		return SchedulePhases, nil
	case config != string(SchedulePhases) && config != string(ScheduleDeps):
		return "", exit.BadInput("git config taskresume.schedule %q: want phases or deps (or unset it: phases)", config)
	}
	return Schedule(config), nil
}

// schedule decides, for every task not done of the phases in scope, what
// it waits for (WaitsFor) and whether it is offered (Runnable), and
// returns the resume point, nil when every task in scope is done. first
// is the index of the first phase in scope not complete (-1: none).
//
// A dependency counts as done when its task is landed or completed, or
// out of scope (--from-phase). Under phases, a task waits for the
// dependencies the plan honours (plan.Task.Needs); only tasks of the
// first phase not complete are offered: all that wait for nothing in a
// parallel phase, the first not done of a sequential one. Under deps, a
// task waits also for every task of the earlier phases when it has no
// Dependencies line (or one whose ids are all ignored, so that a typo
// never lets it start early), and a task of a sequential phase for the
// task before it; every task in scope that waits for nothing is offered.
// A task someone is at (Live) is never offered.
func (st *State) schedule(first int) *Resume {
	rep := st.Report
	if first < 0 {
		return nil
	}
	type slot struct {
		pt *plan.Task
		tk *Task
		ph int // index in the plan's phases
	}
	var all []slot
	of := map[*plan.Task]*Task{}
	for i, ph := range st.Plan.Phases {
		for j, pt := range ph.Tasks {
			tk := rep.Phases[i].Tasks[j]
			of[pt] = tk
			all = append(all, slot{pt, tk, i})
		}
	}
	inScope := func(i int) bool { return rep.Phases[i].Status != PhaseOutOfScope }
	done := func(pt *plan.Task) bool {
		tk := of[pt]
		return tk == nil || tk.Status.Done() || pt.Phase != nil && st.fromPhase != 0 && pt.Phase.Number < st.fromPhase
	}
	for _, s := range all {
		if !inScope(s.ph) || s.tk.Status.Done() {
			continue
		}
		needs := s.pt.Needs
		if st.Schedule == ScheduleDeps {
			needs = st.depsNeeds(s.pt, s.ph)
		}
		seen := map[*plan.Task]bool{}
		for _, n := range needs {
			if !seen[n] && !done(n) {
				s.tk.WaitsFor = append(s.tk.WaitsFor, n.ID)
			}
			seen[n] = true
		}
	}
	offer := func(s slot) bool { return len(s.tk.WaitsFor) == 0 && s.tk.Live == "" }
	at := first
	var offered []*Task
	if st.Schedule == ScheduleDeps {
		at = -1
		for _, s := range all {
			if inScope(s.ph) && !s.tk.Status.Done() && offer(s) {
				offered = append(offered, s.tk)
				if at < 0 {
					at = s.ph
				}
			}
		}
		if at < 0 {
			at = first
		}
	} else {
		ph := st.Plan.Phases[first]
		for _, tk := range rep.Phases[first].Tasks {
			if tk.Status.Done() {
				continue
			}
			if offer(slot{tk: tk}) {
				offered = append(offered, tk)
			}
			if ph.Mode == plan.Sequential {
				// One at a time: the first not done, or none while it
				// waits or someone is at it.
				break
			}
		}
	}
	ph := st.Plan.Phases[at]
	r := &Resume{Phase: ph.Number, Mode: PhaseMode(ph.Mode), Kind: ResumePhaseBoundary, Tasks: []string{}}
	if st.Schedule == ScheduleDeps {
		r.Schedule = ScheduleDeps
	}
	for _, tk := range rep.Phases[at].Tasks {
		if tk.Status.Done() {
			r.Kind = ResumeMidPhase
		}
	}
	for _, tk := range offered {
		tk.Runnable = true
		r.Tasks = append(r.Tasks, tk.ID)
	}
	return r
}

// depsNeeds is what task t of phase index i waits for under the deps
// schedule: its honoured dependencies, or every task of the earlier
// phases when its plan gives none it honours but named some or gave no
// line; and in a sequential phase, the task before it.
func (st *State) depsNeeds(t *plan.Task, i int) []*plan.Task {
	needs := t.Needs
	if !t.DepsGiven || len(t.DependsOn) > 0 && len(t.Needs) == 0 {
		needs = nil
		for _, ph := range st.Plan.Phases[:i] {
			needs = append(needs, ph.Tasks...)
		}
	}
	if ph := st.Plan.Phases[i]; ph.Mode == plan.Sequential {
		for j := 1; j < len(ph.Tasks); j++ {
			if ph.Tasks[j] == t {
				needs = append(append([]*plan.Task{}, needs...), ph.Tasks[j-1])
			}
		}
	}
	return needs
}

// DoneBy are the checks a claim of task id makes in its own ref
// transaction: each branch that makes a task it waits for done, at the
// commit read. A clean that deleted one of them since (git taskclean
// --task of the dependency) makes the claim fail instead of handing out a
// task whose dependency is gone; a clean that comes after the claim finds
// the claim and refuses (docs/DESIGN.md, "Forced re-execution and its
// dependents"). A task it waits for that landed is done by the base,
// which no clean deletes; a symbolic ref is not checked (it is read
// through, and a check would read the ref itself).
func (st *State) DoneBy(id string) []gitcmd.RefUpdate {
	if st.Plan == nil {
		return nil
	}
	t := st.Plan.Task(id)
	if t == nil {
		return nil
	}
	state := map[string]*branches.TaskState{}
	for i := range st.States {
		state[st.States[i].Task.ID] = &st.States[i]
	}
	var before []*plan.Task
	for i, ph := range st.Plan.Phases {
		at := slices.Index(ph.Tasks, t)
		if at < 0 {
			if st.Schedule != ScheduleDeps {
				// Phase by phase: every task of an earlier phase.
				before = append(before, ph.Tasks...)
			}
			continue
		}
		if st.Schedule == ScheduleDeps {
			before = append(before, st.depsNeeds(t, i)...)
		} else {
			before = append(before, t.Needs...)
			if ph.Mode == plan.Sequential {
				before = append(before, ph.Tasks[:at]...)
			}
		}
		break
	}
	var out []gitcmd.RefUpdate
	seen := map[string]bool{}
	for _, n := range before {
		if n.Phase != nil && st.fromPhase != 0 && n.Phase.Number < st.fromPhase {
			continue // out of scope: done by --from-phase, whatever its branch
		}
		s := state[n.ID]
		if s == nil || s.Status != branches.Completed || s.Branch == nil || s.Branch.Symref != "" || seen[s.Branch.Ref] {
			continue
		}
		seen[s.Branch.Ref] = true
		out = append(out, gitcmd.RefUpdate{Op: "verify", Ref: s.Branch.Ref, Old: s.Branch.OID})
	}
	return out
}
