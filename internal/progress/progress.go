// Package progress shows how far a long step has come on standard error,
// as git's delayed progress does: nothing for a step that ends within the
// delay, then one line rewritten in place (ended by "\r"),
//
//	Saving worktrees:  40% (12/30)
//	Removing worktrees:  13% (4/30), 120.00 MiB freed
//	Reading remote origin
//
// and, when the step ends, that line once more with ", done." and a
// newline. A command makes one Meter for its standard error (ForStderr:
// none when it is not a terminal or progress is turned off) and hands it to
// what does the work; a nil Meter and a nil Step do nothing, so that code
// reports its steps without asking whether anyone looks.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Every is how long a line stays as it is when only a count without a
// total, or the bytes, changed: git redraws on a timer of one second, and
// at once when the percentage changes.
const Every = time.Second

// Meter draws the progress lines of one command on w. Its methods, and
// those of its steps, may be called from any goroutine.
type Meter struct {
	mu    sync.Mutex
	w     io.Writer
	delay time.Duration
	// every is Every but in tests of the throttling.
	every time.Duration
	// foreground says whether the process may draw now (git draws only in
	// the terminal's foreground process group; the done line always).
	foreground func() bool
	// owner is the step whose line is on the screen (nil: none): other
	// steps wait for it to end, so two lines never share one.
	owner *Step
	// running are the steps started and not done, oldest first.
	running []*Step
	// width is how wide the line on the screen is, so that a shorter one
	// drawn over it blanks what it leaves.
	width  int
	closed bool
}

// New is a meter that draws on w, each step's line once it has run for
// delay: for a terminal (ForStderr decides) and for tests.
func New(w io.Writer, delay time.Duration) *Meter {
	return &Meter{w: w, delay: delay, every: Every, foreground: func() bool { return true }}
}

// ForStderr is the meter of a command whose standard error is stderr: nil
// (no progress) when off (--quiet, --json) or when stderr is not a
// terminal; otherwise a meter with the delay of GIT_PROGRESS_DELAY, read
// as git reads it (Delay). Its error is that variable's bad value, which
// git refuses too.
func ForStderr(stderr io.Writer, off bool) (*Meter, error) {
	f, ok := stderr.(*os.File)
	if off || !ok || !isTerminal(f) {
		return nil, nil
	}
	delay, err := Delay(os.LookupEnv("GIT_PROGRESS_DELAY"))
	if err != nil {
		return nil, err
	}
	m := New(f, delay)
	m.foreground = func() bool { return foreground(f) }
	return m, nil
}

// DefaultDelay is how long a step runs before its line shows, without
// GIT_PROGRESS_DELAY: one second, as recent git waits (older git, 2.39
// among them, waits two).
const DefaultDelay = time.Second

// Delay reads GIT_PROGRESS_DELAY (value, and whether it is set) as git's
// progress.c does, through git_env_ulong: a whole number of seconds, in
// decimal, octal (leading 0) or hexadecimal (0x), after optional blanks
// and "+", with an optional unit k, m or g (times 1024 each); no minus
// sign, and nothing else after it. Unset, DefaultDelay. git dies on a
// value it cannot read ("failed to parse GIT_PROGRESS_DELAY"): the error
// says what is wrong, for the command to refuse the same way.
func Delay(value string, set bool) (time.Duration, error) {
	if !set {
		return DefaultDelay, nil
	}
	secs, ok := parseUlong(value)
	// More seconds than a Duration holds is no delay a person waits out:
	// the longest one.
	if ok && secs > uint64(1<<63-1)/uint64(time.Second) {
		return time.Duration(1<<63 - 1), nil
	}
	if !ok {
		return 0, fmt.Errorf("GIT_PROGRESS_DELAY=%s: not a whole number of seconds (git refuses it too); unset it or give one, e.g. GIT_PROGRESS_DELAY=2", strconv.Quote(value))
	}
	return time.Duration(secs) * time.Second, nil
}

// parseUlong is git_parse_ulong: strtoumax with base 0, then a unit.
func parseUlong(s string) (uint64, bool) {
	// git refuses a "-" before strtoumax (which would take "-1" for the
	// largest number): here no digit follows a "-", so it fails below.
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	s = strings.TrimPrefix(s, "+")
	end := 0
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && isDigit(s[2], 16):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	for end < len(s) && isDigit(s[end], base) {
		end++
	}
	if end == 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:end], base, 64)
	if err != nil {
		return 0, false
	}
	factor := uint64(1)
	switch strings.ToLower(s[end:]) {
	case "":
	case "k":
		factor = 1 << 10
	case "m":
		factor = 1 << 20
	case "g":
		factor = 1 << 30
	default:
		return 0, false
	}
	if n > (1<<64-1)/factor {
		return 0, false
	}
	return n * factor, true
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		return true
	}
	return false
}

// Step is one step of the command, as its line shows it.
type Step struct {
	m     *Meter
	title string
	total int
	// word follows the bytes on the line (", 120.00 MiB freed"); "" shows
	// no bytes.
	word  string
	n     int
	bytes int64
	start time.Time
	timer *time.Timer
	// lastPct and lastDraw are the percentage and the time of the last
	// draw; lastLine what it drew.
	lastPct  int
	lastDraw time.Time
	lastLine string
	done     bool
}

