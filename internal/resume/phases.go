package resume

import (
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// buildPhases fills the report's phases and tasks from the task states,
// the run's status and where it resumes.
func (st *State) buildPhases(wtByTask map[string]*Worktree) {
	rep := st.Report
	rep.FromPhase = 0
	byID := map[string]*branches.TaskState{}
	for i := range st.States {
		byID[st.States[i].Task.ID] = &st.States[i]
	}
	anyDone := false
	resumeSet := false
	resumeAt := -1
	for _, ph := range st.Plan.Phases {
		out := Phase{Number: ph.Number, Name: ph.Title, Mode: PhaseMode(ph.Mode), Tasks: []*Task{}}
		doneHere, total := 0, len(ph.Tasks)
		for _, t := range ph.Tasks {
			s := byID[t.ID]
			tk := st.buildTask(t, s, wtByTask[t.ID])
			if s.Status.Done() {
				doneHere++
				rep.CompletedTasks++
				anyDone = true
			}
			if s.Status == branches.Completed && s.Branch != nil {
				if rep.LastCommit == nil || !s.Branch.CommitTime.Before(rep.LastCommit.CommittedAt) {
					rep.LastCommit = &LastCommit{Commit: s.Branch.OID, Task: t.ID, CommittedAt: s.Branch.CommitTime.UTC()}
				}
			}
			rep.TotalTasks++
			out.Tasks = append(out.Tasks, tk)
		}
		rep.PhasesTotal++
		complete := doneHere == total
		if complete {
			rep.PhasesCompleted++
		}
		inScope := st.fromPhase == 0 || ph.Number >= st.fromPhase
		switch {
		case !inScope:
			out.Status = PhaseOutOfScope
		case complete:
			out.Status = PhaseCompleted
		case resumeSet:
			out.Status = PhaseBlocked
		default:
			resumeSet = true
			if doneHere > 0 {
				out.Status = PhaseInProgress
			} else {
				out.Status = PhaseNotStarted
			}
			resumeAt = len(rep.Phases)
		}
		rep.Phases = append(rep.Phases, out)
	}
	// One look for live processes over every task, then the resume point,
	// which leaves out the tasks someone is still at.
	var all []*Task
	for _, ph := range rep.Phases {
		all = append(all, ph.Tasks...)
	}
	st.markLive(all)
	rep.Resume = st.schedule(resumeAt)
	if st.Schedule == ScheduleDeps {
		// A later phase is not blocked while a task of it may start or
		// has been done.
		for i := range rep.Phases {
			ph := &rep.Phases[i]
			if ph.Status != PhaseBlocked {
				continue
			}
			for _, tk := range ph.Tasks {
				switch {
				case tk.Status.Done():
					ph.Status = PhaseInProgress
				case tk.Runnable && ph.Status == PhaseBlocked:
					ph.Status = PhaseNotStarted
				}
			}
		}
	}
	rep.FromPhase = st.fromPhase
	switch {
	case rep.Resume == nil && st.planDoubt != "":
		// Every task of the plan read is done, but a copy of the plan on a
		// diverged history has more: never call unfinished work done.
		rep.Status = RunInProgress
	case rep.Resume == nil:
		rep.Status = RunCompleted
	case !anyDone:
		rep.Status = RunNotStarted
	default:
		rep.Status = RunInProgress
		rep.Interrupted = true
	}
}

// buildTask is the report's task t, in state s, with its worktree wt,
// and says what is doubtful about it.
func (st *State) buildTask(t *plan.Task, s *branches.TaskState, wt *Worktree) *Task {
	rep := st.Report
	tk := &Task{ID: t.ID, Name: plan.Slug(t.Title), Title: t.Title, DependsOn: append([]string{}, t.DependsOn...), Status: TaskStatus(s.Status),
		OwnCommits: s.OwnCommits, StackParent: s.StackParent, Worktree: wt, Claim: st.ClaimOf(t.ID)}
	if s.Branch != nil {
		tk.Branch = strp(s.Branch.Name)
		tk.Commit = strp(s.Branch.OID)
		tk.Source = s.Branch.Remote
		if !s.Branch.CommitTime.IsZero() {
			ct := s.Branch.CommitTime.UTC()
			tk.CommittedAt = &ct
		}
	}
	tk.Landed = s.Landed
	for _, b := range s.Duplicates {
		tk.Duplicates = append(tk.Duplicates, b.Name)
	}
	if len(s.Duplicates) > 0 {
		counted := "none holds its work"
		if s.Branch != nil && s.OwnCommits > 0 {
			counted = s.Branch.Name + " is counted"
		}
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemDuplicateBranch, Task: t.ID,
			Message: fmt.Sprintf("task %s has other branches: %s (%s)", t.ID, strings.Join(tk.Duplicates, ", "), counted)})
	}
	if s.Status == branches.Interrupted {
		tk.Interrupted = &Interruption{Why: s.Interrupted, Worktree: st.stops[s.InterruptedBranch].path}
	}
	leftover := s.Leftover
	if w := tk.Worktree; leftover == "" && s.Status.Done() && w != nil && !w.Main && !w.Shared && w.Staged+w.Unstaged+w.Untracked > 0 {
		// A retry's worktree beside the finished work, on no
		// branch of the task.
		leftover = fmt.Sprintf("worktree %s holds uncommitted changes (%d staged, %d unstaged, %d untracked)", w.Path, w.Staged, w.Unstaged, w.Untracked)
	}
	if leftover != "" {
		where := "landed"
		if s.Status != branches.Landed {
			where = "on " + s.Branch.Name
		}
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemLeftoverAttempt, Task: t.ID,
			Message: fmt.Sprintf("task %s is done (%s); an attempt stopped mid-way: %s (kept; git taskclean --run %s --completed saves and removes it)",
				t.ID, where, leftover, rep.RunID)})
	}
	for _, d := range s.Doubts {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemDoubtfulWork, Task: t.ID,
			Message: fmt.Sprintf("task %s: %s", t.ID, d)})
	}
	return tk
}

