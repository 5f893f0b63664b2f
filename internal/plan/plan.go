// Package plan reads the Markdown task plan of a run and derives the names
// that git-taskresume and git-taskclean give to its tasks. docs/PLAN-FORMAT.md
// lists every form it accepts.
//
// The parser reads the plan one line at a time and never uses regular
// expressions or backtracking, so its cost stays linear in the size of the
// file: a plan is user input and may be huge or hostile.
package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

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
	Meta      []string // bullet lines under the task, marker ("- " / "* " / "+ ") stripped, trimmed
	Path      string   // file the task was read from (matters for split plans)
	Line      int      // 1-based line of the heading
	Phase     *Phase   // the phase that holds it
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
	Phases    []*Phase
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

// Warning is something in the plan that was accepted but is probably not what
// the author meant (a phase without a mode, a dependency on a task the plan
// does not have). It renders as "path:line: message".
type Warning struct {
	Path string
	Line int
	Msg  string
}

// String renders the warning as "path:line: message", the form editors and
// terminals turn into a link to the line.
func (w Warning) String() string { return position(w.Path, w.Line) + w.Msg }

// Error is a plan the commands cannot trust. Every error Parse returns is an
// *Error, so callers can point the user at the file and line to fix.
type Error struct {
	Path string
	Line int
	Msg  string
}

// Error renders the error as "path:line: message".
func (e *Error) Error() string { return position(e.Path, e.Line) + e.Msg }

// position is the "path:line: " prefix. It degrades gracefully when the path
// or the line is unknown instead of printing ":0:".
func position(path string, line int) string {
	switch {
	case path == "" && line <= 0:
		return ""
	case path == "":
		return "line " + strconv.Itoa(line) + ": "
	case line <= 0:
		return path + ": "
	}
	return path + ":" + strconv.Itoa(line) + ": "
}

// File is one file of a plan split into one file per phase.
type File struct {
	Path string
	Data []byte
}

// Parse parses a plan. path is only used in messages. Errors are *Error; the
// first problem in file order is reported, because later ones are often
// consequences of it. On error the plan is nil and the warnings found so far
// are still returned.
func Parse(path string, data []byte) (*Plan, []Warning, error) {
	return ParseFiles([]File{{Path: path, Data: data}})
}

// ParseFiles reads a split plan: the files in the order given (the caller
// sorts plan-phase1.md, plan-phase2.md, ... by number), as one plan.
// Duplicate phase numbers or task ids across files, and two tasks that get
// the same branch name, are errors naming both places; run ids in two files
// that differ are an error; Plan.Path is files[0].Path.
func ParseFiles(files []File) (*Plan, []Warning, error) {
	if len(files) == 0 {
		return nil, nil, &Error{Msg: "no plan file given"}
	}
	p := &parser{plan: &Plan{Path: files[0].Path}, tasks: map[string]*Task{}, phases: map[int]*Phase{}}
	err := p.parseAll(files)
	sort.SliceStable(p.warnings, func(i, j int) bool {
		a, b := p.warnings[i], p.warnings[j]
		return a.file < b.file || a.file == b.file && a.Line < b.Line
	})
	ws := make([]Warning, len(p.warnings))
	for i, w := range p.warnings {
		ws[i] = w.Warning
	}
	if err != nil {
		return nil, ws, err
	}
	return p.plan, ws, nil
}

type fileWarning struct {
	Warning
	file int // index of the file, to keep warnings in file order
}

// dependency is one id a task's Dependencies line names, kept with its line
// so that an id the plan lacks can be reported once every file is read.
type dependency struct {
	id   string
	path string
	line int
}

// checklistItem is a task written as a checklist item; such items are the
// plan's tasks only when it has no task heading at all.
type checklistItem struct {
	task  *Task
	phase *Phase
}

type parser struct {
	plan     *Plan
	warnings []fileWarning
	tasks    map[string]*Task // by CanonicalID
	phases   map[int]*Phase
	ntasks   int // tasks from headings
	runPath  string
	deps     []dependency
	checks   []checklistItem

	// State of the file being read.
	file    int
	path    string
	phase   *Phase // the phase tasks currently go into
	task    *Task  // the task body lines currently go into; nil after any other heading
	zone    bool   // between a phase heading and its first task: where its Strategy line goes
	depList *Task  // collecting the bullets of an empty "Dependencies:" line
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &Error{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) warnf(line int, format string, args ...any) {
	p.warnings = append(p.warnings, fileWarning{Warning{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)}, p.file})
}

// where names an earlier place for a message: just the line within the same
// file, path and line in another file of a split plan.
func (p *parser) where(path string, line int) string {
	if path == p.path {
		return "line " + strconv.Itoa(line)
	}
	return path + ":" + strconv.Itoa(line)
}

