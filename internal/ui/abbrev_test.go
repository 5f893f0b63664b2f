package ui

import "testing"

func TestShortAndFirstFew(t *testing.T) {
	if got := Short("0123456789abcdef"); got != "0123456789ab" {
		t.Errorf("Short = %q", got)
	}
	if got := Short("abc"); got != "abc" {
		t.Errorf("Short of a short id = %q", got)
	}
	if got := FirstFew([]string{"a", "b", "c"}); got != "a, b, c" {
		t.Errorf("FirstFew of three = %q", got)
	}
	if got := FirstFew([]string{"a", "b", "c", "d", "e"}); got != "a, b, c and 2 more" {
		t.Errorf("FirstFew of five = %q", got)
	}
}
