package plan

import (
	"strings"
	"unicode/utf8"
)

// This file lexes Markdown lines: line breaks, blanks and indentation,
// fences, ATX headings, list items and the emphasis around a value. None of
// it uses regular expressions or backtracking, so each piece costs time
// linear in the line it looks at.

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
