package plan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads the text of a heading: which headings are phases or tasks,
// and the pieces of each (number or id, title, mode, size and time).

// Accepted forms, quoted in the errors so the user sees how to fix a heading.
const (
	phaseForms = `"Phase <n>: <title>", "Phase <n>: <title> (Parallel)", "Phase <n>", "Phase <n> (4h)", "Phase <n> (Sequential)" or "Phase <n> - Parallel - <title>"`
	taskForms  = `"Task <id>: <title>" or "Task <id> - <title>", optionally ending in "(M - 2h)", "(M)" or "(2h)"`
)

// notNearMisses are ordinary English words within two edits of "phase" or
// "task" that often head numbered sections ("## Test 1", "### Case 2: ...").
// A heading starting with one of them is prose, not a misspelt keyword.
var notNearMisses = map[string]bool{
	// near "task"
	"test": true, "tests": true, "tab": true, "tag": true, "tax": true, "take": true, "talk": true,
	"tank": true, "tale": true, "tape": true, "track": true, "tracks": true, "stack": true,
	"mask": true, "ask": true, "last": true, "past": true, "fast": true, "cast": true, "east": true,
	"vast": true, "toast": true, "desk": true, "disk": true, "risk": true,
	// near "phase"
	"case": true, "cases": true, "base": true, "page": true, "pages": true, "pass": true,
	"place": true, "pace": true, "face": true, "race": true, "ease": true, "parse": true,
	"share": true, "shape": true, "chase": true, "phrase": true, "phone": true, "pause": true,
	"paste": true, "pulse": true, "prose": true,
}

// nearMiss reports whether word looks like a misspelling of keyword: within
// two edits of it without being it, and not an ordinary word.
func nearMiss(word, keyword string) bool {
	return word != "" && !asciiEqualFold(word, keyword) && withinTwoEdits(word, keyword) &&
		!notNearMisses[strings.ToLower(word)]
}

// modeWord reads a mode from the first word of s: Parallel or Sequential in
// any case. bad is a message when the word is a misspelt mode or s offers a
// choice ("parallel|sequential"): both mean the author has to decide.
func modeWord(s string) (m Mode, ok bool, bad string) {
	word, _ := leadingWord(s)
	switch {
	case asciiEqualFold(word, string(Parallel)):
		m = Parallel
	case asciiEqualFold(word, string(Sequential)):
		m = Sequential
	case nearMiss(word, string(Parallel)) || nearMiss(word, string(Sequential)):
		return "", false, "misspelt mode " + quote(word) + ` (want "Parallel" or "Sequential")`
	default:
		return "", false, ""
	}
	if strings.IndexByte(s, '|') >= 0 {
		return "", false, "mode " + quote(s) + ` offers a choice: choose one of "Parallel" or "Sequential"`
	}
	return m, true, ""
}

func quote(s string) string { return `"` + shorten(s) + `"` }

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

// timeUnits end an estimate such as "4h", "2-3 days" or "30 min".
var timeUnits = map[string]bool{
	"h": true, "hr": true, "hrs": true, "hour": true, "hours": true,
	"m": true, "min": true, "mins": true, "minute": true, "minutes": true,
	"d": true, "day": true, "days": true, "w": true, "wk": true, "wks": true, "week": true, "weeks": true,
}

// timeEstimate recognises an estimate on its own: a number or range ("4",
// "2-3", "1.5", "~2") followed by a time unit. Blanks are allowed only
// before the unit, so "3 - 2d" stays a size and an estimate.
func timeEstimate(s string) bool {
	s = trimBlank(s)
	i := 0
	if i < len(s) && s[i] == '~' {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return false
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == '-') {
		i++
	}
	return timeUnits[strings.ToLower(trimLeft(s[i:]))]
}

// sizeEstimate recognises the size and time a task's trailing parentheses or
// Complexity line give: "M - 2h", "M" (a T-shirt size alone), "2h" (time
// alone) and "M (2h)". To keep ordinary parenthesised words such as
// "(follow-up)" in the title, a size before a dash must be a short word of
// letters and digits, and the estimate must hold a digit unless the size is
// a T-shirt size.
func sizeEstimate(inner string) (size, est string, ok bool) {
	inner = trimBlank(inner)
	switch {
	case tshirt[strings.ToLower(inner)]:
		return inner, "", true
	case timeEstimate(inner):
		return "", inner, true
	}
	if g, before, ok := trailingGroup(inner); ok && tshirt[strings.ToLower(before)] && timeEstimate(g) {
		return before, g, true
	}
	dash := strings.IndexByte(inner, '-')
	if dash < 0 {
		return "", "", false
	}
	size, est = trimBlank(inner[:dash]), trimBlank(inner[dash+1:])
	if size == "" || len(size) > 8 || est == "" {
		return "", "", false
	}
	for i := 0; i < len(size); i++ {
		if !isAlnum(size[i]) {
			return "", "", false
		}
	}
	if !strings.ContainsAny(est, "0123456789") && !tshirt[strings.ToLower(size)] {
		return "", "", false
	}
	return size, est, true
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

// taskMeta takes trailing size/time groups off a task title: "(M - 2h)",
// or "(M)" and "(2h)" on their own or one after the other.
func taskMeta(title string) (string, string, string) {
	var size, est string
	for {
		inner, before, ok := trailingGroup(title)
		if !ok {
			return title, size, est
		}
		s, e, ok := sizeEstimate(inner)
		if !ok || s != "" && size != "" || e != "" && est != "" {
			return title, size, est
		}
		if s != "" {
			size = s
		}
		if e != "" {
			est = e
		}
		title = before
	}
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
