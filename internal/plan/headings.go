package plan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads the headings that give a plan its structure: which
// headings are phases or tasks, and the pieces of each (number or id,
// title, mode, size and time).

// Accepted forms, quoted in the errors so the user sees how to fix a heading.
const (
	phaseForms = `"Phase <n>: <title>", "Phase <n>: <title> (Parallel)", "Phase <n>", "Phase <n> (4h)", "Phase <n> (Sequential)" or "Phase <n> - Parallel - <title>"`
	taskForms  = `"Task <id>: <title>" or "Task <id> - <title>", optionally ending in "(M - 2h)", "(M)" or "(2h)"`
)

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

// keywordHeading splits a heading into a keyword (Phase or Task) and the
// number-like token after it. kind is "" for a heading that is neither: prose
// such as "Phase Overview" or "Task Complexity Breakdown", where a word
// follows the keyword. near is set when the first word is a misspelt keyword
// followed by a number ("Taks 3.1").
func keywordHeading(text string) (kind, token, rest, near string) {
	word, after := leadingWord(text)
	if word == "" {
		return "", "", "", ""
	}
	// "Phase1" (glued) is still meant as a phase; "Phase:" is prose.
	s := trimLeft(after)
	i := 0
	for i < len(s) && !isBlank(s[i]) && s[i] != ':' && s[i] != '(' {
		i++
	}
	token, rest = s[:i], trimLeft(s[i:])
	switch {
	case !meantAsNumber(token):
		return "", "", "", ""
	case asciiEqualFold(word, "phase"):
		return "phase", token, rest, ""
	case asciiEqualFold(word, "task"):
		return "task", token, rest, ""
	case !startsNumber(token):
		// A misspelling is only suspected before a real number, so that
		// "Tests v2" stays prose.
		return "", "", "", ""
	case nearMiss(word, "phase"):
		return "", "", "", "phase"
	case nearMiss(word, "task"):
		return "", "", "", "task"
	}
	return "", "", "", ""
}

// meantAsNumber tells an id or number, even a malformed one ("1.a", "v1",
// "a.b", "-1"), from a word ("Overview", "list"): it starts like a number,
// holds a digit, or joins two parts with a dot.
func meantAsNumber(tok string) bool {
	if startsNumber(tok) {
		return true
	}
	for i := 0; i < len(tok); i++ {
		if isDigit(tok[i]) || tok[i] == '.' && i > 0 && i+1 < len(tok) && isAlnum(tok[i+1]) {
			return true
		}
	}
	return false
}

// startsNumber reports whether s starts like a number: a digit, or a sign
// or dot right before one ("-1", ".1" are malformed ids, not prose).
func startsNumber(s string) bool {
	if s == "" {
		return false
	}
	if isDigit(s[0]) {
		return true
	}
	return len(s) > 1 && (s[0] == '-' || s[0] == '+' || s[0] == '.') && isDigit(s[1])
}

// phaseParts is what a phase heading says after "Phase <n>".
type phaseParts struct {
	title    string
	mode     Mode
	given    bool
	estimate string
}

// parsePhaseRest reads what follows "Phase <n>" (rest is trimmed on the
// left). bad is the message for a heading in none of the accepted forms.
func parsePhaseRest(rest string) (ph phaseParts, bad string) {
	switch {
	case rest == "":
		return ph, ""
	case rest[0] == ':':
		ph.title = trimBlank(rest[1:])
	case rest[0] == '(':
		ph.title = rest
	case rest[0] == '-' && (len(rest) == 1 || isBlank(rest[1])):
		var titles []string
		for _, seg := range splitSegments(rest[1:]) {
			m, ok, msg := modeWord(seg)
			if msg != "" {
				return ph, msg
			}
			word, after := leadingWord(seg)
			after = trimBlank(after)
			if ok && word != "" && (after == "" || isMetaGroup(after)) {
				if msg := ph.setMode(m); msg != "" {
					return ph, msg
				}
				if after != "" {
					_, est, _ := sizeEstimate(after[1 : len(after)-1])
					if est != "" {
						ph.estimate = est
					}
				}
				continue
			}
			titles = append(titles, seg)
		}
		ph.title = strings.TrimSuffix(trimBlank(strings.Join(titles, " - ")), ":")
		ph.title = trimBlank(ph.title)
	default:
		return ph, "malformed phase heading: want " + phaseForms
	}
	title, msg := ph.trailingGroups(ph.title)
	if msg != "" {
		return ph, msg
	}
	if rest[0] == '(' && title != "" {
		return ph, "malformed phase heading: want " + phaseForms
	}
	ph.title = title
	return ph, ""
}

