package ui

import "testing"

// The distance of "did you mean": an adjacent swap is one edit (a typed id
// with two characters swapped is the nearest), as in git's help.c.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a1b2c3", "a1b2c3", 0},
		{"a1b2c3", "a1b2c4", 1},
		{"a1b2c3", "a1b23c", 1}, // swap
		{"beef01", "beef10", 1}, // swap
		{"c0ffee", "c0ffe", 1},
		{"c0ffe", "c0ffee", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // the optimal string alignment form: no edit of a swapped pair
		{"a9b9c9", "a1b2c3", 3},
		{"", "abc", 3},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
