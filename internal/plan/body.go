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

// dependencyIDs collects the task ids a Dependencies value names, as
// written: "1-1, 1-2", "Task 1.1 (needs models)", "[task-1-2, task-1-3]",
// "Tasks 1.1 and 1.2". In each comma-separated item the ids come first;
// prose after them is ignored, and an item that starts with a word ("None",
// "see above") names nothing.
func dependencyIDs(v string) []string {
	var ids []string
	for _, item := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		for _, w := range strings.Fields(item) {
			w = strings.Trim(w, "[]`*_\"'")
			if asciiEqualFold(w, "task") || asciiEqualFold(w, "tasks") || w == "and" || w == "&" || w == "" {
				continue
			}
			if hasPrefixFold(w, "task-") {
				w = w[len("task-"):]
			}
			w = strings.TrimRight(w, ".:)")
			if !ValidTaskID(w) {
				break
			}
			ids = append(ids, w)
		}
	}
	return ids
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
	ids := dependencyIDs(v)
	p.addDeps(num, ids)
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
	case "", "none", "n/a", "na", "nothing", "no", "independent":
		return true
	}
	return false
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
