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

// Error is one thing that makes a plan one the commands cannot trust, at
// the file and line to fix.
type Error struct {
	Path string
	Line int
	Msg  string
}

// Error renders the error as "path:line: message".
func (e *Error) Error() string { return position(e.Path, e.Line) + e.Msg }

// Errors is every error Parse found in a plan, in file order (the files as
// given, then by line), never empty. A caller that reports one error gets
// the first: Error() is its text and errors.As to *Error yields it. A
// caller that lists them (--check-plan) ranges over the slice.
type Errors []*Error

// Error is the first error's text: the one a caller that reports one error
// prints.
func (es Errors) Error() string {
	if len(es) == 0 {
		return "no plan error"
	}
	return es[0].Error()
}

// Unwrap lets errors.As and errors.Is look at each error, the first first.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

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

type fileError struct {
	*Error
	file int // index of the file, to keep errors in file order
}

// errorf records an error at line of the file being read; reading goes on,
// and the caller decides what the rest of the plan can still be read as.
func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, fileError{&Error{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)}, p.file})
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
