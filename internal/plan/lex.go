package plan

import (
	"strings"
	"unicode/utf8"
)

// This file holds the Markdown-level pieces: lines, fences, headings, list
// items and small string helpers. None of them uses regular expressions or
// backtracking, so each costs time linear in the line it looks at.

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
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold is strings.HasPrefix with asciiEqualFold.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && asciiEqualFold(s[:len(prefix)], prefix)
}

// leadingWord splits s into its leading run of ASCII letters and the rest.
// Keywords (Phase, Task, Parallel) are ASCII, and comparing only letters
// keeps "Phase:" and "Phase 1" apart from "Phases".
func leadingWord(s string) (word, rest string) {
	i := 0
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	return s[:i], s[i:]
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

// placeholder returns the first template placeholder in s: "{N}",
// "{Feature Name}", "{sequential|parallel}" (braces around letters, digits,
// blanks, '_' and '|') or "${anything}". A plan still holding one was copied
// from a template and never filled in. The scan never revisits a byte, so a
// line of a million '{' stays linear.
func placeholder(s string) (string, bool) {
	dollarOpen := true // false once a "${" had no '}' after it: none later can
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		if dollarOpen && i > 0 && s[i-1] == '$' {
			if j := strings.IndexByte(s[i:], '}'); j >= 0 {
				return s[i-1 : i+j+1], true
			}
			dollarOpen = false
		}
		if i > 0 && (s[i-1] == '/' || isAlnum(s[i-1]) || s[i-1] == '}') {
			continue // a path template ("/users/{id}"), not a blank to fill in
		}
		j := i + 1
		for j < len(s) && (isAlnum(s[j]) || isBlank(s[j]) || s[j] == '_' || s[j] == '|') {
			j++
		}
		if j < len(s) && s[j] == '}' && trimBlank(s[i+1:j]) != "" {
			return s[i : j+1], true
		}
		i = j - 1
	}
	return "", false
}

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

// withinTwoEdits reports whether a and b (compared in ASCII lower case) are
// at most two edits apart, where an edit inserts, deletes or replaces one
// byte or swaps two neighbours (optimal string alignment distance). Words
// whose lengths differ by more than two are rejected before any work, so the
// table is never larger than the keyword it is compared with.
func withinTwoEdits(a, b string) bool {
	if d := len(a) - len(b); d > 2 || d < -2 {
		return false
	}
	if len(a) > 16 || len(b) > 16 {
		return false
	}
	var rows [3][18]int
	for j := 0; j <= len(b); j++ {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur, prev, prev2 := &rows[i%3], &rows[(i-1)%3], &rows[(i-2+3)%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lower(a[i-1]) == lower(b[j-1]) {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && lower(a[i-1]) == lower(b[j-2]) && lower(a[i-2]) == lower(b[j-1]) {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
	}
	return rows[len(a)%3][len(b)] <= 2
}
