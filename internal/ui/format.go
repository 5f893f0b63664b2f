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
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh") || strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") {
		return strconv.Itoa(n) + " " + noun + "es"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// When writes a time for people: local time with its offset from UTC, so
// that two lines of one report, or a report and a clean, never mix zones.
// JSON keeps RFC 3339 in UTC.
func When(t time.Time) string { return t.Local().Format("2006-01-02 15:04 -0700") }

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
