package plan

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// This file holds how the parser reports what it finds: the Warning and
// Error it returns, each placed at a file and line, and the quoting that
// keeps a message short whatever the plan holds.

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

type fileWarning struct {
	Warning
	file int // index of the file, to keep warnings in file order
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

func quote(s string) string { return `"` + shorten(s) + `"` }

// shorten cuts s for a message so a hostile plan cannot make a huge one.
func shorten(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
