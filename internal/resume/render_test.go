package resume

import (
	"strings"
	"testing"
)

func TestStyleRule(t *testing.T) {
	for _, c := range []struct {
		terminal      bool
		noColor, term string
		want          bool
	}{
		{true, "", "xterm-256color", true},
		{false, "", "xterm-256color", false},
		{true, "1", "xterm-256color", false},
		{true, "", "dumb", false},
	} {
		if got := styleFor("", c.terminal, c.noColor, c.term).Color; got != c.want {
			t.Errorf("styleFor(%v, %q, %q) = %v, want %v", c.terminal, c.noColor, c.term, got, c.want)
		}
	}
	if !styleFor("always", false, "", "xterm").Color || styleFor("never", true, "", "xterm").Color {
		t.Error("color.ui / color.taskresume always and never must win over the terminal test")
	}
	if s := (Style{Color: true}).status("completed"); !strings.Contains(s, "\x1b[") {
		t.Errorf("coloured status %q has no escape", s)
	}
	if s := (Style{}).status("completed"); s != "completed" {
		t.Errorf("plain status %q", s)
	}
}

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
