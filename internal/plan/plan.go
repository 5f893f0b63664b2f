// Package plan reads the Markdown task plan of a run (SPEC section 1) and
// derives the names that git-taskresume and git-taskclean give to its tasks
// (SPEC section 2).
//
// The parser reads the plan one line at a time and never uses regular
// expressions or backtracking, so its cost stays linear in the size of the
// file: a plan is user input and may be huge or hostile.
package plan

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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

// Task is one "### Task <id>: <title>" heading. It is the unit that owns a
// branch and a worktree.
type Task struct {
	ID       string   // dotted numbers: "2", "2.1", "2.1.3"
	Title    string   // heading title with the trailing "(size - estimate)" removed, trimmed
	Size     string   // "M" from "(M - 1h)", "" when absent
	Estimate string   // "1h", "" when absent
	Meta     []string // bullet lines under the task, marker ("- " / "* " / "+ ") stripped, trimmed
	Line     int      // 1-based line of the heading
	Phase    *Phase   // the phase that holds it
}

// Phase is one "## Phase <n>: <title> (<mode>)" heading with the tasks that
// follow it up to the next phase heading.
type Phase struct {
	Number    int    // n of "## Phase <n>: ..."
	Title     string // without the "(Mode)" suffix
	Mode      Mode
	ModeGiven bool // false when the heading had no (Sequential|Parallel): defaults to Sequential + warning
	Line      int
	Tasks     []*Task
}

