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
			p.addDeps(num, dependencyIDs(item))
		case trimBlank(l) != "":
			p.depList = nil
		}
	}
	if v, ok := dependencyValue(l); ok {
		t.DepsGiven = true
		if v == "" {
			p.depList = t
		} else {
			p.depList = nil
			p.addDeps(num, dependencyIDs(v))
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
