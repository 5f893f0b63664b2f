package gitcmd_test

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// trailerCases are messages whose trailers git 2.39 reads in a way worth
// pinning: each with the Run-Id and Task-Id values git prints for it.
// They hold on any git: the project reads trailers itself.
var trailerCases = []struct{ msg, run, task string }{
	{"[Task 2.1] Users\n\nRun-Id: x1y2z3\nTask-Id: 2.1\n", "x1y2z3", "2.1"},
	{"Users\n\nbody line\n\nrun-id : x1y2z3\nTASK-ID:2.1\n", "x1y2z3", "2.1"},
	// Not all trailers and no git-made one: no block.
	{"Users\n\nsome words\nRun-Id: x1y2z3\n", "", ""},
	// A git-made trailer and a quarter trailers: a block.
	{"Users\n\nwords one\nwords two\nSigned-off-by: A <a@x>\nRun-Id: x1y2z3\n", "x1y2z3", ""},
	// The title is never trailers.
	{"Run-Id: x1y2z3\n", "", ""},
	{"Run-Id: x1y2z3\nTask-Id: 2.1\n", "", ""},
	// Leading blank lines are skipped before the title.
	{"\n\n  \nTitle\n\nRun-Id: a\n", "a", ""},
	// A continuation line joins its trailer (not unfolded).
	{"T\n\nRun-Id: a\n  b\nTask-Id: 1\n", "a\n  b", "1"},
	// Trailing comments, empty lines and a scissors line are no trailers.
	{"T\n\nRun-Id: a\n# a comment\n\n", "a", ""},
	{"T\n\nRun-Id: a\n# ------------------------ >8 ------------------------\nTask-Id: 9\n", "a", ""},
	{"T\n\nRun-Id: a\nConflicts:\n\tsrc/x.go\n", "a", ""},
	// No divider: a "---" line ends nothing for %(trailers).
	{"T\n\n---\nRun-Id: a\n", "", ""},
	{"T\n\nbody\n---\n\nRun-Id: a\n", "a", ""},
	// Several values, an empty one, values with commas.
	{"T\n\nRun-Id: a\nRun-Id:\nRun-Id: b, c\n", "a,,b, c", ""},
	{"T\n\nRun-Id:\nRun-Id: a\n", "a", ""},
	// White space before the separator; none allowed inside the key.
	{"T\n\nRun-Id\t : a\n", "a", ""},
	{"T\n\nRun-Id: a\nTask Id: 2\n", "", ""},
	// CRLF: "\r" is git's white space.
	{"T\r\n\r\nRun-Id: a\r\nTask-Id: 2.1\r\n", "a", "2.1"},
	// A NUL ends the message.
	{"T\n\nRun-Id: a\x00\nTask-Id: 2\n", "a", ""},
	// Other keys do not match; a prefix of the key does not.
	{"T\n\nRun-Ids: a\nRun: b\nX-Run-Id: c\n", "", ""},
	// Form feed is no git white space: not a continuation.
	{"T\n\nRun-Id: a\n\fmore\n", "", ""},
}

func TestTrailerCases(t *testing.T) {
	for _, c := range trailerCases {
		run, task := gitcmd.MessageTrailers(c.msg)
		if run != c.run || task != c.task {
			t.Errorf("message %q: Run-Id %q Task-Id %q, want %q %q", c.msg, run, task, c.run, c.task)
		}
	}
}

// The trailers read are the ones git 2.39's `git log` prints, the subject
// and body its %s and %b, for the
// cases above and for random messages built from the lines that move
// git's trailer rules. Older gits read some differently (the reason the
// project reads them itself); the comparison needs 2.39 or later.
func TestTrailersAreGits(t *testing.T) {
	dir, _ := newRepo(t)
	v, err := semver.NewVersion(strings.Fields(git(t, dir, "version"))[2])
	if err == nil && v.LessThan(semver.MustParse("2.39.0")) {
		t.Logf("git %s: the trailer cases alone are checked (TestTrailerCases)", v)
		return
	}
	var msgs []string
	for _, c := range trailerCases {
		msgs = append(msgs, c.msg)
	}
	rnd := rand.New(rand.NewSource(34))
	n := 600
	if testing.Short() {
		n = 150
	}
	for range n {
		msgs = append(msgs, randomMessage(rnd))
	}
	var stream strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&stream, "commit refs/heads/tr/%d\ncommitter A <a@x> %d +0000\ndata %d\n%s\n", i, 1700000000+i, len(m), m)
	}
	fastImport(t, dir, stream.String())
	cmd := exec.Command("git", "log", "--no-walk=unsorted", "--branches=tr/*",
		"--format=%H%x00%(trailers:key=Run-Id,valueonly,separator=%x2C)%x00%(trailers:key=Task-Id,valueonly,separator=%x2C)%x00%s%x00%b%x00%B%x00%x01")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(string(out), "\x00\x01\n")
	checked := 0
	for _, r := range recs[:len(recs)-1] {
		f := strings.SplitN(strings.TrimLeft(r, "\n"), "\x00", 6)
		run, task := gitcmd.MessageTrailers(f[5])
		if run != f[1] || task != f[2] {
			t.Errorf("%s, message %q:\n ours Run-Id %q Task-Id %q\n git  Run-Id %q Task-Id %q", f[0], f[5], run, task, f[1], f[2])
		}
		if subject, body := gitcmd.SubjectOf(f[5]); subject != f[3] || body != f[4] {
			t.Errorf("%s, message %q:\n ours %%s %q %%b %q\n git  %%s %q %%b %q", f[0], f[5], subject, body, f[3], f[4])
		}
		checked++
	}
	if checked != len(msgs) {
		t.Fatalf("git listed %d messages, %d made", checked, len(msgs))
	}
}

