package plan

import (
	"strings"
)

// This file reads the lines between headings that carry structure: the run
// id, a phase's Strategy, a task's Complexity and Dependencies, checklist
// tasks, and the front matter at the top of the file.

// labelValue recognises a "<label>: value" line in the forms plans write:
// "Label: x", "**Label**: x", "**Label:** x", "__Label__: x", each optionally
// as a list item, with the label's words in any case and separated by any
// blanks. It returns the value with one layer of bold or code removed.
func labelValue(l string, words ...string) (string, bool) {
	s := trimLeft(l)
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && isBlank(s[1]) {
		s = trimLeft(s[2:])
	}
	bold := ""
	if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
		bold, s = s[:2], s[2:]
	}
	for i, w := range words {
		if i > 0 {
			// "Run ID", never "RunID" or "Running".
			if s == "" || !isBlank(s[0]) {
				return "", false
			}
			s = trimLeft(s)
		}
		if !hasPrefixFold(s, w) {
			return "", false
		}
		s = s[len(w):]
	}
	if s != "" && isLetter(s[0]) {
		return "", false
	}
	s = trimLeft(s)
	switch {
	case bold == "":
		if !strings.HasPrefix(s, ":") {
			return "", false
		}
		s = s[1:]
	case strings.HasPrefix(s, bold): // **Label**: x
		s = trimLeft(s[2:])
		if !strings.HasPrefix(s, ":") {
			return "", false
		}
		s = s[1:]
	case strings.HasPrefix(s, ":"): // **Label:** x
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

// parseRunIDLine recognises the run id line ("Run ID: x" and its bold and
// list-item forms) and returns the raw value for validation.
func parseRunIDLine(l string) (string, bool) { return labelValue(l, "run", "id") }

// frontMatterRunID reads one line of YAML front matter and returns the value
// of a run id key: runId, run_id or run-id in any case, the value optionally
// quoted. Other keys are none of the plan's business.
func frontMatterRunID(l string) (string, bool) {
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		return "", false
	}
	key := trimBlank(l[:colon])
	if !asciiEqualFold(key, "runid") && !asciiEqualFold(key, "run_id") && !asciiEqualFold(key, "run-id") {
		return "", false
	}
	v := trimBlank(l[colon+1:])
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : 1+end], true
		}
	}
	// YAML: " #" starts a comment ("runId: a1b2c3  # set by the orchestrator").
	if i := strings.Index(v, " #"); i >= 0 {
		v = trimBlank(v[:i])
	} else if i := strings.Index(v, "\t#"); i >= 0 {
		v = trimBlank(v[:i])
	}
	return v, true
}

// isFrontMatterFence reports whether l opens or closes YAML front matter.
func isFrontMatterFence(l string, closing bool) bool {
	l = trimBlank(l)
	return l == "---" || closing && l == "..."
}

// preamble follows the lines before a plan's first content line, which may
// be blank or HTML comments, to find front matter, which must come first.
type preamble struct {
	done      bool
	inComment bool
}

// next reports whether l is still preamble (blank, or part of an HTML
// comment). The first other line ends the preamble.
func (pr *preamble) next(l string) bool {
	s := trimBlank(l)
	if pr.inComment {
		if i := strings.Index(s, "-->"); i >= 0 {
			pr.inComment = false
			if trimBlank(s[i+3:]) != "" {
				pr.done = true
				return false
			}
		}
		return true
	}
	if s == "" {
		return true
	}
	if strings.HasPrefix(s, "<!--") {
		i := strings.Index(s[4:], "-->")
		if i < 0 {
			pr.inComment = true
			return true
		}
		if trimBlank(s[4+i+3:]) == "" {
			return true
		}
	}
	pr.done = true
	return false
}

// strategyValue recognises a phase's Strategy line; "**Testing Strategy:**"
// is not one because its first word is not Strategy.
func strategyValue(l string) (string, bool) { return labelValue(l, "strategy") }

// complexity reads "M (4h)", "M - 4h", "M" or "4h" from a Complexity line.
func complexity(v string) (size, est string, ok bool) { return sizeEstimate(v) }

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
