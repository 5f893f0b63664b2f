package resume

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/taskresume/git-taskresume/internal/ui"
)

// Display makes text from plans, paths and git safe to print: text holding
// a control character (an escape sequence in a title, a newline in a path)
// is shown quoted, as git quotes such paths.
func Display(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(s)
		}
	}
	return s
}

// Style decides colour.
type Style struct{ Color bool }

// StyleForSetting returns the style for writing to f under setting, the
// value of color.<command> or color.ui (ui.ColorSetting): as git, "always"
// colours a pipe too, "never" a terminal neither; otherwise colour is for
// terminals only, and NO_COLOR (any value) or TERM=dumb turn it off.
func StyleForSetting(f *os.File, setting string) Style {
	fi, err := f.Stat()
	return styleFor(setting, err == nil && fi.Mode()&os.ModeCharDevice != 0, os.Getenv("NO_COLOR"), os.Getenv("TERM"))
}

func styleFor(setting string, terminal bool, noColor, term string) Style {
	return Style{Color: ui.Color(setting, terminal, noColor, term)}
}

func (s Style) paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s Style) status(st string) string {
	switch st {
	case "completed", "landed":
		return s.paint("32", st)
	case "empty", "interrupted", "in_progress":
		return s.paint("33", st)
	case "blocked", "out_of_scope":
		return s.paint("2", st)
	}
	return st
}