// Plan is a parsed plan file. Phases and their tasks are in file order,
// which is the order the resume point is computed in.
type Plan struct {
	Path      string // as given to Parse, used in messages
	RunID     string
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

// Task returns the task with that id, or nil. It scans the phases rather than
// keeping an index so that it stays right when a caller builds or edits a
// Plan by hand (tests do).
func (p *Plan) Task(id string) *Task {
	for _, ph := range p.Phases {
		for _, t := range ph.Tasks {
			if t.ID == id {
				return t
			}
		}
	}
	return nil
}

// Warning is something in the plan that was accepted but is probably not what
// the author meant (a phase without a mode, a heading that looks like a task
// but is not one). It renders as "path:line: message".
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

// Parse parses a plan. path is only used in messages. Errors are *Error; the
// first problem in file order is reported, because later ones are often
// consequences of it. On error the plan is nil and the warnings found so far
// are still returned.
func Parse(path string, data []byte) (*Plan, []Warning, error) {
	p := &parser{path: path, plan: &Plan{Path: path}, tasks: map[string]*Task{}, phases: map[int]*Phase{}}
	err := p.parse(data)
	sort.SliceStable(p.warnings, func(i, j int) bool { return p.warnings[i].Line < p.warnings[j].Line })
	if err != nil {
		return nil, p.warnings, err
	}
	return p.plan, p.warnings, nil
}

type parser struct {
	path     string
	plan     *Plan
	warnings []Warning
	phase    *Phase // the phase tasks currently go into
	task     *Task  // the task bullet lines currently go into; nil after any other heading
	tasks    map[string]*Task
	phases   map[int]*Phase
	ntasks   int
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &Error{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) warnf(line int, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) parse(data []byte) error {
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
		inFence   bool
		fenceChar byte
		fenceLen  int
		fenceLine int
	)
	for pos, num := 0, 1; pos < len(text); num++ {
		var l string
		l, pos = nextLine(text, pos)
		if inFence {
			if closesFence(l, fenceChar, fenceLen) {
				inFence = false
			}
			continue
		}
		if c, n, ok := opensFence(l); ok {
			inFence, fenceChar, fenceLen, fenceLine = true, c, n, num
			continue
		}
		if level, htext, ok := parseHeading(l); ok {
			if err := p.heading(num, level, htext); err != nil {
				return err
			}
			continue
		}
		if v, ok := parseRunIDLine(l); ok {
			if err := p.runID(num, v); err != nil {
				return err
			}
			continue
		}
		if p.task != nil {
			if item, ok := bulletItem(l); ok && item != "" {
				p.task.Meta = append(p.task.Meta, item)
			}
		}
	}
	if inFence {
		// Markdown runs an unclosed fence to the end of the file; say so,
		// because everything after it silently vanished from the plan.
		p.warnf(fenceLine, "code fence is never closed; the rest of the file is ignored")
	}
	p.endPhase()
	if p.ntasks == 0 {
		return p.errorf(1, "empty plan: no \"### Task <id>: <title>\" heading")
	}
	if p.plan.RunID == "" {
		return p.errorf(1, "no run id: add a line \"Run ID: <id>\"")
	}
	return nil
}

func (p *parser) runID(num int, v string) error {
	if err := ValidateRunID(v); err != nil {
		return p.errorf(num, "%s", err.Error())
	}
	switch {
	case p.plan.RunID == "":
		p.plan.RunID, p.plan.RunIDLine = v, num
	case p.plan.RunID != v:
		return p.errorf(num, "run id %q differs from run id %q at line %d", v, p.plan.RunID, p.plan.RunIDLine)
	}
	return nil
}

// endPhase warns about a phase that ended without tasks: legal, but usually a
// sign that its task headings are malformed.
func (p *parser) endPhase() {
	if p.phase != nil && len(p.phase.Tasks) == 0 {
		p.warnf(p.phase.Line, "phase %d has no tasks", p.phase.Number)
	}
}

func (p *parser) heading(num, level int, text string) error {
	// Any heading ends the bullet list of the task above it.
	p.task = nil

	if id, rest, colon, ok := splitLabel(text, "phase"); ok {
		switch {
		case !colon:
			if looksNumeric(id) {
				p.warnf(num, "heading looks like a phase but has no ':' after the number (want \"## Phase <n>: <title> (Sequential|Parallel)\"); ignored")
			}
			return nil
		case level != 2:
			if looksNumeric(id) {
				p.warnf(num, "phase heading with %d #'s; a phase heading has exactly 2 (## Phase <n>: ...); ignored", level)
			}
			return nil
		}
		return p.phaseHeading(num, id, rest)
	}
	if id, rest, colon, ok := splitLabel(text, "task"); ok {
		switch {
		case !colon:
			if looksNumeric(id) {
				p.warnf(num, "heading looks like a task but has no ':' after the id (want \"### Task <id>: <title>\"); ignored")
			}
			return nil
		case level != 3:
			if looksNumeric(id) {
				p.warnf(num, "task heading with %d #'s; a task heading has exactly 3 (### Task <id>: ...); ignored", level)
			}
			return nil
		}
		return p.taskHeading(num, id, rest)
	}
	// Unknown headings are ignored and, deliberately, do not end the current
	// phase: a "## Notes" between two tasks must not orphan the second one.
	return nil
}

func (p *parser) phaseHeading(num int, id, rest string) error {
	n, ok := parsePhaseNumber(id)
	if !ok {
		return p.errorf(num, "malformed phase number %q (want an integer such as 2)", id)
	}
	if first, dup := p.phases[n]; dup {
		return p.errorf(num, "duplicate phase %d (first at line %d)", n, first.Line)
	}
	ph := &Phase{Number: n, Mode: Sequential, Line: num}
	ph.Title = rest
	if inner, before, ok := trailingGroup(rest); ok {
		switch {
		case asciiEqualFold(inner, string(Sequential)):
			ph.Mode, ph.ModeGiven, ph.Title = Sequential, true, before
		case asciiEqualFold(inner, string(Parallel)):
			ph.Mode, ph.ModeGiven, ph.Title = Parallel, true, before
		}
	}
	if !ph.ModeGiven {
		p.warnf(num, "phase %d has no (Sequential) or (Parallel) mode; treating it as sequential", n)
	}
	p.endPhase()
	p.phases[n] = ph
	p.phase = ph
	p.plan.Phases = append(p.plan.Phases, ph)
	return nil
}

func (p *parser) taskHeading(num int, id, rest string) error {
	if !ValidTaskID(id) {
		return p.errorf(num, "malformed task id %q (want dotted numbers such as 2.1)", id)
	}
	if p.phase == nil {
		return p.errorf(num, "task %s is outside any phase", id)
	}
	if first, dup := p.tasks[id]; dup {
		return p.errorf(num, "duplicate task id %s (first at line %d)", id, first.Line)
	}
	t := &Task{ID: id, Title: rest, Line: num, Phase: p.phase}
	if inner, before, ok := trailingGroup(rest); ok {
		if size, est, ok := sizeEstimate(inner); ok {
			t.Title, t.Size, t.Estimate = before, size, est
		}
	}
	if t.Title == "" {
		return p.errorf(num, "task %s has an empty title", id)
	}
	p.tasks[id] = t
	p.ntasks++
	p.phase.Tasks = append(p.phase.Tasks, t)
	p.task = t
	return nil
}

// nextLine returns the line of s starting at pos and the start of the next
// one. A line ends at "\n", "\r\n" or a lone "\r" (old Mac files), so line
// numbers match what an editor shows for any of them. Reading line by line
// instead of splitting up front keeps memory flat on a file of a million
// empty lines.
func nextLine(s string, pos int) (string, int) {
	rest := s[pos:]
	i := strings.IndexAny(rest, "\r\n")
	switch {
	case i < 0:
		return rest, len(s)
	case rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n':
		return rest[:i], pos + i + 2
	}
	return rest[:i], pos + i + 1
}

// lineAt is the 1-based line number of byte offset off in s, counting line
// breaks the way nextLine does.
func lineAt(s string, off int) int {
	n := 1
	for pos := 0; ; n++ {
		_, next := nextLine(s, pos)
		if next > off || next >= len(s) {
			return n
		}
		pos = next
	}
}

// firstInvalidUTF8 is the offset of the first byte of s that is not valid
// UTF-8, or -1.
func firstInvalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// isBlank is the Markdown notion of whitespace inside a line; tabs count
// wherever spaces do.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func trimLeft(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

func trimBlank(s string) string {
	s = trimLeft(s)
	j := len(s)
	for j > 0 && isBlank(s[j-1]) {
		j--
	}
	return s[:j]
}

// stripIndent removes the leading blanks of s and reports whether there were
// at most max of them (Markdown allows up to 3 before a heading or a fence;
// more makes the line an indented code block). A tab counts as one blank.
func stripIndent(s string, max int) (string, bool) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:], i <= max
}

func countRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// opensFence recognises a fenced code block opener: at least three backticks
// or tildes. A backtick "fence" whose info string holds a backtick is inline
// code in Markdown, not a fence.
func opensFence(l string) (byte, int, bool) {
	s, ok := stripIndent(l, 3)
	if !ok || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, false
	}
	n := countRun(s, s[0])
	if n < 3 {
		return 0, 0, false
	}
	if s[0] == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0, 0, false
	}
	return s[0], n, true
}

// closesFence reports whether l closes a fence opened with n c's: the same
// character, at least as many, and nothing else on the line.
func closesFence(l string, c byte, n int) bool {
	s, ok := stripIndent(l, 3)
	if !ok {
		return false
	}
	m := countRun(s, c)
	return m >= n && trimBlank(s[m:]) == ""
}

// parseHeading recognises an ATX heading: up to 3 blanks, 1-6 '#', then a
// blank or the end of the line. The optional closing run of '#' is dropped as
// Markdown does.
func parseHeading(l string) (level int, text string, ok bool) {
	s, ok := stripIndent(l, 3)
	if !ok {
		return 0, "", false
	}
	n := countRun(s, '#')
	if n == 0 || n > 6 || (n < len(s) && !isBlank(s[n])) {
		return 0, "", false
	}
	text = trimBlank(s[n:])
	j := len(text)
	for j > 0 && text[j-1] == '#' {
		j--
	}
	switch {
	case j == 0:
		text = ""
	case j < len(text) && isBlank(text[j-1]):
		text = trimBlank(text[:j])
	}
	return n, text, true
}

