package resume

import (
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

func strp(s string) *string { return &s }

// build fills the report from the task states and worktrees.
func (st *State) build(wts []*Worktree, v branches.Verdict) {
	rep := st.Report
	run := rep.RunID
	rep.Worktrees = append(rep.Worktrees, wts...)
	// The rule has the last word on a branch's task: its commits may
	// overrule its name.
	if st.Plan != nil {
		for _, w := range wts {
			if id, ok := v.ByBranch[w.Branch]; ok && w.Branch != "" && !w.Shared && w.Task != "" {
				w.Task = id
				if id == "" {
					w.Task = "?"
				}
			}
		}
	}
	wtByTask := map[string]*Worktree{}
	for _, w := range wts {
		if w.Task != "" && w.Task != "?" {
			if _, dup := wtByTask[w.Task]; !dup {
				wtByTask[w.Task] = w
			}
		}
	}
	for _, mm := range v.Mismatched {
		if st.Plan == nil {
			break
		}
		var works []string
		for _, id := range mm.Work {
			works = append(works, taskLabel(st.Plan, id))
		}
		rep.Problems = append(rep.Problems, Problem{Kind: "branch_names_other_task", Task: mm.Task,
			Message: fmt.Sprintf("branch %s is named for task %s, but its commits name task %s: counted there (was the plan renumbered?)",
				mm.Branch, taskLabel(st.Plan, mm.Task), strings.Join(works, ", "))})
	}
	for _, u := range v.Unknown {
		if st.Plan != nil { // without a plan every branch is unmatched; it is said once below
			rep.Problems = append(rep.Problems, Problem{Kind: "unknown_branch",
				Message: fmt.Sprintf("branch %s is no task's: %s; it is reported, never counted", u.Branch.Name, u.Why)})
		}
	}

	if st.Plan == nil {
		rep.Status = "unknown"
		rep.Problems = append(rep.Problems, Problem{Kind: "no_plan",
			Message: noPlanHint(run, st.planLooked, st) + "; cannot tell what remains"})
		for _, l := range st.planLooked {
			if l == "." {
				l = "the main worktree"
			}
			rep.PlanSearched = append(rep.PlanSearched, l)
		}
		for _, b := range st.TaskBranches {
			rep.UnknownBranches = appendUniq(rep.UnknownBranches, b.Name)
		}
	} else {
		st.buildPhases(wtByTask)
		st.sharedWorkFor()
	}

	done := map[string]bool{}
	for _, s := range st.States {
		if s.Status.Done() {
			done[s.Task.ID] = true
		}
	}
	for _, w := range wts {
		switch {
		case w.Current || w.Main || w.Task == "" || w.Shared || w.Outside:
			// never stale: the worktree we run in, the repository's own
			// checkout, and <run>-main (--all only)
		case w.Unreadable || w.Error != "" && !w.Broken && !w.Symlink:
			// nothing a clean can do: it would skip it; say so instead
			rep.Problems = append(rep.Problems, Problem{Kind: "unreadable_worktree", Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s: %s; it is left alone", w.Path, w.Error)})
		case w.Missing || w.Broken:
			w.Stale = true
		case st.Plan == nil:
			// without a plan nothing else can be called stale
		case w.Task == "?":
			// Not stale: it belongs to no task we know; --all removes it.
			rep.Problems = append(rep.Problems, Problem{Kind: "unknown_worktree",
				Message: fmt.Sprintf("worktree %s matches no task of the plan (git taskclean --all removes it)", w.Path)})
		case st.Claims[w.Task] != nil && !st.Claims[w.Task].Expired:
			// An orchestrator holds the task: its worktree is live work
			// (git taskclean --task or --all still removes it).
		case st.Claims[w.Task] != nil && st.Claims[w.Task].Cached && !done[w.Task]:
			// Expired by this repository's copy, but the claim lives on a
			// remote that was not read: its holder may have renewed it.
			cl := st.Claims[w.Task]
			rep.Problems = append(rep.Problems, Problem{Kind: "claim_not_read", Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s: task %s is claimed on %s by %s, expired by this repository's copy; it is kept until a read with --remote %s shows the claim expired there",
					w.Path, w.TaskID(), cl.Remote, cl.Holder, cl.Remote)})
		case !done[w.Task]:
			// Stale even while a process works in it or an operation is
			// stopped there: the clean then skips it and says why
			// (--ignore-live, or --task, still take it), and the problems
			// below say it first.
			w.Stale = true
			if op := stoppedOp(w); op != "" {
				rep.Problems = append(rep.Problems, Problem{Kind: "stopped_operation", Task: w.TaskID(),
					Message: fmt.Sprintf("worktree %s: a %s stopped there; a plain clean leaves it: finish it, or abort it (git -C %s %s --abort)", w.Path, op, ShellQuote(w.Path), op)})
			}
		}
		if w.Stale && w.Locked {
			rep.Problems = append(rep.Problems, Problem{Kind: "locked_worktree", Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s is stale but locked (%s): unlock it to clean it", w.Path, w.LockText())})
			w.Stale, w.StaleLocked = false, true
		}
		if w.Stale {
			rep.StaleWorktrees = append(rep.StaleWorktrees, w.Path)
		}
		if w.Unreachable > 0 {
			rep.Problems = append(rep.Problems, Problem{Kind: "unreachable_commits", Task: w.TaskID(),
				Message: fmt.Sprintf("worktree %s holds %s on a detached HEAD that no branch has", w.Path, ui.Plural(w.Unreachable, "commit"))})
		}
	}
	if len(rep.StaleWorktrees) > 0 {
		rep.CleanCommand = "git taskclean --run " + run + st.sameReadFlags()
		rep.Problems = append(rep.Problems, Problem{Kind: "stale_worktree",
			Message: fmt.Sprintf("%s: %s", ui.Plural(len(rep.StaleWorktrees), "stale worktree"), rep.CleanCommand)})
	}
}

// taskLabel is a task's id with its title: `2.2 "Cache layer"`.
func taskLabel(p *plan.Plan, id string) string {
	if t := p.Task(id); t != nil {
		return fmt.Sprintf("%s %q", id, t.Title)
	}
	return id
}

// stoppedOp is the operation stopped in a worktree ("" for none; a bisect
// is no edit left half done).
func stoppedOp(w *Worktree) string {
	if w.AdminDir == "" {
		return ""
	}
	op, _ := worktree.InProgress(w.AdminDir)
	if op == "bisect" {
		return ""
	}
	return op
}

func appendUniq(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

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
		out := Phase{Number: ph.Number, Name: ph.Title, Mode: string(ph.Mode), Tasks: []*Task{}}
		doneHere, total := 0, len(ph.Tasks)
		for _, t := range ph.Tasks {
			s := byID[t.ID]
			tk := &Task{ID: t.ID, Name: plan.Slug(t.Title), Title: t.Title, DependsOn: append([]string{}, t.DependsOn...), Status: string(s.Status),
				OwnCommits: s.OwnCommits, StackParent: s.StackParent, Worktree: wtByTask[t.ID], Claim: st.Claims[t.ID]}
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
				rep.Problems = append(rep.Problems, Problem{Kind: "duplicate_branch", Task: t.ID,
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
				rep.Problems = append(rep.Problems, Problem{Kind: "leftover_attempt", Task: t.ID,
					Message: fmt.Sprintf("task %s is done (%s); an attempt stopped mid-way: %s (kept; git taskclean --run %s --completed saves and removes it)",
						t.ID, where, leftover, rep.RunID)})
			}
			for _, d := range s.Doubts {
				rep.Problems = append(rep.Problems, Problem{Kind: "doubtful_work", Task: t.ID,
					Message: fmt.Sprintf("task %s: %s", t.ID, d)})
			}
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
			out.Status = "out_of_scope"
		case complete:
			out.Status = "completed"
		case resumeSet:
			out.Status = "blocked"
		default:
			resumeSet = true
			if doneHere > 0 {
				out.Status = "in_progress"
			} else {
				out.Status = "not_started"
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
	if resumeAt >= 0 {
		rep.Resume = st.resumePoint(st.Plan.Phases[resumeAt], rep.Phases[resumeAt])
	}
	rep.FromPhase = st.fromPhase
	switch {
	case rep.Resume == nil && st.planDoubt != "":
		// Every task of the plan read is done, but a copy of the plan on a
		// diverged history has more: never call unfinished work done.
		rep.Status = "in_progress"
	case rep.Resume == nil:
		rep.Status = "completed"
	case !anyDone:
		rep.Status = "not_started"
	default:
		rep.Status = "in_progress"
		rep.Interrupted = true
	}
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
		if branches.Status(tk.Status).Done() {
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
		st.Report.Problems = append(st.Report.Problems, Problem{Kind: "live_worktree", Task: tk.ID,
			Message: fmt.Sprintf("task %s is %s, but a process works in %s (pid %d: %s): not offered until it stops, and a plain clean leaves it", tk.ID, tk.Status, dir, ps[0].PID, ps[0].Command)})
	}
}

// resumePoint: in a parallel phase every incomplete task runs
// at once; in a sequential one only the first. A task in conflict is never
// runnable: a third branch would only deepen the conflict.
func (st *State) resumePoint(ph *plan.Phase, out Phase) *Resume {
	r := &Resume{Phase: ph.Number, Mode: string(ph.Mode), Kind: "phase_boundary", Tasks: []string{}}
	for _, tk := range out.Tasks {
		if branches.Status(tk.Status).Done() {
			r.Kind = "mid_phase"
		}
	}
	for _, tk := range out.Tasks {
		if branches.Status(tk.Status).Done() {
			continue
		}
		if tk.Live != "" {
			// Someone is still at it: offering it would start a second
			// agent on the same work.
			if ph.Mode == plan.Sequential {
				break
			}
			continue
		}
		tk.Runnable = true
		r.Tasks = append(r.Tasks, tk.ID)
		if ph.Mode == plan.Sequential {
			break
		}
	}
	return r
}

// compareRemote records, per task, how the local branch stands to its
// remote-tracking copy, so that a second machine's work is visible.
func (st *State) compareRemote(run []gitcmd.LogEntry) {
	if len(st.RemoteCopies) == 0 {
		return
	}
	for _, ph := range st.Report.Phases {
		for _, t := range ph.Tasks {
			if t.Branch == nil {
				continue
			}
			rb, ok := st.RemoteCopies[*t.Branch]
			if !ok {
				continue
			}
			if lb, ok := st.behind[*t.Branch]; ok && rb.OID == *t.Commit {
				t.Remote = &RemoteCopy{Ref: strings.TrimPrefix(rb.Ref, "refs/remotes/"), Commit: rb.OID, Relation: "behind"}
				st.Report.Problems = append(st.Report.Problems, Problem{Kind: "remote_differs", Task: t.ID,
					Message: fmt.Sprintf("local %s is behind %s: the remote copy counts (update it: git branch -f %s %s, when nothing checks it out)",
						lb.Name, t.Remote.Ref, lb.Name, t.Remote.Ref)})
				continue
			}
			rel := branches.Relate(run, *t.Commit, rb.OID)
			t.Remote = &RemoteCopy{Ref: strings.TrimPrefix(rb.Ref, "refs/remotes/"), Commit: rb.OID, Relation: rel}
			if rel != "same" {
				st.Report.Problems = append(st.Report.Problems, Problem{Kind: "remote_differs", Task: t.ID,
					Message: fmt.Sprintf("local %s %s %s (%s)", *t.Branch, relText(rel), t.Remote.Ref, relHint(rel))})
			}
		}
	}
}

func relText(rel string) string {
	switch rel {
	case "ahead", "behind":
		return "is " + rel + " of"
	case "diverged":
		return "has diverged from"
	}
	return "differs from"
}

func relHint(rel string) string {
	switch rel {
	case "ahead":
		return "push it"
	case "behind":
		return "pull it"
	}
	return "reconcile them; the local branch is what counts"
}

// sameReadFlags repeats how this report read the run (--plan, --base,
// --remote), so the suggested clean sees the same run.
func (st *State) sameReadFlags() string {
	var b strings.Builder
	for _, f := range [][2]string{{"--plan", st.opts.PlanPath}, {"--base", st.opts.Base}, {"--remote", st.opts.Remote}} {
		if f[1] != "" {
			b.WriteString(" " + f[0] + " " + ShellQuote(f[1]))
		}
	}
	return b.String()
}

// FirstFew names the first three of items and counts the rest, for
// one-line messages.
func FirstFew(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/@:+=-,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