// Render writes the human report. rel is the directory paths are shown
// relative to ("" for absolute paths).
func Render(w io.Writer, rep *Report, style Style, rel string) {
	path := func(p string) string {
		if rel != "" {
			if r, err := filepath.Rel(rel, p); err == nil && !strings.HasPrefix(r, "..") {
				return Display(r)
			}
		}
		return Display(p)
	}
	fmt.Fprintf(w, "Run %s: %s", rep.RunID, style.status(rep.Status))
	if rep.Plan != nil {
		fmt.Fprintf(w, ", %d/%d tasks, %d/%d phases", rep.CompletedTasks, rep.TotalTasks, rep.PhasesCompleted, rep.PhasesTotal)
	}
	fmt.Fprintln(w)
	// Which copy of the plan and which base were read, and why when it is
	// not the obvious one: a worktree other than the one the command runs
	// in, a base other than the run's own local branch.
	base := fmt.Sprintf("base %s (%s)", rep.Base.Ref, Short(rep.Base.Commit))
	if rep.Base.Why != "" && !(rep.Base.Source == "run-main" && rep.Base.Ref == rep.RunID+"-main") {
		base += ": " + rep.Base.Why
	}
	if rep.Plan != nil {
		where := ""
		if ps := rep.PlanSource; ps != nil && ps.Place == "working_tree" && ps.Worktree != "" && path(ps.Worktree) != "." {
			where = " in " + path(ps.Worktree)
		}
		fmt.Fprintf(w, "plan %s%s, %s\n", *rep.Plan, where, base)
	} else {
		fmt.Fprintln(w, base)
	}

	for _, ph := range rep.Phases {
		fmt.Fprintf(w, "\nPhase %d: %s (%s): %s\n", ph.Number, Display(ph.Name), ph.Mode, style.status(ph.Status))
		for _, t := range ph.Tasks {
			mark := "  "
			if t.Runnable {
				mark = style.paint("1", "->")
			}
			// Padded on the text, not its colour codes, which take no
			// columns on a terminal.
			line := fmt.Sprintf("  %s %-6s %s%s %s", mark, t.ID, style.status(t.Status), pad(t.Status, 11), Display(t.Title))
			if t.Branch != nil {
				line += fmt.Sprintf("  [%s, %s", *t.Branch, ui.Plural(t.OwnCommits, "own commit"))
				if t.CommittedAt != nil {
					line += ", " + ui.When(*t.CommittedAt)
				}
				if t.StackParent != "" {
					line += ", on " + t.StackParent
				}
				line += "]"
			}
			if t.Landed != nil {
				line += "  [" + landingText(t.Landed) + "]"
			}
			if len(t.Duplicates) > 0 {
				line += "  [also: " + strings.Join(t.Duplicates, ", ") + "]"
			}
			if t.Claim != nil {
				state := "until " + ui.When(t.Claim.Expires)
				if t.Claim.Expired {
					state = "expired"
				}
				switch {
				case t.Claim.Cached:
					state += ", on " + Display(t.Claim.Remote) + " as last seen here"
				case t.Claim.Remote != "":
					state += ", on " + Display(t.Claim.Remote)
				}
				holder := Display(t.Claim.Holder)
				if holder == "" {
					holder = "an unknown holder" // a ref not written as a claim
				}
				line += fmt.Sprintf("  [claimed by %s, %s]", holder, state)
			}
			fmt.Fprintln(w, line)
			if t.Interrupted != nil {
				fmt.Fprintf(w, "              interrupted: %s\n", Display(t.Interrupted.Why))
			}
			if t.Worktree != nil {
				fmt.Fprintf(w, "              worktree %s: %s\n", path(t.Worktree.Path), describeWorktree(t.Worktree))
			}
		}
	}

	var others []*Worktree
	for _, wt := range rep.Worktrees {
		if wt.Task == "" || wt.Task == "?" {
			others = append(others, wt)
		}
	}
	if len(others) > 0 {
		fmt.Fprintln(w, "\nOther worktrees of the run:")
		for _, wt := range others {
			fmt.Fprintf(w, "  %s: %s\n", path(wt.Path), describeWorktree(wt))
		}
	}
	if rep.Plan == nil && len(rep.UnknownBranches) > 0 {
		fmt.Fprintln(w, "\nBranches of the run:")
		for _, b := range rep.UnknownBranches {
			fmt.Fprintf(w, "  %s\n", Display(b))
		}
	}

	fmt.Fprintln(w)
	switch {
	case rep.Plan == nil:
		fmt.Fprintln(w, "No plan: cannot tell what remains.")
	case rep.Resume == nil && rep.Status != "completed":
		fmt.Fprintln(w, "Every task of the plan read is done, but the run is not complete: see the problems below.")
	case rep.Resume == nil:
		fmt.Fprintln(w, "Run complete: nothing to resume.")
	default:
		r := rep.Resume
		kind := strings.ReplaceAll(r.Kind, "_", " ")
		switch {
		case len(r.Tasks) == 0:
			fmt.Fprintf(w, "Resume at phase %d (%s, %s): nothing runnable until the conflicts below are resolved.\n", r.Phase, r.Mode, kind)
		case len(r.Tasks) == 1:
			fmt.Fprintf(w, "Resume at phase %d (%s, %s): run task %s.\n", r.Phase, r.Mode, kind, r.Tasks[0])
		default:
			fmt.Fprintf(w, "Resume at phase %d (%s, %s): run tasks %s in parallel.\n", r.Phase, r.Mode, kind, strings.Join(r.Tasks, ", "))
		}
	}
	if rep.LastCommit != nil {
		fmt.Fprintf(w, "Last commit: %s on task %s, %s.\n", Short(rep.LastCommit.Commit), rep.LastCommit.Task,
			ui.When(rep.LastCommit.CommittedAt))
	}
	var notes []Problem
	for _, p := range rep.Problems {
		if p.Kind != "stale_worktree" {
			notes = append(notes, p)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nProblems:")
		for _, p := range notes {
			fmt.Fprintf(w, "  %s: %s\n", style.paint("33", p.Kind), Display(p.Message))
		}
	}
	if len(rep.StaleWorktrees) > 0 {
		its, it := "their", "them"
		if len(rep.StaleWorktrees) == 1 {
			its, it = "its", "it"
		}
		fmt.Fprintf(w, "\n%s stale; to save %s work and remove %s:\n  %s\n",
			ui.Plural(len(rep.StaleWorktrees), "worktree"), its, it, rep.CleanCommand)
	}
}

func describeWorktree(w *Worktree) string {
	var parts []string
	switch w.State {
	case "missing":
		parts = append(parts, "directory missing")
	case "locked":
		parts = append(parts, "locked ("+Display(w.LockText())+")")
	default:
		if w.Staged+w.Unstaged+w.Untracked > 0 {
			parts = append(parts, fmt.Sprintf("dirty (%d staged, %d unstaged, %d untracked)", w.Staged, w.Unstaged, w.Untracked))
		} else if w.State != "unknown" {
			parts = append(parts, "clean")
		}
	}
	if w.Detached {
		parts = append(parts, "detached at "+Short(w.Head))
	} else if w.Branch != "" {
		parts = append(parts, "on "+w.Branch)
	}
	if w.Unreachable > 0 {
		parts = append(parts, ui.Plural(w.Unreachable, "commit")+" on no branch")
	}
	if w.Error != "" {
		parts = append(parts, "unreadable: "+Display(w.Error))
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

// Short abbreviates a commit id for people.
func Short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}
