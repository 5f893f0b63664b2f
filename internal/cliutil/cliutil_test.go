package cliutil

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	const day, week = 24 * time.Hour, 7 * 24 * time.Hour
	good := map[string]time.Duration{
		"0":      0,
		"90s":    90 * time.Second,
		"30m":    30 * time.Minute,
		"12h":    12 * time.Hour,
		"1h30m":  90 * time.Minute,
		"1d":     day,
		"2w":     2 * week,
		"1d12h":  36 * time.Hour,
		"2w3d":   17 * day,
		"1.5d":   36 * time.Hour,
		"-5m":    -5 * time.Minute,
		"+1d":    day,
		"500ms":  500 * time.Millisecond,
		"1µs":    time.Microsecond,
		"10000w": 10000 * week,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
		// Where Go reads it, the answer is Go's.
		if d, err := time.ParseDuration(in); err == nil && d != got {
			t.Errorf("ParseDuration(%q) = %v, Go says %v", in, got, d)
		}
	}
	for _, in := range []string{"", "1x", "d", "1", "1dd", "1.2.3h", "-", "1d 2h", "1D", "soon", "1d-2h", ".d", "99999999999999w"} {
		if d, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, d)
		}
	}
	if _, err := ParseDuration("1x"); err == nil || err.Error() != DurationHint {
		t.Errorf("error for 1x: %v, want %q", err, DurationHint)
	}
}

func TestFormatDurationRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{0, time.Second, 30 * time.Minute, 36 * time.Hour, 24 * time.Hour, 14 * 24 * time.Hour, 1500 * time.Millisecond} {
		s := FormatDuration(d)
		back, err := ParseDuration(s)
		if err != nil || back != d {
			t.Errorf("FormatDuration(%v) = %q, read back as %v, %v", d, s, back, err)
		}
	}
	if s := FormatDuration(14 * 24 * time.Hour); s != "2w" {
		t.Errorf("FormatDuration(2 weeks) = %q", s)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"json", "exit-code", "next", "list", "base", "plan", "from-phase", "remote", "claim", "as", "ttl", "renew", "release", "check-plan", "n", "dry-run"}
	cases := map[string]string{
		"jsn":        "json",
		"josn":       "json", // a swap is one edit
		"exit_code":  "exit-code",
		"exitcode":   "exit-code",
		"exit":       "exit-code", // the only name it starts
		"relase":     "release",
		"chek-plan":  "check-plan",
		"from-phse":  "from-phase",
		"bogus":      "",
		"x":          "",
		"r":          "",
		"all":        "",
		"upload-pak": "",
		"re":         "", // starts several names
		"dryrun":     "dry-run",
		"JSON":       "json",
		"lst":        "list",
		"nxt":        "next",
		"as":         "as",
	}
	for typed, want := range cases {
		if got := Suggest(typed, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestPermuteKeepsValues(t *testing.T) {
	got, err := Permute([]string{"x1", "--older-than", "-5m", "--json", "--", "-v"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without flag definitions nothing takes a value: -5m stays a flag.
	if strings.Join(got, " ") != "--older-than -5m --json -- x1 -v" {
		t.Errorf("Permute = %q", got)
	}
}