// maxPlanSize bounds what is read: a real plan is well under 1 MiB, and a
// huge one would cost memory out of proportion (about 20 bytes a byte).
const maxPlanSize = 16 << 20

func (p *parser) parseAll(files []File) error {
	size := 0
	for _, f := range files {
		size += len(f.Data)
	}
	if size > maxPlanSize {
		p.path = files[0].Path
		return p.errorf(1, "plan is %.1f MiB; a plan over %d MiB is refused (is this the right file?)", float64(size)/(1<<20), maxPlanSize>>20)
	}
	for i, f := range files {
		p.file, p.path = i, f.Path
		p.phase, p.task, p.zone, p.depList = nil, nil, false, nil
		if err := p.parseFile(f.Data); err != nil {
			return err
		}
	}
	p.file, p.path = 0, files[0].Path
	if err := p.adoptChecklist(); err != nil {
		return err
	}
	if p.ntasks == 0 {
		return p.errorf(1, "empty plan: no task found (want a heading such as \"### Task 1.1: <title>\" or \"## Task 3 - <title>\", or checklist items \"- [ ] **Task 1.1**: <title>\")")
	}
	fileOf := make(map[string]int, len(files))
	for i := len(files) - 1; i >= 0; i-- {
		fileOf[files[i].Path] = i
	}
	for _, ph := range p.plan.Phases {
		p.path, p.file = ph.Path, fileOf[ph.Path]
		if !ph.ModeGiven {
			p.warnf(ph.Line, "phase %d has no mode (add \"(Parallel)\" or \"(Sequential)\" to its heading or a \"**Strategy**: parallel\" line under it); treating it as sequential", ph.Number)
		}
		if len(ph.Tasks) == 0 {
			p.warnf(ph.Line, "phase %d has no tasks", ph.Number)
		}
	}
	for _, d := range p.deps {
		// The map, not Plan.Task: a hostile plan may name many ids in many tasks.
		if p.tasks[CanonicalID(d.id)] == nil {
			p.path, p.file = d.path, fileOf[d.path]
			p.warnf(d.line, "dependency %s names no task of this plan", d.id)
		}
	}
	// Last, once every task is known (checklist tasks included), so that the
	// warnings above still reach the user when the plan is refused.
	return p.checkBranchNames()
}