// randomMessage is a title, then paragraphs of the lines git's trailer
// rules look at, with random line ends.
func randomMessage(rnd *rand.Rand) string {
	lines := []string{
		"Run-Id: x1y2z3", "run-id:x1y2z3", "RUN-ID :  r2 ", "Task-Id: 2.1", "task-id: 3-1, 4.2",
		"Run-Id:", "Task-Id", "Run-Id x", " continued", "\tcontinued", "  ",
		"Signed-off-by: A <a@x>", "(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)",
		"Reviewed-by: B", "Key With Space: v", "Bug #43", "# a comment", "#Run-Id: c",
		"Conflicts:", "\tsrc/a.go", "---", "--- a", "# ------------------------ >8 ------------------------",
		"plain words", "words: with a colon", ": starts with a colon", "x-task-id: 1", "\fRun-Id: f",
	}
	var b strings.Builder
	for range rnd.Intn(2) {
		b.WriteString("\n")
	}
	if rnd.Intn(6) > 0 {
		b.WriteString("Title words\n")
	}
	for p := rnd.Intn(4); p >= 0; p-- {
		if rnd.Intn(5) > 0 {
			b.WriteString("\n")
		}
		for k := rnd.Intn(5); k >= 0; k-- {
			b.WriteString(lines[rnd.Intn(len(lines))])
			switch rnd.Intn(8) {
			case 0:
				b.WriteString("\r\n")
			case 1:
				b.WriteString(" \n")
			default:
				b.WriteString("\n")
			}
		}
	}
	s := b.String()
	if rnd.Intn(5) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	if rnd.Intn(6) == 0 {
		s += "\n# trailing comment\n\n"
	}
	return s
}