// asciiEqualFold compares case-insensitively in ASCII only, so that no
// Unicode folding (the Kelvin sign, the long s) can turn a stray character
// into a keyword.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// hasPrefixFold is strings.HasPrefix with asciiEqualFold.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && asciiEqualFold(s[:len(prefix)], prefix)
}

// splitLabel recognises "<word> <token>:" at the start of a heading (word
// compared case-insensitively, at least one blank after it). token runs to
// the first blank or ':'; colon says whether a ':' followed it, and rest is
// the trimmed text after that ':'.
func splitLabel(text, word string) (token, rest string, colon, ok bool) {
	if len(text) <= len(word) || !hasPrefixFold(text, word) || !isBlank(text[len(word)]) {
		return "", "", false, false
	}
	s := trimLeft(text[len(word):])
	i := 0
	for i < len(s) && !isBlank(s[i]) && s[i] != ':' {
		i++
	}
	token = s[:i]
	after := trimLeft(s[i:])
	if after != "" && after[0] == ':' {
		return token, trimBlank(after[1:]), true, true
	}
	return token, "", false, true
}

// looksNumeric tells a heading meant as a phase or task ("Task 1.1 Setup")
// from prose that merely starts with the word ("Task overview").
func looksNumeric(tok string) bool { return tok != "" && tok[0] >= '0' && tok[0] <= '9' }

// parsePhaseNumber accepts a plain decimal integer of at most 9 digits (so it
// always fits an int). Leading zeros are accepted: the number is compared as
// an integer, so "01" and "1" are caught as duplicates.
func parsePhaseNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// trailingGroup splits "title (inner)" into its parts when text ends with a
// parenthesised group; the group starts at the last '(' so nested or earlier
// parentheses stay in the title.
func trailingGroup(text string) (inner, before string, ok bool) {
	if !strings.HasSuffix(text, ")") {
		return "", "", false
	}
	open := strings.LastIndexByte(text, '(')
	if open < 0 {
		return "", "", false
	}
	return trimBlank(text[open+1 : len(text)-1]), trimBlank(text[:open]), true
}

// tshirt sizes are recognised even when the estimate has no digit, e.g. "(L - TBD)".
var tshirt = map[string]bool{"xxs": true, "xs": true, "s": true, "m": true, "l": true, "xl": true, "xxl": true}

// sizeEstimate recognises "<size> - <estimate>" inside a task's trailing
// parentheses. To keep ordinary parenthesised words such as "(follow-up)" in
// the title, the size must be a short word of letters and digits, and the
// estimate must hold a digit unless the size is a T-shirt size.
func sizeEstimate(inner string) (size, est string, ok bool) {
	dash := strings.IndexByte(inner, '-')
	if dash < 0 {
		return "", "", false
	}
	size, est = trimBlank(inner[:dash]), trimBlank(inner[dash+1:])
	if size == "" || len(size) > 8 || est == "" {
		return "", "", false
	}
	for i := 0; i < len(size); i++ {
		c := size[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", "", false
		}
	}
	if !strings.ContainsAny(est, "0123456789") && !tshirt[strings.ToLower(size)] {
		return "", "", false
	}
	return size, est, true
}

// bulletItem returns the text of a "- ", "* " or "+ " list item at any
// indentation. A thematic break such as "* * *" is not an item.
func bulletItem(l string) (string, bool) {
	s := trimLeft(l)
	if len(s) == 0 || (s[0] != '-' && s[0] != '*' && s[0] != '+') {
		return "", false
	}
	if len(s) > 1 && !isBlank(s[1]) {
		return "", false
	}
	if isThematicBreak(s) {
		return "", false
	}
	return trimBlank(s[1:]), true
}

