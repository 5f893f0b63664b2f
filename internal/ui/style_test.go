package ui

import (
	"strings"
	"testing"
)

func TestColorAsGit(t *testing.T) {
	for _, c := range []struct {
		setting       string
		terminal      bool
		noColor, term string
		want          bool
	}{
		{"", true, "", "xterm", true},
		{"", false, "", "xterm", false},
		{"auto", true, "", "xterm", true},
		{"true", false, "", "xterm", false},
		{"always", false, "", "xterm", true},
		{"Always", false, "1", "dumb", true},
		{"never", true, "", "xterm", false},
		{"false", true, "", "xterm", false},
		{"off", true, "", "xterm", false},
		{"", true, "1", "xterm", false},
		{"", true, "", "dumb", false},
	} {
		if got := Color(c.setting, c.terminal, c.noColor, c.term); got != c.want {
			t.Errorf("Color(%q, terminal %v, NO_COLOR %q, TERM %q) = %v, want %v", c.setting, c.terminal, c.noColor, c.term, got, c.want)
		}
	}
	cfg := map[string]string{"color.ui": "never", "color.taskresume": "always"}
	if got := ColorSetting(cfg, "taskresume"); got != "always" {
		t.Errorf("color.taskresume must win over color.ui: %q", got)
	}
	if got := ColorSetting(cfg, "taskclean"); got != "never" {
		t.Errorf("color.ui applies without color.taskclean: %q", got)
	}
	if got := ColorSetting(map[string]string{"color.ui": ""}, "taskclean"); got != "true" {
		t.Errorf("a key with no value is true: %q", got)
	}
}

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
	if s := (Style{Color: true}).Good("completed"); s != "\x1b[32mcompleted\x1b[0m" {
		t.Errorf("coloured text %q", s)
	}
	for _, paint := range []func(Style, string) string{Style.Good, Style.Warn, Style.Faint, Style.Strong} {
		if s := paint(Style{}, "completed"); s != "completed" {
			t.Errorf("plain text %q", s)
		}
		if s := paint(Style{Color: true}, "completed"); !strings.HasPrefix(s, "\x1b[") || !strings.HasSuffix(s, "completed\x1b[0m") {
			t.Errorf("coloured text %q has no escape", s)
		}
	}
}
