package plan

import (
	"sort"
	"strings"
)

// File is one file of a plan split into one file per phase.
type File struct {
	Path string
	Data []byte
}

// Parse parses a plan. path is only used in messages. On error the plan
// is nil, the error is Errors (every error found, by line; its Error() is
// the first one's), and the warnings found are still returned.
//
// Reading goes on after an error wherever what follows can still be read
// for what it is, so that one pass shows every mistake; an error that
// would only follow from an earlier one is not reported (the tasks under a
// refused phase heading are not "outside any phase", the body of a refused
// task heading is not read).
func Parse(path string, data []byte) (*Plan, []Warning, error) {
	return ParseFiles([]File{{Path: path, Data: data}})
}

// ParseFiles reads a split plan: the files in the order given (the caller
// sorts plan-phase1.md, plan-phase2.md, ... by number), as one plan.
// Duplicate phase numbers or task ids across files, and two tasks that get
// the same branch name, are errors naming both places; run ids in two files
// that differ are an error; Plan.Path is files[0].Path. Errors are as
// Parse's, in the order of the files, then by line.
func ParseFiles(files []File) (*Plan, []Warning, error) {
	if len(files) == 0 {
		return nil, nil, Errors{{Msg: "no plan file given"}}
	}
	p := &parser{plan: &Plan{Path: files[0].Path}, tasks: map[string]*Task{}, phases: map[int]*Phase{},
		broken: map[*Phase]bool{}, modeRefused: map[*Phase]bool{}, headed: map[*Phase]bool{}, refusedIDs: map[string]bool{}}
	p.parseAll(files)
	sort.SliceStable(p.warnings, func(i, j int) bool {
		a, b := p.warnings[i], p.warnings[j]
		return a.file < b.file || a.file == b.file && a.Line < b.Line
	})
	ws := make([]Warning, len(p.warnings))
	for i, w := range p.warnings {
		ws[i] = w.Warning
	}
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i], p.errs[j]
			return a.file < b.file || a.file == b.file && a.Line < b.Line
		})
		es := make(Errors, len(p.errs))
		for i, e := range p.errs {
			es[i] = e.Error
		}
		return nil, ws, es
	}
	return p.plan, ws, nil
}

// parser holds what has been read of a plan so far: the plan being built,
// its tasks and phases by key for the duplicate checks, and the state of
// the file being read.
type parser struct {
	plan     *Plan
	warnings []fileWarning
	errs     []fileError
	tasks    map[string]*Task // by CanonicalID
	phases   map[int]*Phase
	ntasks   int // tasks from headings
	runPath  string
	// where the plan's version constraint was first read
	requiresPath string
	requiresAt   int
	deps         []dependency
	depRanges    []depRange
	checks       []checklistItem

	// What errors leave behind, so that nothing is reported that only
	// follows from them.
	broken       map[*Phase]bool // phases whose heading was refused: no warnings about them
	modeRefused  map[*Phase]bool // phases whose Strategy line was refused: no "has no mode" warning
	headed       map[*Phase]bool // phases with a task heading, a refused one too: their checklist items are bullets
	refusedIDs   map[string]bool // ids of refused task headings (canonical): depending on one is no dangling dependency
	refusedTasks int             // task headings refused
	unread       bool            // a file was not read whole: its tasks are unknown
	fileOf       map[string]int  // index of each file by path, for what is reported once all are read

	// State of the file being read.
	file         int
	path         string
	phase        *Phase // the phase tasks currently go into
	task         *Task  // the task body lines currently go into; nil after any other heading
	zone         bool   // between a phase heading and its first task: where its Strategy line goes
	depList      *Task  // collecting the bullets of an empty "Dependencies:" line
	depListFirst bool   // the next bullet is the list's first
	fileList     *Task  // collecting the bullets of an empty "Files:" line
}

// maxPlanSize bounds what is read: a real plan is well under 1 MiB, and a
// huge one would cost memory out of proportion (about 20 bytes a byte).
const maxPlanSize = 16 << 20

// parseAll reads every file, then checks what only the whole plan shows:
// checklist tasks, an empty plan, phases without a mode or tasks,
// dependencies on no task, branch names two tasks share. When a file was
// not read whole, what depends on the tasks it may hold is not said.
func (p *parser) parseAll(files []File) {
	size := 0
	for _, f := range files {
		size += len(f.Data)
	}
	if size > maxPlanSize {
		p.path = files[0].Path
		p.errorf(1, "plan is %.1f MiB; a plan over %d MiB is refused (is this the right file?)", float64(size)/(1<<20), maxPlanSize>>20)
		return
	}
	for i, f := range files {
		p.file, p.path = i, f.Path
		p.phase, p.task, p.zone, p.depList, p.fileList = nil, nil, false, nil, nil
		p.parseFile(f.Data)
	}
	fileOf := make(map[string]int, len(files))
	for i := len(files) - 1; i >= 0; i-- {
		fileOf[files[i].Path] = i
	}
	p.fileOf = fileOf
	p.adoptChecklist()
	// An empty plan is said alone: with other errors, the tasks may be what
	// they refused, and line 1 is no place to fix.
	if p.ntasks == 0 && len(p.errs) == 0 {
		p.file, p.path = 0, files[0].Path
		p.errorf(1, "empty plan: no task found (want a heading such as \"### Task 1.1: <title>\" or \"## Task 3 - <title>\", or checklist items \"- [ ] **Task 1.1**: <title>\")")
	}
	for _, ph := range p.plan.Phases {
		if p.broken[ph] {
			continue
		}
		p.path, p.file = ph.Path, fileOf[ph.Path]
		if !ph.ModeGiven && !p.modeRefused[ph] {
			p.warnf(ph.Line, "phase %d has no mode (add \"(Parallel)\" or \"(Sequential)\" to its heading or a \"**Strategy**: parallel\" line under it); treating it as sequential", ph.Number)
		}
		if len(ph.Tasks) == 0 && !p.headed[ph] {
			p.warnf(ph.Line, "phase %d has no tasks", ph.Number)
		}
	}
	p.fillRanges()
	for _, d := range p.deps {
		// The map, not Plan.Task: a hostile plan may name many ids in many tasks.
		if !p.unread && p.tasks[CanonicalID(d.id)] == nil && !p.refusedIDs[CanonicalID(d.id)] {
			p.path, p.file = d.path, fileOf[d.path]
			p.warnf(d.line, "dependency %s names no task of this plan", d.id)
		}
	}
	if !p.unread {
		p.orderDependencies()
	}
	// Last, once every task is known (checklist tasks included), so that the
	// warnings above still reach the user when the plan is refused.
	p.checkBranchNames()
}

