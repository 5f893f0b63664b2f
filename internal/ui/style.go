package ui

import (
	"os"
	"strings"
)

// Color decides colour as git does for its own commands: setting is the
// value of color.<command>, else color.ui ("" when neither is set).
// "always" colours whatever the output is; "never" and false values never
// do; "auto", true values, nothing set, and values git would refuse colour
// a terminal only, unless NO_COLOR is set or TERM is dumb.
func Color(setting string, terminal bool, noColor, term string) bool {
	switch strings.ToLower(setting) {
	case "always":
		return true
	case "never", "false", "no", "off", "0":
		return false
	}
	return terminal && noColor == "" && term != "dumb"
}

// colorKeys are the commands' own colour keys, lower-cased as git config
// --get-regexp prints them. Each is written whole, not as "color." and the
// command's name, so that the test of the man pages, which looks for the
// keys the sources name, finds every key read.
var colorKeys = map[string]string{
	"taskresume": "color.taskresume",
	"taskclean":  "color.taskclean",
}

// ColorSetting picks the setting that applies to command ("taskresume",
// "taskclean") from git config (keys lowercased, as git config
// --get-regexp prints them): color.<command> wins over color.ui. A key set
// with no value ("[color] ui") is true.
func ColorSetting(cfg map[string]string, command string) string {
	for _, k := range []string{colorKeys[command], "color.ui"} {
		if v, ok := cfg[k]; ok {
			if v == "" {
				return "true"
			}
			return v
		}
	}
	return ""
}

// Style decides colour: the zero Style writes plain text.
type Style struct{ Color bool }

// StyleForSetting returns the style for writing to f under setting, the
// value of color.<command> or color.ui (ColorSetting): as git, "always"
// colours a pipe too, "never" a terminal neither; otherwise colour is for
// terminals only, and NO_COLOR (any value) or TERM=dumb turn it off.
func StyleForSetting(f *os.File, setting string) Style {
	fi, err := f.Stat()
	return styleFor(setting, err == nil && fi.Mode()&os.ModeCharDevice != 0, os.Getenv("NO_COLOR"), os.Getenv("TERM"))
}

func styleFor(setting string, terminal bool, noColor, term string) Style {
	return Style{Color: Color(setting, terminal, noColor, term)}
}

// The colours a report paints with, by what they say: Good (green) for
// what is done, Warn (yellow) for what needs a look, Faint (dim) for what
// is not in play, Strong (bold) for what to do next.

// Good paints text green.
func (s Style) Good(text string) string { return s.paint("32", text) }

// Warn paints text yellow.
func (s Style) Warn(text string) string { return s.paint("33", text) }

// Faint paints text dim.
func (s Style) Faint(text string) string { return s.paint("2", text) }

// Strong paints text bold.
func (s Style) Strong(text string) string { return s.paint("1", text) }

// paint wraps text in the SGR code, and a reset, when the style colours.
func (s Style) paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}
