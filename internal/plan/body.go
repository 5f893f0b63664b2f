package plan

import (
	"strings"
)

// This file reads the body of a task, the lines under its heading: its
// Complexity and Dependencies lines and its bullets.

// dependencyValue recognises a task's Dependencies line ("Depends on" too).
func dependencyValue(l string) (string, bool) {
	if v, ok := labelValue(l, "dependencies"); ok {
		return v, true
	}
	return labelValue(l, "depends", "on")
}

// branchID is the id of a dependency written as a task branch is named
// after "task-": "1-test-fixtures" and "2-1-user-service" name tasks 1 and
// 2-1 (the orchestrators write Dependencies so, as
// "task-1-test-fixtures"). The id is the dash-joined numbers before the
// first part that is not one; "" when there is none or it is invalid.
func branchID(w string) string {
	parts := strings.Split(w, "-")
	n := 0
	for n < len(parts) && parts[n] != "" && strings.Trim(parts[n], "0123456789") == "" {
		n++
	}
	if n == 0 || n == len(parts) {
		return ""
	}
	if id := strings.Join(parts[:n], "-"); ValidTaskID(id) {
		return id
	}
	return ""
}

// dependencyIDs collects the task ids a Dependencies value names, as
// written: "1-1, 1-2", "Task 1.1 (needs models)", "[task-1-2, task-1-3]",
// "Tasks 1.1 and 1.2". In each comma-separated item the ids come first;
// prose after them is ignored, and an item that starts with a word ("None",
// "see above") names nothing. A range ("1.1 through 1.3", "1.1 to 1.3",
// "1.1 - 1.3", "1.1–1.3") gives its two ends as ids and as a range, which
// the parser fills with the tasks between once the plan is read: taking
// the first end alone would let a task start before the others.
func dependencyIDs(v string) (ids []string, ranges [][2]string) {
	id := func(w string) string {
		w = strings.Trim(w, "[]`*_\"'")
		branch := hasPrefixFold(w, "task-")
		if branch {
			w = w[len("task-"):]
		}
		w = strings.TrimRight(w, ".:)")
		if !ValidTaskID(w) {
			if branch {
				return branchID(w)
			}
			return ""
		}
		return w
	}
	for _, item := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		// An en or em dash joining two ids is a range, as the words are.
		item = strings.NewReplacer("–", " – ", "—", " – ").Replace(item)
		words := strings.Fields(item)
		for i := 0; i < len(words); i++ {
			w := strings.Trim(words[i], "[]`*_\"'")
			if asciiEqualFold(w, "task") || asciiEqualFold(w, "tasks") || w == "and" || w == "&" || w == "" {
				continue
			}
			from := id(w)
			if from == "" {
				break
			}
			ids = append(ids, from)
			if i+2 < len(words) && isRangeWord(words[i+1]) {
				to := words[i+2]
				if asciiEqualFold(to, "task") && i+3 < len(words) {
					to, i = words[i+3], i+1
				}
				if to = id(to); to != "" {
					ids = append(ids, to)
					ranges = append(ranges, [2]string{from, to})
					i += 2
				}
			}
		}
	}
	return ids, ranges
}

// isRangeWord is a word that joins the two ends of a range of tasks.
func isRangeWord(w string) bool {
	switch strings.ToLower(w) {
	case "through", "thru", "to", "-", "–", "—", "..":
		return true
	}
	return false
}

// taskBody reads a line under a task heading: Complexity and Dependencies
// lines, the bullets of a Dependencies list, and every bullet as Meta.
func (p *parser) taskBody(num int, l string) error {
	t := p.task
	item, isItem := bulletItem(l)
	if p.depList != nil {
		switch {
		case isItem:
			// The list's first item tells whether it names tasks; later
			// items may be other bullets of the task (Files).
			p.depsValue(num, item, p.depListFirst)
			p.depListFirst = false
		case trimBlank(l) != "":
			p.depList = nil
		}
	}
	if v, ok := dependencyValue(l); ok {
		if v == "" {
			p.depList, p.depListFirst = t, true
		} else {
			p.depList = nil
			p.depsValue(num, v, true)
		}
	} else if v, ok := labelValue(l, "complexity"); ok && t.Size == "" && t.Estimate == "" {
		if size, est, ok := complexity(v); ok {
			t.Size, t.Estimate = size, est
		}
	}
	p.taskFiles(l, item, isItem)
	if isItem && item != "" {
		t.Meta = append(t.Meta, item)
	}
	return nil
}

// depsValue reads a Dependencies value (or an item of its list). A value
// that names tasks, or says there are none, gives the task its line
// (DepsGiven); prose that names no task ("Phase 1 complete", "see above")
// does not: under the deps schedule a task without a line waits for every
// earlier phase, and reading such prose as "None" would start it before
// them. It is warned when first, so that the author writes the ids.
func (p *parser) depsValue(num int, v string, first bool) {
	ids, ranges := dependencyIDs(v)
	p.addDeps(num, ids)
	for _, r := range ranges {
		p.depRanges = append(p.depRanges, depRange{from: r[0], to: r[1], path: p.path, line: num, task: p.task})
	}
	switch {
	case len(ids) > 0 || saysNone(v):
		p.task.DepsGiven = true
	case first:
		p.warnf(num, "the Dependencies of task %s name no task (%q): read as no Dependencies line (under schedule deps it waits for every task of the earlier phases)", p.task.ID, strings.TrimSpace(v))
	}
}

// saysNone is a Dependencies value that says the task needs nothing, by
// its first word: "None", "None (foundation task)", "none.", "N/A", "-",
// "Nothing", "No dependencies"; an empty list "[]" too.
func saysNone(v string) bool {
	f := strings.Fields(v)
	if len(f) == 0 {
		return true
	}
	w := strings.ToLower(strings.Trim(f[0], "[]()`*_\"'.,;:-—–"))
	switch w {
	case "", "none", "n/a", "na", "nothing", "independent":
		return true
	case "no":
		// "No dependencies", not "No earlier than phase 2".
		return len(f) > 1 && hasPrefixFold(strings.Trim(f[1], "*_`.,;:"), "dep")
	}
	return false
}

// depRange is a range of tasks a Dependencies line names ("1.1 through
// 1.3"): its ends are dependencies already; the tasks between them are
// added once every task is read (fillRanges).
type depRange struct {
	from, to string
	path     string
	line     int
	task     *Task
}

// fillRanges adds, for each range, the tasks between its ends in plan
// order as dependencies named at its line. A range whose ends the plan
// lacks, or that runs backwards, adds nothing (an unknown end is warned).
func (p *parser) fillRanges() {
	var order []*Task
	for _, ph := range p.plan.Phases {
		order = append(order, ph.Tasks...)
	}
	for _, r := range p.depRanges {
		from, to := p.tasks[CanonicalID(r.from)], p.tasks[CanonicalID(r.to)]
		if from == nil || to == nil {
			continue
		}
		in := false
		for _, t := range order {
			if t == to {
				break
			}
			if in {
				r.task.DependsOn = append(r.task.DependsOn, t.ID)
				p.deps = append(p.deps, dependency{t.ID, r.path, r.line, r.task})
			}
			in = in || t == from
		}
	}
}

// dependency is one id a task's Dependencies line names, kept with its line
// so that an id the plan lacks can be reported once every file is read.
type dependency struct {
	id   string
	path string
	line int
	task *Task // the task whose line names it
}

func (p *parser) addDeps(num int, ids []string) {
	for _, id := range ids {
		p.task.DependsOn = append(p.task.DependsOn, id)
		p.deps = append(p.deps, dependency{id, p.path, num, p.task})
	}
}