// parseFile reads one file line by line: text that is not UTF-8 is refused,
// front matter, fences and HTML comments are set aside, and every other
// line goes to line. A file that is no UTF-8 text is not read at all (one
// error), and one whose front matter never closes was read as front matter
// to its end: either way its tasks are unknown.
func (p *parser) parseFile(data []byte) {
	// A UTF-16 file is all NUL bytes to us; say what it is so the fix is obvious.
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		p.errorf(1, "plan is UTF-16 encoded; save it as UTF-8")
		p.unread = true
		return
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")

	// Refuse binary or mis-encoded input before reading any structure, so a
	// wrong file gets one clear message instead of a misleading syntax error.
	nul, bad := strings.IndexByte(text, 0), firstInvalidUTF8(text)
	switch {
	case nul >= 0 && (bad < 0 || nul < bad):
		p.errorf(lineAt(text, nul), "plan is not a text file: line holds a NUL byte")
		p.unread = true
		return
	case bad >= 0:
		p.errorf(lineAt(text, bad), "plan is not valid UTF-8 text")
		p.unread = true
		return
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
			p.frontMatterLine(num, l)
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
		p.line(num, l)
	}
	if front > 0 {
		p.errorf(front, "front matter opened here is never closed (want a line \"---\" after it)")
		p.unread = true
		return
	}
	if commentLine > 0 {
		p.warnf(commentLine, "HTML comment is never closed; the rest of the file is ignored")
	}
	if inFence {
		// Markdown runs an unclosed fence to the end of the file; say so,
		// because everything after it silently vanished from the plan.
		p.warnf(fenceLine, "code fence is never closed; the rest of the file is ignored")
	}
}

// line handles one line outside fences and front matter.
func (p *parser) line(num int, l string) {
	if level, htext, ok := parseHeading(l); ok {
		p.depList, p.fileList = nil, nil
		p.heading(num, level, htext)
		return
	}
	if word, ok := gluedHeading(l); ok {
		p.errorf(num, "%s is not a heading (Markdown needs a space after the #'s): write \"%s %s\"", quote(trimBlank(l)), strings.Repeat("#", countRun(trimLeft(l), '#')), word)
		// It was meant as a heading: what follows is under it, not under
		// the task or phase above.
		p.depList, p.fileList = nil, nil
		kind, _, _, near := keywordHeading(word)
		if kind == "" && near == "" {
			if bare, ok := undecorate(word); ok {
				kind, _, _, near = keywordHeading(bare)
			}
		}
		p.refusedHeading(num, kind+near, "")
		return
	}
	if v, ok := parseRunIDLine(l); ok {
		if ph, bad := placeholder(v); bad {
			p.templateError(num, ph)
			return
		}
		p.runID(num, v)
		return
	}
	if p.task == nil {
		if v, ok := strategyValue(l); ok {
			p.strategy(num, v)
			return
		}
	}
	if p.task == nil {
		// Kept aside: it is a task only if its phase has no task heading
		// (decided once the whole plan is read). Under a task heading it
		// is an ordinary bullet (an acceptance criterion).
		if id, title, size, est, meta, ok := checklistTask(l); ok {
			t := &Task{ID: id, Title: title, Size: size, Estimate: est, Meta: meta, Files: checklistFiles(meta), Path: p.path, Line: num}
			p.checks = append(p.checks, checklistItem{t, p.phase})
		}
	}
	if p.task == nil {
		return
	}
	p.taskBody(num, l)
}

// addTask adds t to phase ph; a task id the plan already has is an error,
// and false.
func (p *parser) addTask(ph *Phase, t *Task) bool {
	key := CanonicalID(t.ID)
	if first, dup := p.tasks[key]; dup {
		p.errorf(t.Line, "duplicate task id %s (first at %s)", t.ID, p.where(first.Path, first.Line))
		return false
	}
	p.tasks[key] = t
	p.ntasks++
	t.Phase = ph
	ph.Tasks = append(ph.Tasks, t)
	return true
}

// runID records the run id a line gives; one that differs from the run id
// given before (in this file or another of a split plan) is an error, and
// the first one stays.
func (p *parser) runID(num int, v string) {
	if err := ValidateRunID(v); err != nil {
		p.errorf(num, "%s", err.Error())
		return
	}
	switch {
	case p.plan.RunID == "":
		p.plan.RunID, p.plan.RunIDLine, p.runPath = v, num, p.path
	case p.plan.RunID != v:
		p.errorf(num, "run id %q differs from run id %q at %s", v, p.plan.RunID, p.where(p.runPath, p.plan.RunIDLine))
	}
}
