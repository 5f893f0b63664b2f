package worktree

import (
	"fmt"
	"strings"
)

// This file quotes paths for the git commands that read them one a line
// (`hash-object --stdin-paths`), so that any byte of a name reaches git as
// it is.

// cQuote quotes a path the way git reads a quoted line of --stdin-paths:
// in double quotes, with \" \\ and every byte outside printable ASCII as
// an octal escape. Every path is quoted, so that one that starts with a
// quote, or holds a newline, reaches git as it is.
func cQuote(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// admQuote quotes a path the way hash-object --stdin-paths unquotes it, so
// that a newline in a name (or in the repository's path) cannot split it.
func admQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
