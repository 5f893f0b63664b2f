package plan

import (
	"strings"
)

// This file reads tasks written as checklist items ("- [ ] **Task 1.1**:
// x"), which are the tasks of a phase that has no task heading.

// checklistItem is a task written as a checklist item; such items are the
// tasks of their phase only when that phase has no task heading
// (adoptChecklist decides, once the whole plan is read).
type checklistItem struct {
	task  *Task
	phase *Phase
}

// checklistTask recognises a task written as a checklist item:
// "- [ ] **Task 1.1**: Title | repo: x | files: y", "- [x] **Task 1.1:** Title"
// or "- [ ] Task 1.1: Title". The title ends at the first " | "; the fields
// after it become the task's Meta.
func checklistTask(l string) (id, title, size, est string, meta []string, ok bool) {
	item, isItem := bulletItem(l)
	if !isItem || len(item) < 4 || item[0] != '[' || item[2] != ']' || !isBlank(item[3]) ||
		(item[1] != ' ' && item[1] != 'x' && item[1] != 'X') {
		return "", "", "", "", nil, false
	}
	s := trimLeft(item[4:])
	if strings.HasPrefix(s, "**") {
		end := strings.Index(s[2:], "**")
		if end < 0 {
			return "", "", "", "", nil, false
		}
		// "**Task 1.1**: x" and "**Task 1.1:** x" both become "Task 1.1: x".
		s = s[2:2+end] + s[2+end+2:]
	}
	kind, token, rest, _ := keywordHeading(s)
	if kind != "task" || !ValidTaskID(token) || rest == "" || rest[0] != ':' {
		return "", "", "", "", nil, false
	}
	fields := strings.Split(rest[1:], " | ")
	for _, f := range fields[1:] {
		if f = trimBlank(f); f != "" {
			meta = append(meta, f)
		}
	}
	title, size, est = taskMeta(trimBlank(fields[0]))
	if title == "" {
		return "", "", "", "", nil, false
	}
	return token, title, size, est, meta, true
}

// adoptChecklist makes the checklist items "- [ ] **Task 1.1**: ..." of
// every phase without a task heading that phase's tasks: a plan may list
// tasks so in all its phases or in some. Dropping them would leave the
// phase empty, and an empty phase reads as complete. A refused task
// heading counts as a heading here: what it refused was meant as one.
func (p *parser) adoptChecklist() {
	anyHeading := p.ntasks > 0 || p.refusedTasks > 0
	for _, c := range p.checks {
		p.path, p.file = c.task.Path, p.fileOf[c.task.Path]
		switch {
		case c.phase == nil && anyHeading:
			continue // an overview list before the phases of a plan with task headings
		case c.phase == nil && p.unread:
			continue // the file not read may hold task headings
		case c.phase == nil:
			p.errorf(c.task.Line, "task %s is outside any phase", c.task.ID)
			continue
		case p.headed[c.phase]:
			continue
		}
		p.addTask(c.phase, c.task)
	}
}