// adoptChecklist makes the checklist items "- [ ] **Task 1.1**: ..." of
// every phase without a task heading that phase's tasks: a plan may list
// tasks so in all its phases or in some. Dropping them would leave the
// phase empty, and an empty phase reads as complete.
func (p *parser) adoptChecklist() error {
	headed := make(map[*Phase]bool, len(p.plan.Phases))
	for _, ph := range p.plan.Phases {
		headed[ph] = len(ph.Tasks) > 0
	}
	anyHeading := p.ntasks > 0
	for _, c := range p.checks {
		p.path = c.task.Path
		switch {
		case c.phase == nil && anyHeading:
			continue // an overview list before the phases of a plan with task headings
		case c.phase == nil:
			return p.errorf(c.task.Line, "task %s is outside any phase", c.task.ID)
		case headed[c.phase]:
			continue
		}
		if err := p.addTask(c.phase, c.task); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) addTask(ph *Phase, t *Task) error {
	key := CanonicalID(t.ID)
	if first, dup := p.tasks[key]; dup {
		return p.errorf(t.Line, "duplicate task id %s (first at %s)", t.ID, p.where(first.Path, first.Line))
	}
	p.tasks[key] = t
	p.ntasks++
	t.Phase = ph
	ph.Tasks = append(ph.Tasks, t)
	return nil
}

func (p *parser) parseFile(data []byte) error {
	// A UTF-16 file is all NUL bytes to us; say what it is so the fix is obvious.
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return p.errorf(1, "plan is UTF-16 encoded; save it as UTF-8")
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")

	// Refuse binary or mis-encoded input before reading any structure, so a
	// wrong file gets one clear message instead of a misleading syntax error.
	nul, bad := strings.IndexByte(text, 0), firstInvalidUTF8(text)
	switch {
	case nul >= 0 && (bad < 0 || nul < bad):
		return p.errorf(lineAt(text, nul), "plan is not a text file: line holds a NUL byte")
	case bad >= 0:
		return p.errorf(lineAt(text, bad), "plan is not valid UTF-8 text")
	}

	var (
		pre         preamble
		front       int // line of the "---" that opened front matter; 0 outside it
		inFence     bool
		fenceChar   byte
		fenceLen    int
		fenceLine   int
		commentLine int // line of an open "<!--"; 0 outside a comment
	)
	for pos, num := 0, 1; pos < len(text); num++ {
		var l string
		l, pos = nextLine(text, pos)
		if front > 0 {
			if isFrontMatterFence(l, true) {
				front = -1
				continue
			}
			if err := p.frontMatterLine(num, l); err != nil {
				return err
			}
			continue
		}
		if !pre.done && pre.next(l) {
			continue
		}
		if front == 0 && isFrontMatterFence(l, false) && !holdsHeadings(text, pos) {
			front = num
			continue
		}
		front = -1
		if inFence {
			if closesFence(l, fenceChar, fenceLen) {
				inFence = false
			}
			continue
		}
		if commentLine > 0 {
			if strings.Contains(l, "-->") {
				commentLine = 0
			}
			continue
		}
		if c, n, ok := opensFence(l); ok {
			inFence, fenceChar, fenceLen, fenceLine = true, c, n, num
			continue
		}
		// An HTML comment is not shown: a heading commented out is no task
		// (as in Markdown, the block runs from "<!--" to the line with "-->").
		if t, ok := stripIndent(l, 3); ok && strings.HasPrefix(t, "<!--") {
			if !strings.Contains(t[4:], "-->") {
				commentLine = num
			}
			continue
		}
		if err := p.line(num, l); err != nil {
			return err
		}
	}
	if front > 0 {
		return p.errorf(front, "front matter opened here is never closed (want a line \"---\" after it)")
	}
	if commentLine > 0 {
		p.warnf(commentLine, "HTML comment is never closed; the rest of the file is ignored")
	}
	if inFence {
		// Markdown runs an unclosed fence to the end of the file; say so,
		// because everything after it silently vanished from the plan.
		p.warnf(fenceLine, "code fence is never closed; the rest of the file is ignored")
	}
	return nil
}

// frontMatterLine reads one line of front matter. Only the run id matters,
// but a template placeholder anywhere means the plan was never filled in.
// holdsHeadings looks ahead from a "---" on the first line, up to the next
// "---": a block holding a Markdown heading of level two or more, or a Phase
// or Task heading, is the plan itself between two thematic breaks, not YAML
// front matter (whose comments start with a single "#"). Read as front
// matter, its phases and tasks would vanish.
// Without a closing "---" it stays front matter, and an error says so.
func holdsHeadings(text string, pos int) bool {
	headings := false
	for pos < len(text) {
		var l string
		l, pos = nextLine(text, pos)
		if isFrontMatterFence(l, true) {
			return headings
		}
		if level, htext, ok := parseHeading(l); ok {
			if kind, _, _, _ := keywordHeading(htext); level >= 2 || kind != "" {
				headings = true
			}
		}
	}
	return false
}

func (p *parser) frontMatterLine(num int, l string) error {
	if ph, ok := placeholder(l); ok {
		return p.templateError(num, ph)
	}
	if v, ok := frontMatterRunID(l); ok {
		return p.runID(num, v)
	}
	return nil
}

func (p *parser) templateError(num int, ph string) error {
	return p.errorf(num, "template placeholder %s in the plan: fill it in", quote(ph))
}

// line handles one line outside fences and front matter.
func (p *parser) line(num int, l string) error {
	if level, htext, ok := parseHeading(l); ok {
		p.depList = nil
		return p.heading(num, level, htext)
	}
	if word, ok := gluedHeading(l); ok {
		return p.errorf(num, "%s is not a heading (Markdown needs a space after the #'s): write \"%s %s\"", quote(trimBlank(l)), strings.Repeat("#", countRun(trimLeft(l), '#')), word)
	}
	if v, ok := parseRunIDLine(l); ok {
		if ph, bad := placeholder(v); bad {
			return p.templateError(num, ph)
		}
		return p.runID(num, v)
	}
	if p.task == nil {
		if v, ok := strategyValue(l); ok {
			return p.strategy(num, v)
		}
	}
	if p.task == nil {
		// Kept aside: it is a task only if its phase has no task heading
		// (decided once the whole plan is read). Under a task heading it
		// is an ordinary bullet (an acceptance criterion).
		if id, title, size, est, meta, ok := checklistTask(l); ok {
			t := &Task{ID: id, Title: title, Size: size, Estimate: est, Meta: meta, Path: p.path, Line: num}
			p.checks = append(p.checks, checklistItem{t, p.phase})
		}
	}
	if p.task == nil {
		return nil
	}
	return p.taskBody(num, l)
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
	if isItem && item != "" {
		t.Meta = append(t.Meta, item)
	}
	return nil
}

func (p *parser) addDeps(num int, ids []string) {
	for _, id := range ids {
		p.task.DependsOn = append(p.task.DependsOn, id)
		p.deps = append(p.deps, dependency{id, p.path, num})
	}
}

func (p *parser) runID(num int, v string) error {
	if err := ValidateRunID(v); err != nil {
		return p.errorf(num, "%s", err.Error())
	}
	switch {
	case p.plan.RunID == "":
		p.plan.RunID, p.plan.RunIDLine, p.runPath = v, num, p.path
	case p.plan.RunID != v:
		return p.errorf(num, "run id %q differs from run id %q at %s", v, p.plan.RunID, p.where(p.runPath, p.plan.RunIDLine))
	}
	return nil
}

// strategy reads a Strategy line. Only the one between a phase heading and
// the phase's first task counts; elsewhere (a summary, a task's notes) the
// word is prose.
func (p *parser) strategy(num int, v string) error {
	if ph, bad := placeholder(v); bad {
		return p.templateError(num, ph)
	}
	if !p.zone || p.phase == nil {
		return nil
	}
	m, ok, msg := modeWord(v)
	switch {
	case msg != "":
		return p.errorf(num, "%s", msg)
	case !ok:
		p.warnf(num, "strategy %s is neither parallel nor sequential; ignored", quote(v))
		return nil
	}
	return p.setMode(p.phase, m, num, "strategy line")
}

// setMode records a phase's mode; two places that disagree are an error,
// because the resume point depends on which one is meant.
func (p *parser) setMode(ph *Phase, m Mode, num int, what string) error {
	if ph.ModeGiven {
		if ph.Mode != m {
			return p.errorf(num, "%s says %s but line %d says %s for phase %d: choose one", what, m, ph.ModeLine, ph.Mode, ph.Number)
		}
		return nil
	}
	ph.Mode, ph.ModeGiven, ph.ModeLine = m, true, num
	return nil
}

func (p *parser) heading(num, level int, text string) error {
	// Any heading ends the body of the task above it.
	p.task = nil
	if ph, bad := placeholder(text); bad {
		return p.templateError(num, ph)
	}
	// An em or en dash between blanks separates like " - " does
	// ("## Phase 1 — Setup", "### Task 1.1 – Schema").
	text = strings.ReplaceAll(strings.ReplaceAll(text, " \u2014 ", " - "), " \u2013 ", " - ")
	kind, token, rest, near := keywordHeading(text)
	if kind == "" && near == "" {
		// "### 🚧 Task 1.2: x", "### **Task 1.3: x**", "### 4. Task 1.4: x":
		// decoration before the keyword must not turn a task into prose.
		if bare, ok := undecorate(text); ok {
			kind, token, rest, near = keywordHeading(bare)
		}
	}
	switch {
	case near != "":
		word, _ := leadingWord(text)
		return p.errorf(num, "heading %s starts with %s, which looks like a misspelt %q (want %s)", quote(text), quote(word), strings.ToUpper(near[:1])+near[1:], map[string]string{"phase": phaseForms, "task": taskForms}[near])
	case kind == "phase":
		return p.phaseHeading(num, token, rest)
	case kind == "task":
		return p.taskHeading(num, token, rest)
	}
	// Unknown headings are ignored and, deliberately, do not end the current
	// phase: a "## Notes" between two tasks must not orphan the second one.
	return nil
}

func (p *parser) phaseHeading(num int, token, rest string) error {
	n, ok := parsePhaseNumber(token)
	if !ok {
		return p.errorf(num, "malformed phase number %s (want an integer such as 2)", quote(token))
	}
	parts, bad := parsePhaseRest(rest)
	if bad != "" {
		return p.errorf(num, "%s", bad)
	}
	if first, dup := p.phases[n]; dup {
		return p.errorf(num, "duplicate phase %d (first at %s)", n, p.where(first.Path, first.Line))
	}
	ph := &Phase{Number: n, Title: parts.title, Mode: Sequential, Estimate: parts.estimate, Path: p.path, Line: num}
	if parts.given {
		ph.Mode, ph.ModeGiven, ph.ModeLine = parts.mode, true, num
	}
	p.phases[n] = ph
	p.phase, p.zone = ph, true
	p.plan.Phases = append(p.plan.Phases, ph)
	return nil
}

func (p *parser) taskHeading(num int, id, rest string) error {
	if !ValidTaskID(id) {
		return p.errorf(num, "malformed task id %s (want numbers joined by dots or dashes, such as 2.1 or 1-1)", quote(id))
	}
	title, size, est, bad := parseTaskRest(rest)
	if bad != "" {
		return p.errorf(num, "%s", bad)
	}
	if p.phase == nil {
		return p.errorf(num, "task %s is outside any phase", id)
	}
	if title == "" {
		return p.errorf(num, "task %s has an empty title", id)
	}
	t := &Task{ID: id, Title: title, Size: size, Estimate: est, Path: p.path, Line: num}
	if err := p.addTask(p.phase, t); err != nil {
		return err
	}
	p.task, p.zone = t, false
	return nil
}

// parsePhaseNumber accepts a plain decimal integer of at most 9 digits (so it
// always fits an int). Leading zeros are accepted: the number is compared as
// an integer, so "01" and "1" are caught as duplicates.
func parsePhaseNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
