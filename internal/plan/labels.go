package plan

import (
	"strings"
)

// This file recognises the "Label: value" lines a plan writes, in every
// form of bold and list item, and the run id line among them.

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
