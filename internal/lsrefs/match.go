package lsrefs

import "strings"

// simplePattern says whether List can ask for pattern by prefix: it names
// refs under refs/ and its only wildcard is '*' (ls-remote's '?', '[...]'
// and '\' escapes are left to ls-remote itself).
func simplePattern(pattern string) bool {
	return strings.HasPrefix(pattern, "refs/") && !strings.ContainsAny(pattern, "?[\\")
}

// prefixes are the ref-prefix lines asked for patterns: each pattern's
// text before its first '*' (the whole pattern when it has none), once.
func prefixes(patterns []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range patterns {
		if i := strings.IndexByte(p, '*'); i >= 0 {
			p = p[:i]
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// keep says whether ls-remote --refs would list ref for patterns among
// refs asked by prefix: the ref begins with a pattern's prefix (servers
// need not honour prefixes, and a v0 server sends everything), is a valid
// name under refs/ (--refs), and matches the pattern as ls-remote matches
// ("*/<pattern>" against "/<ref>").
func keep(ref string, patterns []string) bool {
	rest, ok := strings.CutPrefix(ref, "refs/")
	if !ok || !validRefname(rest) {
		return false
	}
	for _, p := range patterns {
		pre := p
		if i := strings.IndexByte(p, '*'); i >= 0 {
			pre = p[:i]
		}
		if strings.HasPrefix(ref, pre) && globMatch("*/"+p, "/"+ref) {
			return true
		}
	}
	return false
}

// globMatch matches text against pattern whose only wildcard is '*',
// matching any text, '/' included (git's wildmatch without WM_PATHNAME).
func globMatch(pattern, text string) bool {
	// The classic linear backtracking: on a mismatch, let the last '*'
	// take one more character.
	p, t := 0, 0
	star, mark := -1, 0
	for t < len(text) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, t
			p++
		case p < len(pattern) && pattern[p] == text[t]:
			p++
			t++
		case star >= 0:
			mark++
			p, t = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// validRefname is git's check_refname_format(name, 0), for the part of a
// ref after "refs/": at least two components, none empty, none beginning
// with '.' or ending with ".lock", no "..", "@{", control characters,
// space, ':', '?', '[', '\', '^', '~', '*' or DEL, not "@", and no '.' at
// the end.
func validRefname(name string) bool {
	return strings.Contains(name, "/") && wellFormed(name)
}

// wellFormed is check_refname_format(name, REFNAME_ALLOW_ONELEVEL): the
// rules of validRefname for a name of any number of components.
func wellFormed(name string) bool {
	if name == "@" {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c[0] == '.' || strings.HasSuffix(c, ".lock") {
			return false
		}
		var last byte
		for i := 0; i < len(c); i++ {
			ch := c[i]
			switch {
			case ch < 0x20 || ch == 0x7f || strings.IndexByte(" :?[\\^~*", ch) >= 0:
				return false
			case ch == '.' && last == '.', ch == '{' && last == '@':
				return false
			}
			last = ch
		}
	}
	return !strings.HasSuffix(name, ".")
}
