package resume

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Render writes the human report. rel is the directory paths are shown
// relative to ("" for absolute paths).
func Render(w io.Writer, rep *Report, style ui.Style, rel string) {
	r := &renderer{w: w, rep: rep, style: style, rel: rel}
	r.header()
	for _, ph := range rep.Phases {
		r.phase(ph)
	}
	r.others()
	fmt.Fprintln(w)
	r.next()
	r.problems()
	r.hints()
}

// hints writes the hints last, as git writes its "hint:" lines.
func (r *renderer) hints() {
	if hs := r.rep.Hints(); len(hs) > 0 {
		fmt.Fprintln(r.w)
		for _, h := range hs {
			fmt.Fprintf(r.w, "hint: %s\n", h)
		}
	}
}

// renderer writes one human report.
type renderer struct {
	w     io.Writer
	rep   *Report
	style ui.Style
	rel   string
}

// path shows p relative to rel when it is below it.
func (r *renderer) path(p string) string {
	if r.rel != "" {
		if rp, err := filepath.Rel(r.rel, p); err == nil && !strings.HasPrefix(rp, "..") {
			return ui.Display(rp)
		}
	}
	return ui.Display(p)
}

// header writes the run's status and counts, then which copy of the plan
// and which base were read.
func (r *renderer) header() {
	w, rep := r.w, r.rep
	fmt.Fprintln(w, runLine(rep, rep.RunID, rep.Status.paint(r.style)))
	if n := rep.versionNote(); n != "" {
		fmt.Fprintln(w, r.style.Warn(n))
	}
	// Which copy of the plan and which base were read, and why when it is
	// not the obvious one: a worktree other than the one the command runs
	// in, a base other than the run's own local branch.
	base := fmt.Sprintf("base %s (%s)", rep.Base.Ref, ui.Short(rep.Base.Commit))
	if rep.Base.Why != "" && !(rep.Base.Source == BaseRunMain && rep.Base.Ref == rep.RunID+"-main") {
		base += ": " + rep.Base.Why
	}
	if rep.Plan != nil {
		where := ""
		if ps := rep.PlanSource; ps != nil && ps.Place == PlanInWorkingTree && ps.Worktree != "" && r.path(ps.Worktree) != "." {
			where = " in " + r.path(ps.Worktree)
		}
		if ps := rep.PlanSource; ps != nil && ps.RunID != "" {
			where += fmt.Sprintf(" (run %s's plan, read for this run: --plan-run-id)", ps.RunID)
		}
		fmt.Fprintf(w, "plan %s%s, %s\n", *rep.Plan, where, base)
	} else {
		fmt.Fprintln(w, base)
	}
	if rep.Replan != nil {
		fmt.Fprintln(w, ui.Display(rep.Replan.Why))
	}
	if rep.RemoteRead != nil {
		fmt.Fprintln(w, rep.RemoteRead.describe())
	}
}

// runLine is the report's first line: the run, its status and its
// counts. The run id and status are given as they are to be written
// (escaped, painted).
func runLine(rep *Report, run, status string) string {
	line := fmt.Sprintf("Run %s: %s", run, status)
	if rep.Plan != nil {
		line += fmt.Sprintf(", %d/%d tasks, %d/%d phases", rep.CompletedTasks, rep.TotalTasks, rep.PhasesCompleted, rep.PhasesTotal)
	}
	return line
}

// phaseTitle is a phase as the report heads it: number, name (as given:
// made safe for where it is written) and mode.
func phaseTitle(ph Phase, name string) string {
	return fmt.Sprintf("Phase %d: %s (%s)", ph.Number, name, ph.Mode)
}

// phase writes a phase and its tasks, each with its interruption and its
// worktree.
func (r *renderer) phase(ph Phase) {
	w := r.w
	fmt.Fprintf(w, "\n%s: %s\n", phaseTitle(ph, ui.Display(ph.Name)), ph.Status.paint(r.style))
	for _, t := range ph.Tasks {
		fmt.Fprintln(w, r.taskLine(t))
		if t.Interrupted != nil {
			fmt.Fprintf(w, "              interrupted: %s\n", ui.Display(t.Interrupted.Why))
		}
		if t.Worktree != nil {
			fmt.Fprintf(w, "              worktree %s: %s\n", r.path(t.Worktree.Path), describeWorktree(t.Worktree))
		}
	}
}

