package cliutil

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// DurationHint ends the message for a duration that does not parse.
const DurationHint = "want a duration such as 30m, 12h, 1d or 2w"

// units are the suffixes a duration may use: Go's, and days and weeks,
// which is how people give the age of a worktree or a backup.
var units = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond,
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
	"d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// ParseDuration reads a duration as Go's time.ParseDuration does ("90s",
// "1h30m", "-5m", "0"), also accepting days and weeks: "1d", "2w",
// "1d12h", "1.5d". A day is 24 hours. The error says what is wanted; the
// caller names the flag and the value.
func ParseDuration(s string) (time.Duration, error) {
	bad := errors.New(DurationHint)
	rest := s
	neg := false
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	if rest == "0" {
		return 0, nil
	}
	if rest == "" {
		return 0, bad
	}
	var total time.Duration
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		num := rest[:i]
		rest = rest[i:]
		j := 0
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		unit, ok := units[rest[:j]]
		if !ok || num == "" || num == "." || strings.Count(num, ".") > 1 {
			return 0, bad
		}
		rest = rest[j:]
		var part time.Duration
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			// Whole numbers exactly, as Go's parser does.
			if n > math.MaxInt64/int64(unit) {
				return 0, errTooLong
			}
			part = time.Duration(n) * unit
		} else {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || f*float64(unit) >= math.MaxInt64 {
				return 0, errTooLong
			}
			part = time.Duration(f * float64(unit))
		}
		if total > math.MaxInt64-part {
			return 0, errTooLong
		}
		total += part
	}
	if neg {
		total = -total
	}
	return total, nil
}

var errTooLong = errors.New("too long: at most about 290 years")

// FormatDuration writes d the way ParseDuration reads it, in days and
// weeks where it divides evenly ("2w", "1d", "30m").
func FormatDuration(d time.Duration) string {
	const day, week = 24 * time.Hour, 7 * 24 * time.Hour
	switch {
	case d == 0:
		return "0"
	case d%week == 0:
		return fmt.Sprintf("%dw", d/week)
	case d%day == 0:
		return fmt.Sprintf("%dd", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// Duration is a flag value read by ParseDuration.
type Duration struct{ D time.Duration }

// Set implements flag.Value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	d.D = v
	return nil
}

// String implements flag.Value.
func (d *Duration) String() string {
	if d == nil {
		return ""
	}
	return FormatDuration(d.D)
}

// DurationFlag is a flag holding a Duration (def when not given).
func DurationFlag(name string, def time.Duration, usage string) *cli.GenericFlag {
	return &cli.GenericFlag{Name: name, Value: &Duration{D: def}, Usage: usage}
}

// DurationOf is the value of a DurationFlag.
func DurationOf(c *cli.Context, name string) time.Duration {
	if d, ok := c.Generic(name).(*Duration); ok {
		return d.D
	}
	return 0
}