// isMetaGroup reports whether s is one parenthesised size/time group.
func isMetaGroup(s string) bool {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return false
	}
	_, _, ok := sizeEstimate(s[1 : len(s)-1])
	return ok
}

func (ph *phaseParts) setMode(m Mode) string {
	if ph.given && ph.mode != m {
		return "phase heading gives two different modes"
	}
	ph.mode, ph.given = m, true
	return ""
}

// trailingGroups strips the parenthesised groups at the end of a phase
// title that are a mode or size/time, last first, and stops at the first
// other group, which is part of the title ("(Foundation)").
func (ph *phaseParts) trailingGroups(title string) (string, string) {
	for {
		inner, before, ok := trailingGroup(title)
		if !ok {
			return title, ""
		}
		m, isMode, msg := modeWord(inner)
		if msg != "" {
			return title, msg
		}
		if isMode {
			if msg := ph.setMode(m); msg != "" {
				return title, msg
			}
			title = before
			continue
		}
		if _, est, ok := sizeEstimate(inner); ok {
			if est != "" && ph.estimate == "" {
				ph.estimate = est
			}
			title = before
			continue
		}
		return title, ""
	}
}

// splitSegments splits s on " - " (a dash with blanks on both sides), so that
// hyphenated words such as "Multi-Repo" stay whole.
func splitSegments(s string) []string {
	var out []string
	start := 0
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '-' && isBlank(s[i-1]) && isBlank(s[i+1]) {
			out = append(out, trimBlank(s[start:i]))
			start = i + 1
		}
	}
	return append(out, trimBlank(s[start:]))
}

// parseTaskRest reads what follows "Task <id>": ": <title>" or
// " - <title>", with trailing size/time groups taken off the title.
func parseTaskRest(rest string) (title, size, est, bad string) {
	switch {
	case rest != "" && rest[0] == ':':
		title = trimBlank(rest[1:])
	case rest != "" && rest[0] == '-' && (len(rest) == 1 || isBlank(rest[1])):
		title = trimBlank(rest[1:])
	default:
		return "", "", "", "malformed task heading: want " + taskForms
	}
	title, size, est = taskMeta(title)
	return title, size, est, ""
}

// undecorate takes off what people put before a heading's keyword: emoji
// and other symbols, bold or italic markers, a list number ("4." or "4)"),
// and the closing markers at the end. It reports whether the text then
// starts with a letter (a keyword to look at).
func undecorate(text string) (string, bool) {
	s := text
	for {
		i := 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				break
			}
			i += size
		}
		s = s[i:]
		// A list number: digits then "." or ")" and a blank.
		j := 0
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > 0 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && isBlank(s[j+1]) {
			s = s[j+1:]
			continue
		}
		break
	}
	if s == text || s == "" || isDigit(s[0]) {
		return "", false
	}
	for _, m := range []string{"**", "__", "*", "_", "~~"} {
		s = trimBlank(strings.TrimSuffix(s, m))
	}
	return s, true
}

// gluedHeading recognises "###Task 1.2: x" and "##Phase 2: y": meant as
// headings, but Markdown reads them as text, so the task would vanish. It
// returns the text after the #'s.
func gluedHeading(l string) (string, bool) {
	s, ok := stripIndent(l, 3)
	if !ok {
		return "", false
	}
	n := countRun(s, '#')
	if n == 0 || n > 6 || n >= len(s) || isBlank(s[n]) {
		return "", false
	}
	rest := trimBlank(s[n:])
	kind, _, _, near := keywordHeading(rest)
	return rest, kind != "" || near != ""
}

// heading reads a heading: a phase, a task, a misspelt keyword (an error)
// or anything else (ignored).
func (p *parser) heading(num, level int, text string) {
	// Any heading ends the body of the task above it.
	p.task = nil
	if ph, bad := placeholder(text); bad {
		p.templateError(num, ph)
		// "## Phase {N}: {Name}" is still meant as a phase.
		p.refusedHeading(num, placeholderKind(text), "")
		return
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
		p.errorf(num, "heading %s starts with %s, which looks like a misspelt %q (want %s)", quote(text), quote(word), strings.ToUpper(near[:1])+near[1:], map[string]string{"phase": phaseForms, "task": taskForms}[near])
		p.refusedHeading(num, near, "")
	case kind == "phase":
		p.phaseHeading(num, token, rest)
	case kind == "task":
		p.taskHeading(num, token, rest)
	}
	// Unknown headings are ignored and, deliberately, do not end the current
	// phase: a "## Notes" between two tasks must not orphan the second one.
}