// taskLine is a task's line: whether it runs next, its status and title,
// its branch, how it landed, its other branches, its claim.
func (r *renderer) taskLine(t *Task) string {
	mark := "  "
	if t.Runnable {
		mark = r.style.Strong("->")
	}
	// Padded on the text, not its colour codes, which take no
	// columns on a terminal.
	line := fmt.Sprintf("  %s %-6s %s%s %s", mark, t.ID, t.Status.paint(r.style), pad(string(t.Status), 11), ui.Display(t.Title))
	if t.Branch != nil {
		line += "  [" + *t.Branch + ", " + branchNote(t) + "]"
	}
	for _, n := range taskNotes(t) {
		line += "  [" + n + "]"
	}
	return line
}

// branchNote says what the task's branch holds: its own commits, when the
// last was made, the branch it is stacked on.
func branchNote(t *Task) string {
	note := ui.Plural(t.OwnCommits, "own commit")
	if t.CommittedAt != nil {
		note += ", " + ui.When(*t.CommittedAt)
	}
	if t.StackParent != "" {
		note += ", on " + t.StackParent
	}
	return note
}

// taskNotes are what the report says of a task after its branch: what it
// waits for, how it landed, its other branches, its claim.
func taskNotes(t *Task) []string {
	var notes []string
	if len(t.WaitsFor) > 0 {
		notes = append(notes, "waits for "+strings.Join(t.WaitsFor, ", "))
	}
	if t.Landed != nil {
		notes = append(notes, landingText(t.Landed))
	}
	if len(t.Duplicates) > 0 {
		notes = append(notes, "also: "+strings.Join(t.Duplicates, ", "))
	}
	if t.Claim != nil && t.Claim.Alias != "" {
		notes = append(notes, fmt.Sprintf("held by a symbolic ref to %s on %s", ui.Display(t.Claim.Alias), ui.Display(t.Claim.Remote)))
	} else if t.Claim != nil {
		state := "until " + ui.When(t.Claim.Expires)
		if t.Claim.Expired {
			state = "expired"
		}
		switch {
		case t.Claim.Cached:
			state += ", on " + ui.Display(t.Claim.Remote) + " as last seen here"
		case t.Claim.Remote != "":
			state += ", on " + ui.Display(t.Claim.Remote)
		}
		holder := ui.Display(t.Claim.Holder)
		if holder == "" {
			holder = "an unknown holder" // a ref not written as a claim
		}
		notes = append(notes, fmt.Sprintf("claimed by %s, %s", holder, state))
	}
	return notes
}

// others writes the run's worktrees of no task, and without a plan the
// run's branches.
func (r *renderer) others() {
	w, rep := r.w, r.rep
	var others []*Worktree
	for _, wt := range rep.Worktrees {
		if wt.Task == "" || wt.Task == "?" {
			others = append(others, wt)
		}
	}
	if len(others) > 0 {
		fmt.Fprintln(w, "\nOther worktrees of the run:")
		for _, wt := range others {
			fmt.Fprintf(w, "  %s: %s\n", r.path(wt.Path), describeWorktree(wt))
		}
	}
	if rep.Plan == nil && len(rep.UnknownBranches) > 0 {
		fmt.Fprintln(w, "\nBranches of the run:")
		for _, b := range rep.UnknownBranches {
			fmt.Fprintf(w, "  %s\n", ui.Display(b))
		}
	}
}

// next writes where the run resumes, and its last commit.
func (r *renderer) next() {
	w, rep := r.w, r.rep
	fmt.Fprintln(w, resumeLine(rep))
	if rep.LastCommit != nil {
		fmt.Fprintf(w, "Last commit: %s on task %s, %s.\n", ui.Short(rep.LastCommit.Commit), rep.LastCommit.Task,
			ui.When(rep.LastCommit.CommittedAt))
	}
}

// resumeLine says where the run resumes, or why it does not.
func resumeLine(rep *Report) string {
	switch {
	case rep.Plan == nil:
		return "No plan: cannot tell what remains."
	case rep.Resume == nil && rep.Status != RunCompleted:
		return "Every task of the plan read is done, but the run is not complete: see the problems below."
	case rep.Resume == nil:
		return "Run complete: nothing to resume."
	}
	rs := rep.Resume
	kind := strings.ReplaceAll(string(rs.Kind), "_", " ")
	if rs.Schedule == ScheduleDeps {
		kind += ", schedule deps"
	}
	switch {
	case len(rs.Tasks) == 0:
		return fmt.Sprintf("Resume at phase %d (%s, %s): no task may start now: each one left waits for another or is at work.", rs.Phase, rs.Mode, kind)
	case len(rs.Tasks) == 1:
		return fmt.Sprintf("Resume at phase %d (%s, %s): run task %s.", rs.Phase, rs.Mode, kind, rs.Tasks[0])
	}
	return fmt.Sprintf("Resume at phase %d (%s, %s): run tasks %s in parallel.", rs.Phase, rs.Mode, kind, strings.Join(rs.Tasks, ", "))
}