func isThematicBreak(s string) bool {
	c := s[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == c:
			n++
		case isBlank(s[i]):
		default:
			return false
		}
	}
	return n >= 3
}

// parseRunIDLine recognises the run id line in the forms plans are written
// in: "Run ID: x", "**Run ID**: x", "**Run ID:** x", "__Run ID__: x", each
// optionally as a list item, with "run id" in any case and the value
// optionally in backticks or bold. It returns the raw value for validation.
func parseRunIDLine(l string) (string, bool) {
	s := trimLeft(l)
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && isBlank(s[1]) {
		s = trimLeft(s[2:])
	}
	bold := ""
	if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
		bold, s = s[:2], s[2:]
	}
	if !hasPrefixFold(s, "run") {
		return "", false
	}
	s = s[3:]
	if s == "" || !isBlank(s[0]) { // "Run ID", never "RunID" or "Running"
		return "", false
	}
	s = trimLeft(s)
	if !hasPrefixFold(s, "id") {
		return "", false
	}
	s = trimLeft(s[2:])
	switch {
	case bold == "":
		if !strings.HasPrefix(s, ":") {
			return "", false
		}
		s = s[1:]
	case strings.HasPrefix(s, bold): // **Run ID**: x
		s = trimLeft(s[2:])
		if !strings.HasPrefix(s, ":") {
			return "", false
		}
		s = s[1:]
	case strings.HasPrefix(s, ":"): // **Run ID:** x
		s = trimLeft(s[1:])
		if !strings.HasPrefix(s, bold) {
			return "", false
		}
		s = s[2:]
	default:
		return "", false
	}
	return unwrapValue(trimBlank(s)), true
}

// unwrapValue drops one layer of bold and then one code span around a value,
// since "Run ID: `x`" and "Run ID: **x**" both mean x.
func unwrapValue(v string) string {
	for _, w := range []string{"**", "__"} {
		if len(v) > 2*len(w) && strings.HasPrefix(v, w) && strings.HasSuffix(v, w) {
			v = trimBlank(v[len(w) : len(v)-len(w)])
			break
		}
	}
	if n := countRun(v, '`'); n > 0 && len(v) > 2*n {
		tail := v[len(v)-n:]
		if countRun(tail, '`') == n && v[len(v)-n-1] != '`' {
			v = trimBlank(v[n : len(v)-n])
		}
	}
	return v
}

// maxRunID bounds a run id so that "<run>-task-<id>-<slug>" and the backup
// refs stay well inside file-name limits of loose refs.
const maxRunID = 64

// ValidateRunID reports why id is not a usable run id (nil when it is).
// A run id becomes part of branch names ("<id>-task-1", "<id>-main") and of
// backup refs ("refs/taskclean/<id>/..."), and is passed to git, so it must
// be a safe ref-name component that can never be read as an option: 1-64
// characters of [A-Za-z0-9._-], starting with a letter or digit, with no
// "..", not ending in "." or ".lock".
func ValidateRunID(id string) error {
	if id == "" {
		return errors.New(`run id "" is empty`)
	}
	q := quoteID(id)
	if c := id[0]; !isAlnum(c) {
		return fmt.Errorf("run id %s must start with a letter or digit", q)
	}
	for i := 0; i < len(id); {
		c := id[i]
		if isAlnum(c) || c == '.' || c == '_' || c == '-' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(id[i:])
		bad := fmt.Sprintf("%q", string(r))
		if r == utf8.RuneError && size <= 1 {
			bad = fmt.Sprintf("byte %#x", c)
		}
		return fmt.Errorf("run id %s contains %s (allowed: letters, digits, \".\", \"_\", \"-\")", q, bad)
	}
	if len(id) > maxRunID {
		return fmt.Errorf("run id %s is longer than %d characters", q, maxRunID)
	}
	if strings.Contains(id, "..") {
		return fmt.Errorf("run id %s contains \"..\"", q)
	}
	if strings.HasSuffix(id, ".") {
		return fmt.Errorf("run id %s ends with \".\"", q)
	}
	// A run "ab-task-1" would own branches "ab-task-1-..." that read as
	// task 1 of run "ab": run ids never hold the task separator.
	if strings.Contains(strings.ToLower(id), "-task-") || strings.HasSuffix(strings.ToLower(id), "-task") {
		return fmt.Errorf("run id %s contains \"-task\", which separates a run from its task ids", q)
	}
	// git refuses a ref component ending in ".lock"; reject any case so the
	// id also works on case-insensitive file systems.
	if len(id) >= 5 && asciiEqualFold(id[len(id)-5:], ".lock") {
		return fmt.Errorf("run id %s ends with \".lock\"", q)
	}
	return nil
}

