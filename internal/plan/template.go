package plan

import (
	"strings"
)

// This file finds template placeholders ("{N}", "${name}"): a plan that
// still holds one was copied from a template and never filled in.

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

func (p *parser) templateError(num int, ph string) {
	p.errorf(num, "template placeholder %s in the plan: fill it in", quote(ph))
}
