package ui

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"x1-task-2-1":     "x1-task-2-1",
		"/r/.worktrees/a": "/r/.worktrees/a",
		"":                "''",
		"a b":             "'a b'",
		"it's":            `'it'\''s'`,
		"$HOME":           "'$HOME'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