// quoteID quotes id for a message. An id longer than any valid one is cut (at
// a character boundary) so that a hostile plan cannot produce a megabyte-long
// error line; %q then keeps the message printable whatever the bytes are.
func quoteID(id string) string {
	if len(id) <= maxRunID {
		return fmt.Sprintf("%q", id)
	}
	cut := maxRunID
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", id[:cut])
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ValidTaskID reports whether id is dotted numbers, ^[0-9]+(\.[0-9]+)*$, each
// component at most 9 digits. A component with a leading zero ("01", "1.02")
// is also rejected: ids are compared as strings and end up in branch names,
// so "01" and "1" would be two different tasks that look the same.
func ValidTaskID(id string) bool {
	if id == "" {
		return false
	}
	start := 0
	for i := 0; i <= len(id); i++ {
		if i < len(id) && id[i] != '.' {
			if id[i] < '0' || id[i] > '9' {
				return false
			}
			continue
		}
		comp := id[start:i]
		if comp == "" || len(comp) > 9 || (len(comp) > 1 && comp[0] == '0') {
			return false
		}
		start = i + 1
	}
	return true
}

// DashedID turns a task id into its branch-name form: "2.1" -> "2-1". Dots are
// replaced because several dots in a row would not be a valid ref name.
func DashedID(id string) string { return strings.ReplaceAll(id, ".", "-") }

// Slug turns a task title into the branch-name suffix: ASCII-only lower-casing
// (A-Z -> a-z), every run of characters outside [a-z0-9] (including all
// non-ASCII) becomes one "-", and leading and trailing "-" are dropped.
// It is ASCII-only on purpose, so every implementation, shell script and
// locale derives the same branch name from the same title.
// "Create database schema" -> "create-database-schema"; "API: v2 (beta)!" ->
// "api-v2-beta"; an all-emoji or all-CJK title -> "".
func Slug(title string) string {
	b := make([]byte, 0, len(title))
	gap := false
	for i := 0; i < len(title); i++ {
		c := title[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if gap && len(b) > 0 {
				b = append(b, '-')
			}
			gap = false
			b = append(b, c)
			continue
		}
		gap = true
	}
	return string(b)
}

// BranchName is the branch of task t in run: "<run>-task-<dashed id>-<slug>",
// or "<run>-task-<dashed id>" when the title has no slug (an all-emoji title),
// so that no branch name ends in "-". t must not be nil.
func BranchName(run string, t *Task) string {
	name := run + "-task-" + DashedID(t.ID)
	if s := Slug(t.Title); s != "" {
		name += "-" + s
	}
	return name
}

// BranchPrefix is "<run>-task-<dashed id>-", the prefix a branch must start
// with to belong to task id when its name is not exactly BranchName (SPEC 2:
// the title may have been edited since the branch was made).
func BranchPrefix(run, id string) string { return run + "-task-" + DashedID(id) + "-" }
