package plan

import (
	"strings"
)

// This file reads the size and time estimates of tasks and phases: the
// trailing groups "(M - 2h)", "(M)" and "(2h)" of a heading and the value
// of a task's Complexity line.

// tshirt sizes are recognised even when the estimate has no digit, e.g. "(L - TBD)".
var tshirt = map[string]bool{"xxs": true, "xs": true, "s": true, "m": true, "l": true, "xl": true, "xxl": true}

// timeUnits end an estimate such as "4h", "2-3 days" or "30 min".
var timeUnits = map[string]bool{
	"h": true, "hr": true, "hrs": true, "hour": true, "hours": true,
	"m": true, "min": true, "mins": true, "minute": true, "minutes": true,
	"d": true, "day": true, "days": true, "w": true, "wk": true, "wks": true, "week": true, "weeks": true,
}

// timeEstimate recognises an estimate on its own: a number or range ("4",
// "2-3", "1.5", "~2") followed by a time unit. Blanks are allowed only
// before the unit, so "3 - 2d" stays a size and an estimate.
func timeEstimate(s string) bool {
	s = trimBlank(s)
	i := 0
	if i < len(s) && s[i] == '~' {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return false
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == '-') {
		i++
	}
	return timeUnits[strings.ToLower(trimLeft(s[i:]))]
}

// sizeEstimate recognises the size and time a task's trailing parentheses or
// Complexity line give: "M - 2h", "M" (a T-shirt size alone), "2h" (time
// alone) and "M (2h)". To keep ordinary parenthesised words such as
// "(follow-up)" in the title, a size before a dash must be a short word of
// letters and digits, and the estimate must hold a digit unless the size is
// a T-shirt size.
func sizeEstimate(inner string) (size, est string, ok bool) {
	inner = trimBlank(inner)
	switch {
	case tshirt[strings.ToLower(inner)]:
		return inner, "", true
	case timeEstimate(inner):
		return "", inner, true
	}
	if g, before, ok := trailingGroup(inner); ok && tshirt[strings.ToLower(before)] && timeEstimate(g) {
		return before, g, true
	}
	dash := strings.IndexByte(inner, '-')
	if dash < 0 {
		return "", "", false
	}
	size, est = trimBlank(inner[:dash]), trimBlank(inner[dash+1:])
	if size == "" || len(size) > 8 || est == "" {
		return "", "", false
	}
	for i := 0; i < len(size); i++ {
		if !isAlnum(size[i]) {
			return "", "", false
		}
	}
	if !strings.ContainsAny(est, "0123456789") && !tshirt[strings.ToLower(size)] {
		return "", "", false
	}
	return size, est, true
}

// taskMeta takes trailing size/time groups off a task title: "(M - 2h)",
// or "(M)" and "(2h)" on their own or one after the other.
func taskMeta(title string) (string, string, string) {
	var size, est string
	for {
		inner, before, ok := trailingGroup(title)
		if !ok {
			return title, size, est
		}
		s, e, ok := sizeEstimate(inner)
		if !ok || s != "" && size != "" || e != "" && est != "" {
			return title, size, est
		}
		if s != "" {
			size = s
		}
		if e != "" {
			est = e
		}
		title = before
	}
}

// complexity reads "M (4h)", "M - 4h", "M" or "4h" from a Complexity line.
func complexity(v string) (size, est string, ok bool) { return sizeEstimate(v) }
