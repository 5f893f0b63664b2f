package plan

// This file holds the ASCII-only character classes and case folding that
// keywords, labels and ids are compared with.

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

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
