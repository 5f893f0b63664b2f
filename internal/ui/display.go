package ui

import "strconv"

// Display makes text from plans, paths and git safe to print: text holding
// a control character (an escape sequence in a title, a newline in a path)
// is shown quoted, as git quotes such paths.
func Display(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(s)
		}
	}
	return s
}
