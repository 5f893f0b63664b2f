package gitcmd

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
)

// logParser reads logFormat records as git writes them (exec's copy
// loop hands it the output in pieces): each record is parsed once it is
// whole, so the output is never held at once, and each entry keeps only
// what it names. The answer is parseLog's over the whole output.
type logParser struct {
	// pending is the start of a record not yet whole; scanned how much
	// of it holds no record end.
	pending []byte
	scanned int
	// out are the entries, made room for as they come (as the log is
	// written, not after), or at once for the many the graph foretold.
	out []LogEntry
	err error
	// oids are the commit ids seen as parents and not yet as commits:
	// a commit's id is most often its child's parent, and one string
	// serves both.
	oids    map[string]string
	next    string
	scratch []byte
	// graph, when set, gives the trees the log leaves out
	// (logFormatGraphTrees); treeless are the entries it did not hold.
	graph    *commitGraph
	treeless []int
	oid      []byte
	treeHex  []byte
}

// newLogParser is a parser for a log of at least hint commits (0: not
// known).
func newLogParser(hint int) *logParser {
	if hint > 0 {
		// The levels' difference falls short by the commits off the
		// longest line: a list sized at it exactly grows, a copy of the
		// whole, at its very end (50,021 made for 50,022 commits). Pages
		// of the room not used are never touched.
		hint += hint/16 + 64
	}
	return &logParser{oids: map[string]string{}, out: make([]LogEntry, 0, hint)}
}

// ReadFrom reads git's output in large pieces (exec's copy loop calls it):
// fewer reads than its own small buffer makes.
func (p *logParser) ReadFrom(r io.Reader) (int64, error) { return readLarge(r, p.Write) }

// readLarge reads r to its end in pieces of up to 256 KiB, each handed to
// write.
func readLarge(r io.Reader, write func([]byte) (int, error)) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			write(buf[:k])
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Write takes the next piece of git's output.
func (p *logParser) Write(b []byte) (int, error) {
	n := len(b)
	data, from := b, 0
	if len(p.pending) > 0 {
		p.pending = append(p.pending, b...)
		// "\x00\n" may straddle two pieces: looked for from one byte
		// before the new one.
		data, from = p.pending, max(p.scanned-1, 0)
	}
	done := 0
	for {
		end := bytes.Index(data[from:], recordEnd)
		if end < 0 {
			break
		}
		p.record(data[done : from+end])
		done = from + end + len(recordEnd)
		from = done
	}
	rest := data[done:]
	if len(p.pending) > 0 {
		p.pending = p.pending[:copy(p.pending, rest)]
	} else {
		p.pending = append(p.pending, rest...)
	}
	p.scanned = len(p.pending)
	return n, nil
}

var recordEnd = []byte("\x00\n")

// finish parses what is left once git ended: a last record without its
// "\x00\n" (parseLog reads it as one too).
func (p *logParser) finish() ([]LogEntry, error) {
	if len(p.pending) > 0 {
		rest := p.pending
		p.pending = nil
		p.record(rest)
	}
	if len(p.out) == 0 {
		return nil, p.err // as parseLog: no entries, no slice
	}
	if len(p.out) >= collectAfter {
		// The parse left as much garbage as the list it made (what git
		// wrote, read in pieces): collected now, the heap the next steps
		// grow from is the list's own (50,000 commits: 53 MB resident
		// at the peak without, 47 MB with; the collection costs a few
		// milliseconds).
		runtime.GC()
	}
	return p.out, p.err
}

// collectAfter is the length of a log past which its parse is followed by
// a garbage collection.
const collectAfter = 10000

// intern returns one string for each commit id, shared by the commit
// and its children's parent lists. The log lists a commit most often
// right after the child whose first parent it is: that one parent waits
// in next, the others in oids.
func (p *logParser) intern(b []byte, parent bool) string {
	if !parent {
		if p.next != "" && p.next == string(b) {
			s := p.next
			p.next = ""
			return s
		}
		if p.next != "" {
			p.oids[p.next] = p.next // its commit comes later
			p.next = ""
		}
	}
	if s, ok := p.oids[string(b)]; ok {
		if !parent {
			delete(p.oids, s)
		}
		return s
	}
	s := string(b)
	if parent {
		p.oids[s] = s
	}
	return s
}

