package plan

import (
	"strings"
)

// This file tells a misspelt keyword ("Taks 3.1", "Paralel") from an
// ordinary word, so that a typo is an error instead of a task or mode that
// silently vanishes.

// nearMiss reports whether word looks like a misspelling of keyword: within
// two edits of it without being it, and not an ordinary word.
func nearMiss(word, keyword string) bool {
	return word != "" && !asciiEqualFold(word, keyword) && withinTwoEdits(word, keyword) &&
		!notNearMisses[strings.ToLower(word)]
}

// notNearMisses are ordinary English words within two edits of "phase" or
// "task" that often head numbered sections ("## Test 1", "### Case 2: ...").
// A heading starting with one of them is prose, not a misspelt keyword.
var notNearMisses = map[string]bool{
	// near "task"
	"test": true, "tests": true, "tab": true, "tag": true, "tax": true, "take": true, "talk": true,
	"tank": true, "tale": true, "tape": true, "track": true, "tracks": true, "stack": true,
	"mask": true, "ask": true, "last": true, "past": true, "fast": true, "cast": true, "east": true,
	"vast": true, "toast": true, "desk": true, "disk": true, "risk": true,
	// near "phase"
	"case": true, "cases": true, "base": true, "page": true, "pages": true, "pass": true,
	"place": true, "pace": true, "face": true, "race": true, "ease": true, "parse": true,
	"share": true, "shape": true, "chase": true, "phrase": true, "phone": true, "pause": true,
	"paste": true, "pulse": true, "prose": true,
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