// problemsButStale are the report's problems without the stale
// worktrees, which every way of writing the report lists apart, with the
// command that cleans them.
func (rep *Report) problemsButStale() []Problem {
	var out []Problem
	for _, p := range rep.Problems {
		if p.Kind != ProblemStaleWorktree {
			out = append(out, p)
		}
	}
	return out
}

// problems writes the problems, then the stale worktrees and the command
// that cleans them.
func (r *renderer) problems() {
	w, rep := r.w, r.rep
	notes := rep.problemsButStale()
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nProblems:")
		for _, p := range notes {
			fmt.Fprintf(w, "  %s: %s\n", r.style.Warn(string(p.Kind)), ui.Display(p.Message))
		}
	}
	if len(rep.StaleWorktrees) > 0 {
		fmt.Fprintf(w, "\n%s:\n  %s\n", staleText(len(rep.StaleWorktrees)), rep.CleanCommand)
	}
}

// staleText says how many worktrees are stale, before the command that
// cleans them.
func staleText(n int) string {
	its, it := "their", "them"
	if n == 1 {
		its, it = "its", "it"
	}
	return fmt.Sprintf("%s stale; to save %s work and remove %s", ui.Plural(n, "worktree"), its, it)
}

// describeWorktree says in words what a worktree holds and how it stands.
func describeWorktree(w *Worktree) string {
	var parts []string
	switch w.State {
	case WorktreeMissing:
		parts = append(parts, "directory missing")
	case WorktreeLocked:
		parts = append(parts, "locked ("+ui.Display(w.LockText())+")")
	default:
		if w.Staged+w.Unstaged+w.Untracked > 0 {
			parts = append(parts, fmt.Sprintf("dirty (%d staged, %d unstaged, %d untracked)", w.Staged, w.Unstaged, w.Untracked))
		} else if w.State != WorktreeUnknown {
			parts = append(parts, "clean")
		}
	}
	if w.Detached {
		parts = append(parts, "detached at "+ui.Short(w.Head))
	} else if w.Branch != "" {
		parts = append(parts, "on "+w.Branch)
	}
	if w.Unreachable > 0 {
		parts = append(parts, ui.Plural(w.Unreachable, "commit")+" on no branch")
	}
	if w.Error != "" {
		parts = append(parts, "unreadable: "+ui.Display(w.Error))
	}
	if w.Bytes > 0 {
		parts = append(parts, ui.Bytes(w.Bytes))
	}
	if w.Current {
		parts = append(parts, "current")
	}
	if w.Stale {
		parts = append(parts, "stale")
	}
	return strings.Join(parts, ", ")
}

// pad is the spaces that take text to width columns.
func pad(text string, width int) string {
	if n := width - len([]rune(text)); n > 0 {
		return strings.Repeat(" ", n)
	}
	return ""
}

// landingText says in words where a task's work landed, and how.
func landingText(l *branches.Landing) string {
	where := "the base"
	if l.Ref == branches.OnDefault {
		where = "the default branch"
	}
	switch l.How {
	case branches.ByMerge:
		return fmt.Sprintf("merged into %s by %s", where, ui.Short(l.Commit))
	case branches.BySquash:
		return fmt.Sprintf("squashed into %s as %s", where, ui.Short(l.Commit))
	}
	return fmt.Sprintf("its commits reached %s (%s)", where, ui.Short(l.Commit))
}

// paint colours a run's status: done green, under way yellow.
func (s RunStatus) paint(style ui.Style) string {
	switch s {
	case RunCompleted:
		return style.Good(string(s))
	case RunInProgress:
		return style.Warn(string(s))
	}
	return string(s)
}

// paint colours a phase's status: done green, under way yellow, not in
// play dim.
func (s PhaseStatus) paint(style ui.Style) string {
	switch s {
	case PhaseCompleted:
		return style.Good(string(s))
	case PhaseInProgress:
		return style.Warn(string(s))
	case PhaseBlocked, PhaseOutOfScope:
		return style.Faint(string(s))
	}
	return string(s)
}

// paint colours a task's status: done green, needing a look yellow.
func (s TaskStatus) paint(style ui.Style) string {
	switch s {
	case TaskCompleted, TaskLanded:
		return style.Good(string(s))
	case TaskEmpty, TaskInterrupted:
		return style.Warn(string(s))
	}
	return string(s)
}