// firstParent interns a record's first parent: it waits in next for the
// record that most often comes next, its own.
func (p *logParser) firstParent(b []byte) string {
	if s, ok := p.oids[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.next != "" && p.next != s {
		p.oids[p.next] = p.next
	}
	p.next = s
	return s
}

// record parses one record as parseLog does.
func (p *logParser) record(rec []byte) {
	if p.err != nil || len(rec) == 0 || len(bytes.TrimSpace(rec)) == 0 {
		return
	}
	whole := rec
	rec = bytes.TrimLeft(rec, "\n")
	var f [logFields][]byte
	n := 0
	for n < logFields-1 {
		i := bytes.IndexByte(rec, 0)
		if i < 0 {
			break
		}
		f[n], rec = rec[:i], rec[i+1:]
		n++
	}
	f[n] = rec
	n++
	// The message comes last, after a "B" so that one starting with a
	// newline never reads as the end of the record.
	if n != logFields || bytes.IndexByte(f[5], 0) >= 0 || !bytes.HasPrefix(f[5], []byte("B")) {
		p.err = fmt.Errorf("log: unexpected record %q", whole)
		return
	}
	msg := f[5][1:]
	subject, body := subjectOf(msg)
	// The tree and the subject in one string: one allocation, not two.
	tree := f[2]
	if len(tree) == 0 && p.graph != nil {
		tree = p.graphTree(f[0])
	}
	p.scratch = append(append(p.scratch[:0], tree...), subject...)
	ts := string(p.scratch)
	e := LogEntry{OID: p.intern(f[0], false), Subject: ts[len(tree):], Tree: ts[:len(tree)]}
	if len(tree) == 0 && p.graph != nil {
		p.treeless = append(p.treeless, len(p.out))
	}
	if mayHoldIDKey(msg) {
		run, task := messageTrailers(string(msg))
		e.RunIDs, e.TaskIDs = splitList(run), splitList(task)
	}
	e.Parents = p.parents(f[1])
	e.Time = parseTime(f[4])
	if string(f[3]) == "-" {
		e.Reverts = "-" // a boundary commit; LogWalk takes it out
	} else if m := revertLine.FindSubmatch(body); m != nil {
		e.Reverts = string(m[1])
	}
	if m := pickedLine.FindSubmatch(body); m != nil {
		e.PickedFrom = string(m[1])
	}
	if len(e.Parents) < 2 && (strings.TrimSpace(e.Subject) == GitSquashSubject || bytes.Contains(body, []byte("* "))) {
		// ListSquashed reads no other message: most commits stop
		// before their body is copied.
		e.Listed = ListSquashed(e.Subject, string(body))
	}
	p.out = append(p.out, e)
}

// graphTree is the tree of the commit of hex id oid as the graph records
// it, in hex; nil when the graph does not hold it.
func (p *logParser) graphTree(oid []byte) []byte {
	n := len(oid) / 2
	if cap(p.oid) < n {
		p.oid = make([]byte, n)
	}
	b := p.oid[:n]
	if _, err := hex.Decode(b, oid); err != nil {
		return nil
	}
	t, ok := p.graph.treeOf(b)
	if !ok {
		return nil
	}
	p.treeHex = hex.AppendEncode(p.treeHex[:0], t)
	return p.treeHex
}

// parents are the ids of a "%P" field, as bytes.Fields splits it, each
// interned; nil for none. Read without a slice of fields (one a commit).
func (p *logParser) parents(b []byte) []string {
	n := 0
	for i := 0; i < len(b); {
		for i < len(b) && asciiSpace(b[i]) {
			i++
		}
		if i < len(b) {
			n++
		}
		for i < len(b) && !asciiSpace(b[i]) {
			if b[i] >= 0x80 {
				return p.parentsFields(b) // no commit id: read as parseLog does
			}
			i++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < len(b); {
		for i < len(b) && asciiSpace(b[i]) {
			i++
		}
		j := i
		for j < len(b) && !asciiSpace(b[j]) {
			j++
		}
		switch {
		case j == i:
		case len(out) == 0:
			out = append(out, p.firstParent(b[i:j]))
		default:
			out = append(out, p.intern(b[i:j], true))
		}
		i = j
	}
	return out
}

func (p *logParser) parentsFields(b []byte) []string {
	var out []string
	for _, q := range bytes.Fields(b) {
		out = append(out, p.intern(q, true))
	}
	return out
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// parseTime is strconv.ParseInt of a "%ct" field (0 where it fails),
// without copying the field for it: one a commit.
func parseTime(b []byte) int64 {
	if len(b) > 0 && len(b) <= 18 {
		var v int64
		for _, c := range b {
			if c < '0' || c > '9' {
				v = -1
				break
			}
			v = v*10 + int64(c-'0')
		}
		if v >= 0 {
			return v
		}
	}
	v, _ := strconv.ParseInt(string(b), 10, 64)
	return v
}
