// Package ui holds what both commands share in how they write for people:
// counts and times, written the same way everywhere.
package ui

import (
	"strconv"
	"strings"
	"time"
)

// Plural writes a count with its noun: "1 commit", "2 commits". Every noun
// the commands count takes an s.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// When writes a time for people: local time with its offset from UTC, so
// that two lines of one report, or a report and a clean, never mix zones.
// JSON keeps RFC 3339 in UTC.
func When(t time.Time) string { return t.Local().Format("2006-01-02 15:04 -0700") }

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

// ColorSetting picks the setting that applies to command from git config
// (keys lowercased, as git config --get-regexp prints them): color.<command>
// wins over color.ui. A key set with no value ("[color] ui") is true.
func ColorSetting(cfg map[string]string, command string) string {
	for _, k := range []string{"color." + command, "color.ui"} {
		if v, ok := cfg[k]; ok {
			if v == "" {
				return "true"
			}
			return v
		}
	}
	return ""
}

// Bytes writes a size for people, in binary units as du -h counts them:
// "512 B", "1.5 KiB", "12.3 MiB", "2.0 GiB".
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
}
