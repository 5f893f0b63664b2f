package resume

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/taskresume/git-taskresume/internal/ui"
)

// RenderShort writes the run at a glance (--short): the report's first
// line, one line a phase with its counts and the tasks not done, the
// resume line, and one line for the problems and one for the stale
// worktrees when there are any (the full report lists them).
func RenderShort(w io.Writer, rep *Report, style ui.Style) {
	fmt.Fprintln(w, runLine(rep, rep.RunID, rep.Status.paint(style)))
	if n := rep.versionNote(); n != "" {
		fmt.Fprintln(w, style.Warn(n))
	}
	for _, ph := range rep.Phases {
		fmt.Fprintln(w, shortPhaseLine(ph, style))
	}
	fmt.Fprintln(w, resumeLine(rep))
	var kinds []string
	problems := rep.problemsButStale()
	for _, p := range problems {
		if k := style.Warn(string(p.Kind)); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if n := len(problems); n > 0 {
		fmt.Fprintf(w, "%s (%s): see the report without --short.\n", ui.Plural(n, "problem"), strings.Join(kinds, ", "))
	}
	if len(rep.StaleWorktrees) > 0 {
		fmt.Fprintf(w, "%s: %s\n", staleText(len(rep.StaleWorktrees)), rep.CleanCommand)
	}
	// A hint is for the person who reads either form: a run without a
	// plan is where --short says least, and the hint says where one is.
	for _, h := range rep.Hints() {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

// shortPhaseLine is a phase in one line: its heading and status as the
// report writes them, how many of its tasks are done, how many are in
// each status (in the order of AllTaskStatuses), and the ids of those
// not done. A phase out of scope counts as done whatever its tasks are,
// so none of its tasks is listed as left to do.
func shortPhaseLine(ph Phase, style ui.Style) string {
	done := 0
	counts := map[TaskStatus]int{}
	var left []string
	for _, t := range ph.Tasks {
		counts[t.Status]++
		if t.Status.Done() {
			done++
		} else {
			left = append(left, t.ID)
		}
	}
	var by []string
	for _, s := range AllTaskStatuses() {
		if counts[s] > 0 {
			by = append(by, fmt.Sprintf("%d %s", counts[s], s.paint(style)))
		}
	}
	line := fmt.Sprintf("%s: %s, %d/%d done", phaseTitle(ph, ui.Display(ph.Name)), ph.Status.paint(style), done, len(ph.Tasks))
	if len(by) > 0 {
		line += " (" + strings.Join(by, ", ") + ")"
	}
	if len(left) > 0 && ph.Status != PhaseOutOfScope {
		line += "; not done: " + strings.Join(left, ", ")
	}
	return line
}