// Start begins a step of total items (0: a step without a count, whose
// line is its title). Its line shows once it has run for the meter's delay.
func (m *Meter) Start(title string, total int) *Step {
	return m.StartBytes(title, total, "")
}

// StartBytes is Start for a step whose line also shows the bytes the
// updates add, followed by word: ", 120.00 MiB freed".
func (m *Meter) StartBytes(title string, total int, word string) *Step {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Step{m: m, title: title, total: total, word: word, start: time.Now(), lastPct: -1}
	if m.closed {
		s.done = true
		return s
	}
	m.running = append(m.running, s)
	if m.delay <= 0 {
		m.draw(s, true)
	} else {
		// A step nobody updates (a long read) shows when its delay ends.
		s.timer = time.AfterFunc(m.delay, func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.draw(s, true)
		})
	}
	return s
}

// Update says n items are done.
func (s *Step) Update(n int) {
	if s == nil {
		return
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.n = n
	s.m.draw(s, false)
}

// Add says k more items are done, which took bytes more: for steps whose
// items end in several goroutines.
func (s *Step) Add(k int, bytes int64) {
	if s == nil {
		return
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.n += k
	s.bytes += bytes
	s.m.draw(s, false)
}

// Done ends the step: a line that shows is drawn once more, ending with
// ", done." and a newline; a step that never showed (it ended within the
// delay, or another step's line was on the screen) prints nothing. Done
// twice is done once.
func (s *Step) Done() {
	if s == nil {
		return
	}
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	if s.timer != nil {
		s.timer.Stop()
	}
	m.remove(s)
	if m.owner != s || m.closed {
		return
	}
	line := s.line() + ", done."
	io.WriteString(m.w, line+blanks(m.width-len(line))+"\n")
	m.owner, m.width = nil, 0
	// The line is free: a step that waited for it shows now.
	for _, o := range m.running {
		if time.Since(o.start) >= m.delay {
			m.draw(o, true)
			break
		}
	}
}

// Close ends the meter before the command writes its output or its
// error: a line still showing (its step did not end) is blanked, and
// nothing is drawn after. Safe on a nil meter, and more than once.
func (m *Meter) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	for _, s := range m.running {
		if s.timer != nil {
			s.timer.Stop()
		}
	}
	m.running = nil
	if m.owner != nil && m.width > 0 {
		io.WriteString(m.w, blanks(m.width)+"\r")
	}
	m.owner, m.width = nil, 0
}

func (m *Meter) remove(s *Step) {
	for i, o := range m.running {
		if o == s {
			m.running = append(m.running[:i], m.running[i+1:]...)
			return
		}
	}
}

// draw draws s's line if it may: its delay is over, no other step's line
// is on the screen, the process is in the foreground, and (unless force)
// the percentage changed or Every passed since its last draw, as git's
// display() does. Called holding m.mu.
func (m *Meter) draw(s *Step, force bool) {
	if m.closed || s.done || m.owner != nil && m.owner != s {
		return
	}
	now := time.Now()
	if now.Sub(s.start) < m.delay {
		return
	}
	pct := s.percent()
	if m.owner == s && !force && pct == s.lastPct && now.Sub(s.lastDraw) < m.every {
		return
	}
	line := s.line()
	if m.owner == s && line == s.lastLine || !m.foreground() {
		return
	}
	io.WriteString(m.w, line+blanks(m.width-len(line))+"\r")
	m.owner, m.width = s, len(line)
	s.lastPct, s.lastDraw, s.lastLine = pct, now, line
}

func (s *Step) percent() int {
	if s.total <= 0 {
		return -1
	}
	return int(int64(s.n) * 100 / int64(s.total))
}

// line is the step's line as git lays it out: "Title:  40% (12/30)" with a
// total, "Title: 12" with a count alone, the title alone without either;
// then the bytes, as git's throughput shows them.
func (s *Step) line() string {
	var b strings.Builder
	b.WriteString(s.title)
	switch {
	case s.total > 0:
		fmt.Fprintf(&b, ": %3d%% (%d/%d)", s.percent(), s.n, s.total)
	case s.n > 0:
		fmt.Fprintf(&b, ": %d", s.n)
	}
	if s.word != "" {
		b.WriteString(", " + Bytes(s.bytes) + " " + s.word)
	}
	return b.String()
}

func blanks(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}

// Bytes is n as git's progress lines write a size (strbuf_humanise_bytes):
// two decimals of GiB, MiB or KiB, rounded as git rounds, or whole bytes.
func Bytes(n int64) string {
	switch {
	case n > 1<<30:
		return fmt.Sprintf("%d.%02d GiB", n>>30, (n&(1<<30-1))/10737419)
	case n > 1<<20:
		x := n + 5243 // for rounding
		return fmt.Sprintf("%d.%02d MiB", x>>20, ((x&(1<<20-1))*100)>>20)
	case n > 1<<10:
		x := n + 5 // for rounding
		return fmt.Sprintf("%d.%02d KiB", x>>10, ((x&(1<<10-1))*100)>>10)
	case n == 1:
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