// markLive finds, for the tasks that are not done, whether a process still
// works in their worktree (an agent before its first commit, or one that is
// still at it): such a task is not offered. The worktree this command runs
// in does not count: that is the user, or the agent itself, looking.
func (st *State) markLive(tasks []*Task) {
	var dirs []string
	byDir := map[string]*Task{}
	add := func(tk *Task, dir string) {
		if _, seen := byDir[dir]; !seen && dir != "" {
			dirs = append(dirs, dir)
			byDir[dir] = tk
		}
	}
	for _, tk := range tasks {
		if tk.Status.Done() {
			continue
		}
		if w := tk.Worktree; w != nil && !w.Current && !w.Missing && !w.Symlink && !w.Unreadable && !w.Main {
			add(tk, w.Path)
		}
		if tk.Interrupted != nil && (tk.Worktree == nil || !tk.Worktree.Current) {
			add(tk, tk.Interrupted.Worktree)
		}
	}
	if len(dirs) == 0 {
		return
	}
	procs, ok := worktree.LiveIn(dirs)
	if !ok {
		return
	}
	for _, dir := range dirs {
		ps := procs[dir]
		tk := byDir[dir]
		if len(ps) == 0 || tk.Live != "" {
			continue
		}
		tk.Live = dir
		if tk.Interrupted != nil {
			tk.Interrupted.Live = true
		}
		st.Report.Problems = append(st.Report.Problems, Problem{Kind: ProblemLiveWorktree, Task: tk.ID,
			Message: fmt.Sprintf("task %s is %s, but a process works in %s (pid %d: %s): not offered until it stops, and a plain clean leaves it", tk.ID, tk.Status, dir, ps[0].PID, ps[0].Command)})
	}
}
