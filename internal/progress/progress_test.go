package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// screen is what the meter wrote, read under the meter's lock: its timer
// writes from a goroutine of its own.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// A step that ends within the delay prints nothing, whatever its updates.
func TestNothingWithinTheDelay(t *testing.T) {
	var w screen
	m := New(&w, time.Hour)
	s := m.StartBytes("Removing worktrees", 3, "freed")
	for i := 1; i <= 3; i++ {
		s.Add(1, 1<<20)
	}
	s.Done()
	m.Start("Reading remote origin", 0).Done()
	m.Close()
	if got := w.String(); got != "" {
		t.Errorf("a step shorter than the delay printed %q", got)
	}
}

// Past the delay the line is git's, rewritten with "\r" on each change of
// the percentage and ended by ", done." and a newline.
func TestLineRewrittenThenDone(t *testing.T) {
	var w screen
	m := New(&w, 0)
	s := m.Start("Saving worktrees", 30)
	s.Update(12)
	s.Update(30)
	s.Done()
	s.Done() // once
	want := "Saving worktrees:   0% (0/30)\r" +
		"Saving worktrees:  40% (12/30)\r" +
		"Saving worktrees: 100% (30/30)\r" +
		"Saving worktrees: 100% (30/30), done.\n"
	if got := w.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// The bytes follow the counts, as git's throughput does; a line shorter
// than the one it replaces blanks what that one leaves.
func TestBytesAndShorterLine(t *testing.T) {
	var w screen
	m := New(&w, 0)
	s := m.StartBytes("Removing worktrees", 30, "freed")
	s.Add(4, 120<<20)
	if got, want := w.String(), "Removing worktrees:   0% (0/30), 0 bytes freed\rRemoving worktrees:  13% (4/30), 120.00 MiB freed\r"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	s.Done()

	w = screen{}
	s = m.StartBytes("T", 2, "freed")
	s.Add(1, 1023)
	s.Add(1, 1100-1023)
	long, short := "T:  50% (1/2), 1023 bytes freed", "T: 100% (2/2), 1.07 KiB freed"
	if got := w.String(); !strings.Contains(got, long+"\r"+short+strings.Repeat(" ", len(long)-len(short))+"\r") {
		t.Errorf("the shorter line does not blank the longer one's end: %q", got)
	}
	s.Done()
}

// Between changes of the percentage the line is redrawn at most once a
// second (git's timer): a count that moves within one percent is not
// drawn again each time.
func TestThrottle(t *testing.T) {
	for _, c := range []struct {
		every time.Duration
		draws int
	}{{time.Hour, 2}, {0, 11}} {
		var w screen
		m := New(&w, 0)
		m.every = c.every
		s := m.Start("Counting", 1000)
		for i := 1; i <= 10; i++ { // 0% up to 9, 1% at 10
			s.Update(i)
		}
		if got := strings.Count(w.String(), "\r"); got != c.draws {
			t.Errorf("every %v: %d draws, want %d: %q", c.every, got, c.draws, w.String())
		}
		s.Done()
	}
}

// A step nobody updates shows its title once the delay ends, and ends it
// with ", done.".
func TestTitleAfterTheDelay(t *testing.T) {
	var w screen
	m := New(&w, 20*time.Millisecond)
	s := m.Start("Reading remote origin", 0)
	if got := w.String(); got != "" {
		t.Fatalf("drawn before the delay: %q", got)
	}
	for deadline := time.Now().Add(5 * time.Second); w.String() == "" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	s.Done()
	if got, want := w.String(), "Reading remote origin\rReading remote origin, done.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Close blanks a line whose step did not end (an error follows it), and
// nothing is drawn after.
func TestCloseBlanks(t *testing.T) {
	var w screen
	m := New(&w, 0)
	s := m.Start("Saving worktrees", 2)
	m.Close()
	s.Update(1)
	s.Done()
	m.Start("Removing worktrees", 2).Done()
	line := "Saving worktrees:   0% (0/2)"
	if got, want := w.String(), line+"\r"+strings.Repeat(" ", len(line))+"\r"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var nilMeter *Meter
	nilMeter.Start("x", 1).Update(1) // a nil meter and its nil steps do nothing
	nilMeter.Close()
}

// Two steps at once share no line: the second shows when the first ends.
func TestOneLineAtATime(t *testing.T) {
	var w screen
	m := New(&w, 0)
	a := m.Start("Reading 3 worktrees", 0)
	b := m.Start("Reading remote origin", 0)
	b.Update(0)
	a.Done()
	b.Done()
	want := "Reading 3 worktrees\rReading 3 worktrees, done.\nReading remote origin\rReading remote origin, done.\n"
	if got := w.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Steps whose items end in several goroutines count every one.
func TestConcurrentAdds(t *testing.T) {
	var w screen
	m := New(&w, 0)
	s := m.StartBytes("Saving worktrees", 1200, "saved")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				s.Add(1+g%2, 1<<20) // 100 x 1 or 2 items: 1200 in all
			}
		}()
	}
	wg.Wait()
	s.Done()
	if got := w.String(); !strings.HasSuffix(got, "Saving worktrees: 100% (1200/1200), 800.00 MiB saved, done.\n") {
		t.Errorf("the last line does not count every add: %q", got[max(0, len(got)-120):])
	}
}

// No meter where nobody sees the lines: a file, /dev/null, a buffer, or
// progress turned off.
func TestNoMeterOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, w := range map[string]any{"file": f, "buffer": &bytes.Buffer{}} {
		if m, err := ForStderr(w.(interface{ Write([]byte) (int, error) }), false); m != nil || err != nil {
			t.Errorf("%s: a meter (%v, %v)", name, m, err)
		}
	}
	if m, _ := ForStderr(null, false); m != nil && runtime.GOOS == "linux" {
		t.Errorf("/dev/null: a meter")
	}
	t.Setenv("GIT_PROGRESS_DELAY", "soon")
	if m, err := ForStderr(f, false); m != nil || err != nil {
		t.Errorf("off a terminal GIT_PROGRESS_DELAY is not read (git reads it only to show progress): %v %v", m, err)
	}
}

// GIT_PROGRESS_DELAY is read as git reads it (git_env_ulong).
func TestDelay(t *testing.T) {
	if d, err := Delay("", false); d != time.Second || err != nil {
		t.Errorf("unset: %v %v, want 1s", d, err)
	}
	for v, want := range map[string]time.Duration{
		"0": 0, "2": 2 * time.Second, " +3": 3 * time.Second, "010": 8 * time.Second,
		"0x10": 16 * time.Second, "1k": 1024 * time.Second, "1K": 1024 * time.Second,
	} {
		if d, err := Delay(v, true); d != want || err != nil {
			t.Errorf("%q: %v %v, want %v", v, d, err, want)
		}
	}
	for _, v := range []string{"", "soon", "-1", "1.5", "2s", "2 ", "08", "0x"} {
		if _, err := Delay(v, true); err == nil || !strings.Contains(err.Error(), "GIT_PROGRESS_DELAY=") {
			t.Errorf("%q: accepted (%v)", v, err)
		}
	}
	if d, err := Delay("9999999999", true); err != nil || d <= 0 {
		t.Errorf("a delay past a Duration: %v %v, want the longest", d, err)
	}
}

// Sizes are written as git's progress writes them.
func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1: "1 byte", 1024: "1024 bytes", 1025: "1.00 KiB", 1536: "1.50 KiB",
		120 << 20: "120.00 MiB", 480<<20 + 5<<10: "480.00 MiB", // git truncates GiB to the hundredth (not rounded as MiB and KiB are)
		3<<30 + 1<<29: "3.49 GiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
