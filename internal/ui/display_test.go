package ui

import "testing"

func TestDisplayQuotesControlCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":       "plain title",
		"Создать схему":     "Создать схему",
		"evil \x1b[2J":      `"evil \x1b[2J"`,
		"wt\nx":             `"wt\nx"`,
		"tab\there":         `"tab\there"`,
		"c1 control \u0085": `"c1 control \u0085"`,
	} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %s, want %s", in, got, want)
		}
	}
}
