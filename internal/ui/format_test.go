package ui

import (
	"testing"
	"time"
)

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 commits", 1: "1 commit", 2: "2 commits", 11: "11 commits"} {
		if got := Plural(n, "commit"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// Every time is local, with its offset: a UTC time and a time in another
// zone that are the same instant are written alike.
func TestWhenIsLocalWithOffset(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	time.Local = time.FixedZone("X", -7*3600)
	instant := time.Date(2026, 1, 1, 12, 30, 0, 0, time.UTC)
	want := "2026-01-01 05:30 -0700"
	if got := When(instant); got != want {
		t.Errorf("When(UTC) = %q, want %q", got, want)
	}
	if got := When(instant.In(time.FixedZone("Y", 9*3600))); got != want {
		t.Errorf("When(+0900) = %q, want %q", got, want)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		12_900_000: "12.3 MiB", 3 << 30: "3.0 GiB", 5 << 40: "5.0 TiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