// placeholderKind is what a heading holding a template placeholder was
// meant as: "phase" or "task" when that is its first word, else "".
func placeholderKind(text string) string {
	if bare, ok := undecorate(text); ok {
		text = bare
	}
	switch word, _ := leadingWord(text); {
	case asciiEqualFold(word, "phase"):
		return "phase"
	case asciiEqualFold(word, "task"):
		return "task"
	}
	return ""
}

// refusedHeading sets up what follows a heading that was refused (its error
// is recorded), by what it was meant as (kind "phase" or "task"; "" for
// neither), so that no error follows from the refusal alone. After a phase
// heading the tasks go into a phase of their own, not the one above (nor
// "outside any phase"), and nothing is said of that phase. After a task
// heading its body belongs to no task (p.task is nil) and is no phase's
// Strategy zone, its phase counts as having a task heading (its checklist
// items stay bullets), and its id, when valid, is no dangling dependency.
func (p *parser) refusedHeading(num int, kind, id string) {
	switch kind {
	case "phase":
		p.brokenPhase(num, -1, false)
	case "task":
		p.task, p.zone = nil, false
		if p.phase != nil {
			p.headed[p.phase] = true
		}
		p.refusedTasks++
		if ValidTaskID(id) {
			p.refusedIDs[CanonicalID(id)] = true
		}
	}
}

// brokenPhase starts the phase of a refused phase heading. With register,
// its number (read from the heading) is taken, so that another phase with
// it is still a duplicate.
func (p *parser) brokenPhase(num, n int, register bool) {
	ph := &Phase{Number: n, Mode: Sequential, Path: p.path, Line: num}
	if register {
		p.phases[n] = ph
	}
	p.broken[ph] = true
	p.plan.Phases = append(p.plan.Phases, ph)
	p.phase, p.zone = ph, true
}

// phaseHeading reads "Phase <n>..." and starts the phase.
func (p *parser) phaseHeading(num int, token, rest string) {
	n, ok := parsePhaseNumber(token)
	if !ok {
		p.errorf(num, "malformed phase number %s (want an integer such as 2)", quote(token))
		p.brokenPhase(num, -1, false)
		return
	}
	first, dup := p.phases[n]
	parts, bad := parsePhaseRest(rest)
	if bad != "" {
		p.errorf(num, "%s", bad)
		p.brokenPhase(num, n, !dup)
		return
	}
	if dup {
		p.errorf(num, "duplicate phase %d (first at %s)", n, p.where(first.Path, first.Line))
		p.brokenPhase(num, n, false)
		return
	}
	ph := &Phase{Number: n, Title: parts.title, Mode: Sequential, Estimate: parts.estimate, Path: p.path, Line: num}
	if parts.given {
		ph.Mode, ph.ModeGiven, ph.ModeLine = parts.mode, true, num
	}
	p.phases[n] = ph
	p.phase, p.zone = ph, true
	p.plan.Phases = append(p.plan.Phases, ph)
}

// taskHeading reads "Task <id>..." and adds the task to the current phase.
func (p *parser) taskHeading(num int, id, rest string) {
	if !ValidTaskID(id) {
		p.errorf(num, "malformed task id %s (want numbers joined by dots or dashes, such as 2.1 or 1-1)", quote(id))
		p.refusedHeading(num, "task", "")
		return
	}
	title, size, est, bad := parseTaskRest(rest)
	switch {
	case bad != "":
		p.errorf(num, "%s", bad)
	case p.phase == nil:
		p.errorf(num, "task %s is outside any phase", id)
	case title == "":
		p.errorf(num, "task %s has an empty title", id)
	default:
		t := &Task{ID: id, Title: title, Size: size, Estimate: est, Path: p.path, Line: num}
		if p.addTask(p.phase, t) {
			p.headed[p.phase] = true
			p.task, p.zone = t, false
			return
		}
		// A duplicate id: the task already has its id; its body is
		// another task's, not the first one's.
		p.refusedHeading(num, "task", "")
		return
	}
	p.refusedHeading(num, "task", id)
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