// The trailers a commit names do not move with a machine's configuration,
// which moves git's own reading of them, and a commit read as an object
// names the ones the log reads. Before, git's %(trailers) read them: with
// trailer.separators = "#" or core.commentChar = "R" the log found no
// Run-Id, and ParseCommit read a paragraph that is no trailer block.
func TestTrailersIgnoreConfiguration(t *testing.T) {
	dir, _ := newRepo(t)
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	ids := map[string]string{}
	for _, msg := range []string{
		"[Task 2.1] Users\n\nRun-Id: x1y2z3\nTask-Id: 2.1\n",
		// Not a trailer block: words and one Run-Id line.
		"Users\n\nsome words here\nRun-Id: x1y2z3\n",
	} {
		cmd := exec.Command("git", "commit-tree", tree)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(msg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		ids[strings.TrimSpace(string(out))] = msg
	}
	want := func(msg string) []string {
		if strings.Contains(msg, "Task-Id") {
			return []string{"x1y2z3"}
		}
		return nil
	}
	for _, cfg := range [][]string{nil, {"trailer.separators", "#"}, {"core.commentChar", "R"}, {"trailer.run.key", "Run-Id"}} {
		if cfg != nil {
			git(t, dir, "config", cfg[0], cfg[1])
		}
		r := open(t, dir)
		var list []string
		for id := range ids {
			list = append(list, id)
		}
		cs, err := r.LogRevs(context.Background(), list, nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.ObjectReader(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if !reflect.DeepEqual(c.RunIDs, want(ids[c.OID])) {
				t.Errorf("config %v, message %q: the log reads Run-Id %q, want %q", cfg, ids[c.OID], c.RunIDs, want(ids[c.OID]))
			}
			e, _, err := o.Commit(c.OID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.RunIDs, c.RunIDs) || !reflect.DeepEqual(e.TaskIDs, c.TaskIDs) {
				t.Errorf("config %v, message %q: the object reads %q %q, the log %q %q", cfg, ids[c.OID], e.RunIDs, e.TaskIDs, c.RunIDs, c.TaskIDs)
			}
		}
		o.Close()
		if cfg != nil {
			git(t, dir, "config", "--unset", cfg[0])
		}
	}
}

// hashCommit writes a commit object of exactly data (header and message)
// and returns its id: git commit-tree writes no such header.
func hashCommit(t *testing.T, dir, data string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// logAndObjectAgree checks that the log and the object reader read the
// same subject and trailers of each of ids, and returns the log's.
func logAndObjectAgree(t *testing.T, dir string, ids []string) map[string]gitcmd.LogEntry {
	t.Helper()
	r := open(t, dir)
	cs, err := r.LogRevs(context.Background(), ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := r.ObjectReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	byID := map[string]gitcmd.LogEntry{}
	for _, c := range cs {
		byID[c.OID] = c
		e, _, err := o.Commit(c.OID)
		if err != nil {
			t.Fatal(err)
		}
		if e.Subject != c.Subject || !reflect.DeepEqual(e.RunIDs, c.RunIDs) || !reflect.DeepEqual(e.TaskIDs, c.TaskIDs) {
			t.Errorf("%s: the object reads %q %q %q, the log %q %q %q", c.OID, e.Subject, e.RunIDs, e.TaskIDs, c.Subject, c.RunIDs, c.TaskIDs)
		}
	}
	return byID
}

// A commit that names its message's encoding is read as git log shows
// it, converted to UTF-8, by the object reader too. Before, ParseCommit
// read the bytes: a Latin-1 subject or value was not the log's, and a
// UTF-7 message's trailers ("Run+AC0-Id" is "Run-Id") were none.
func TestEncodedCommitsReadAsTheLog(t *testing.T) {
	dir, _ := newRepo(t)
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	head := "tree " + tree + "\nauthor A <a@x> 1700000000 -0700\ncommitter A <a@x> 1700000000 -0700\n"
	latin := hashCommit(t, dir, head+"encoding ISO-8859-1\n\nCaf\xe9\n\nRun-Id: r\xe9\nTask-Id: 2.1\n")
	utf7 := hashCommit(t, dir, head+"encoding UTF-7\n\nTitle\n\nRun+AC0-Id: r1\nTask-Id+ADo- 2.1\n")
	utf8 := hashCommit(t, dir, head+"encoding utf8\n\nCaf\xc3\xa9\n\nRun-Id: r2\n")
	got := logAndObjectAgree(t, dir, []string{latin, utf7, utf8})
	for id, want := range map[string]gitcmd.LogEntry{
		latin: {Subject: "Caf\u00e9", RunIDs: []string{"r\u00e9"}, TaskIDs: []string{"2.1"}},
		utf7:  {Subject: "Title", RunIDs: []string{"r1"}, TaskIDs: []string{"2.1"}},
		utf8:  {Subject: "Caf\u00e9", RunIDs: []string{"r2"}},
	} {
		c := got[id]
		if c.Subject != want.Subject || !reflect.DeepEqual(c.RunIDs, want.RunIDs) || !reflect.DeepEqual(c.TaskIDs, want.TaskIDs) {
			t.Errorf("%s: the log reads %q %q %q, want %q %q %q", id, c.Subject, c.RunIDs, c.TaskIDs, want.Subject, want.RunIDs, want.TaskIDs)
		}
	}
}

// The log's messages do not move with the log output encoding, which
// i18n.commitEncoding sets too: with it set to ISO-8859-1 the log read
// a UTF-8 commit's "é" as Latin-1 (and with UTF-16 could read no record
// at all), while the object reader read UTF-8.
func TestLogIgnoresOutputEncoding(t *testing.T) {
	dir, _ := newRepo(t)
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	cmd := exec.Command("git", "commit-tree", tree)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("Caf\u00e9\n\nRun-Id: r\u00e9\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(out))
	for _, cfg := range [][]string{{"i18n.commitEncoding", "ISO-8859-1"}, {"i18n.logOutputEncoding", "UTF-16"}} {
		git(t, dir, "config", cfg[0], cfg[1])
		c := logAndObjectAgree(t, dir, []string{id})[id]
		if c.Subject != "Caf\u00e9" || !reflect.DeepEqual(c.RunIDs, []string{"r\u00e9"}) {
			t.Errorf("config %v: the log reads %q %q", cfg, c.Subject, c.RunIDs)
		}
		git(t, dir, "config", "--unset", cfg[0])
	}
}

// The object reader finds the message where git's log does: after the
// first line that is empty as a C string reads it (a NUL in the header
// ends a line there), and after a first empty line at once.
func TestParseCommitFindsGitsMessage(t *testing.T) {
	dir, _ := newRepo(t)
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	head := "tree " + tree + "\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n"
	ids := []string{
		hashCommit(t, dir, head+"x-extra v\x00\nTitle\n\nRun-Id: r1\n\nT2\n\nTask-Id: 2.1\n"),
		hashCommit(t, dir, head+"\x00Title\n\nRun-Id: r3\n"),
	}
	logAndObjectAgree(t, dir, ids)
}
