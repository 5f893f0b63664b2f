package plan

import "github.com/taskresume/git-taskresume/internal/version"

// Mode says whether the tasks of a phase must run one after another or may
// all run at once; the resume point depends on it.
type Mode string

const (
	// Sequential phases run their tasks one at a time, in plan order.
	Sequential Mode = "sequential"
	// Parallel phases may run all their incomplete tasks at once.
	Parallel Mode = "parallel"
)

// Task is one "Task <id>: <title>" heading (or checklist item). It is the
// unit that owns a branch and a worktree.
type Task struct {
	ID        string   // as the plan writes it: "2.1", "1-1", "4"
	Title     string   // without size/time metadata
	Size      string   // "M" from "(M - 2h)", "(M)" or a "**Complexity**: M (4h)" line; "" when absent
	Estimate  string   // "2h"; "" when absent
	DependsOn []string // ids named by a **Dependencies** line (or its bullet list), as written; nil for none / "None"
	// DepsGiven: the task has a Dependencies line, "None" too (a task
	// without one depends, under the deps schedule, on every task of the
	// earlier phases).
	DepsGiven bool
	// Needs are the tasks DependsOn names that scheduling honours, each
	// once, in the order named: not an id the plan lacks, not the task
	// itself, not a task of a later phase or a later task of its own
	// sequential phase, not a dependency in a cycle (each of those is a
	// warning). Set by Parse; nil on a plan built by hand.
	Needs []*Task
	Meta  []string // bullet lines under the task, marker ("- " / "* " / "+ ") stripped, trimmed
	Files []string // paths a Files line (or list, or a checklist's files: field) names; see NamesFile
	Path  string   // file the task was read from (matters for split plans)
	Line  int      // 1-based line of the heading
	Phase *Phase   // the phase that holds it
}

// Phase is one "Phase <n>" heading with the tasks that follow it up to the
// next phase heading.
type Phase struct {
	Number    int
	Title     string // without mode and size/time groups
	Mode      Mode
	ModeGiven bool   // false when neither the heading nor a Strategy line gave one: Sequential + warning
	ModeLine  int    // line the mode was read from (the heading or the Strategy line); 0 when not given
	Estimate  string // "6h" from "Phase 1 (6h)"; "" when absent
	Path      string
	Line      int
	Tasks     []*Task
}

// Plan is a parsed plan. Phases and their tasks are in file order, which is
// the order the resume point is computed in.
type Plan struct {
	Path      string // as given to Parse (the first file for a split plan), used in messages
	RunID     string // "" when the plan names no run: callers take it from the directory
	RunIDLine int
	// Requires is the versions of git-taskresume the plan allows (front
	// matter taskresume-version), its Source the file:line; nil when unset.
	Requires *version.Requirement
	Phases   []*Phase
}

// Tasks returns every task in plan order (phase by phase, each phase in file
// order), so callers never need to walk the phases themselves.
func (p *Plan) Tasks() []*Task {
	n := 0
	for _, ph := range p.Phases {
		n += len(ph.Tasks)
	}
	out := make([]*Task, 0, n)
	for _, ph := range p.Phases {
		out = append(out, ph.Tasks...)
	}
	return out
}

// Task returns the task with that id, written with either separator ("1.1"
// finds "1-1"), or nil. It scans the phases rather than keeping an index so
// that it stays right when a caller builds or edits a Plan by hand (tests do).
func (p *Plan) Task(id string) *Task {
	if !ValidTaskID(id) {
		return nil
	}
	c := CanonicalID(id)
	for _, ph := range p.Phases {
		for _, t := range ph.Tasks {
			if CanonicalID(t.ID) == c {
				return t
			}
		}
	}
	return nil
}
