package gitcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Objects reads objects by name ("<commit>:<path>") from one long-lived
// `git cat-file --batch`, so that looking a plan up in several commits, each
// in several places, costs one git process instead of one per question.
type Objects struct {
	mu     sync.Mutex // one question at a time: the report asks from several goroutines
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr strings.Builder
	err    error
	// trees remembers the trees read by object id: a tree diff reads the
	// same base tree once per task tip otherwise.
	treeMu sync.Mutex
	trees  map[string][]TreeEntry
	// shared: a reader of Shared, closed by it alone.
	shared bool
	// got remembers the objects read by a name that always names the
	// same object (fixedName): a report asks for its plan's blob and
	// directory from several steps. gotBytes is their size.
	gotMu    sync.Mutex
	got      map[string]Object
	gotBytes int
	// pre, on a reader of Shared, is what Shared.Prefetch read for every
	// reader: asked first.
	pre *objectCache
	// logged lists one commit through git's log, for a message Commit
	// cannot read as the log does (foreignEncoding).
	logged func(oid string) ([]LogEntry, error)
}

// What got holds at most: small objects (plans, directories), and no
// more than a few megabytes in all.
const (
	maxGotObject = 256 << 10
	maxGotBytes  = 8 << 20
)

// fixedName says whether name always names the same object: an object
// id, alone or followed by a path (":"), a peel ("^{tree}") or ancestry
// ("~n"), all of which an object id settles for good.
func fixedName(name string) bool {
	k := strings.IndexAny(name, ":^~")
	if k < 0 {
		k = len(name)
	}
	return isHexID(name[:k])
}

// Object is what cat-file found under a name. Type is "" when nothing is
// there.
type Object struct {
	OID  string
	Type string // blob, tree, commit, tag
	Data []byte
}

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode string // "40000" for a directory, "100644"/"100755" files, "120000" links
	Name string
	OID  string
}

// IsDir says whether the entry is a directory (a subtree).
func (e TreeEntry) IsDir() bool { return e.Mode == "40000" || canonMode(e.Mode) == "040000" }

// ObjectReader starts the reader. Close it when done.
func (r *Repo) ObjectReader(ctx context.Context) (*Objects, error) {
	if r.shared != nil && len(r.shared.readers) > 0 {
		return r.shared.Objects(), nil
	}
	args := []string{"cat-file", "--batch"}
	trace(r.Dir, args)
	processes.Add(1)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(environ(r.Worktree), "GIT_OPTIONAL_LOCKS=0")
	o := &Objects{cmd: cmd, logged: func(oid string) ([]LogEntry, error) {
		out, err := r.Run(ctx, "log", "--no-walk", logFormat, logEncoding, "--end-of-options", oid)
		if err != nil {
			return nil, err
		}
		return parseLog(out)
	}}
	cmd.Stderr = &o.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	o.in, o.out = in, bufio.NewReaderSize(out, 64<<10)
	return o, nil
}

// Get returns the object called name; Type "" when there is none. An error
// means the reader is broken and answers no more.
func (o *Objects) Get(name string) (Object, error) {
	// What is kept is answered without waiting for the reader, which
	// another run of a list may be using.
	if obj, ok := o.pre.get(name); ok {
		return obj, nil
	}
	fixed := fixedName(name)
	if fixed {
		o.gotMu.Lock()
		obj, ok := o.got[name]
		o.gotMu.Unlock()
		if ok {
			return obj, nil
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return Object{}, o.err
	}
	if strings.ContainsAny(name, "\n\r") {
		// cat-file reads one name a line: such a name cannot be asked
		// for, and no plan path holds one.
		return Object{}, nil
	}
	if _, err := io.WriteString(o.in, name+"\n"); err != nil {
		return Object{}, o.fail(err)
	}
	obj, err := o.readAnswer()
	// Only what is there: a missing object may be written later (a
	// clean saves before it reads back).
	if err == nil && fixed && obj.Type != "" && len(obj.Data) <= maxGotObject {
		o.gotMu.Lock()
		if o.gotBytes+len(obj.Data) <= maxGotBytes {
			if o.got == nil {
				o.got = map[string]Object{}
			}
			o.got[name] = obj
			o.gotBytes += len(obj.Data)
		}
		o.gotMu.Unlock()
	}
	return obj, err
}

// readAnswer reads cat-file's answer to one name; the caller holds mu.
func (o *Objects) readAnswer() (Object, error) {
	header, err := o.out.ReadString('\n')
	if err != nil {
		return Object{}, o.fail(err)
	}
	header = strings.TrimSuffix(header, "\n")
	// "<name> missing" and "<name> ambiguous" answer a name that is not
	// there; the name may itself hold spaces, so look at the last word.
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return Object{}, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return Object{}, o.fail(fmt.Errorf("unexpected answer %q", header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return Object{}, o.fail(fmt.Errorf("unexpected size in %q", header))
	}
	data := make([]byte, size+1) // the object and its closing newline
	if _, err := io.ReadFull(o.out, data); err != nil {
		return Object{}, o.fail(err)
	}
	// Capped: a caller that appends to Data copies it (got shares it).
	return Object{OID: f[0], Type: f[1], Data: data[:size:size]}, nil
}

// GetMany is Get for several names at once: the names are written while
// the answers are read, so that many small objects cost one round trip,
// not one each.
func (o *Objects) GetMany(names []string) ([]Object, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return nil, o.err
	}
	var ask strings.Builder
	asked := make([]bool, len(names))
	out := make([]Object, len(names))
	for i, n := range names {
		if obj, ok := o.pre.get(n); ok {
			out[i] = obj // read by Shared.Prefetch
			continue
		}
		if !strings.ContainsAny(n, "\n\r") {
			ask.WriteString(n)
			ask.WriteByte('\n')
			asked[i] = true
		}
	}
	if ask.Len() == 0 {
		return out, nil
	}
	werr := make(chan error, 1)
	go func() {
		_, err := io.WriteString(o.in, ask.String())
		werr <- err
	}()
	for i := range names {
		if !asked[i] {
			continue
		}
		obj, err := o.readAnswer()
		if err != nil {
			// The reader is broken: the writer ends with it, at Close.
			return nil, err
		}
		out[i] = obj
	}
	if err := <-werr; err != nil {
		return nil, o.fail(err)
	}
	return out, nil
}

func (o *Objects) fail(err error) error {
	if msg := firstLine(o.stderr.String()); msg != "" {
		err = fmt.Errorf("%s (%w)", msg, err)
	}
	o.err = fmt.Errorf("git cat-file --batch: %w", err)
	return o.err
}

// Tree lists the tree called name; nil when there is none or it is not a
// tree.
func (o *Objects) Tree(name string) ([]TreeEntry, error) {
	// Only a name that starts with an object id always names the same
	// tree.
	fixed := fixedName(name)
	if fixed {
		o.treeMu.Lock()
		t, ok := o.trees[name]
		o.treeMu.Unlock()
		if ok {
			return t, nil
		}
	}
	obj, err := o.Get(name)
	if err != nil || obj.Type != "tree" {
		return nil, err
	}
	t, err := ParseTree(obj.Data, len(obj.OID)/2)
	if err == nil && fixed {
		o.treeMu.Lock()
		if o.trees == nil {
			o.trees = map[string][]TreeEntry{}
		}
		if len(o.trees) < 1<<14 {
			o.trees[name] = t
		}
		o.treeMu.Unlock()
	}
	return t, err
}

// GetManyIDs is GetMany for the object ids alone ("" for a name that is
// no object): the data is read and let go as it comes, so many large
// objects cost no memory.
func (o *Objects) GetManyIDs(names []string) ([]string, error) {
	ids := make([]string, len(names))
	// In slices, so that no more than one slice's data is held at once.
	const slice = 256
	for i := 0; i < len(names); i += slice {
		objs, err := o.GetMany(names[i:min(i+slice, len(names))])
		if err != nil {
			return nil, err
		}
		for j, obj := range objs {
			ids[i+j] = obj.OID
		}
	}
	return ids, nil
}

// Trees is Tree for several tree ids at once (GetMany): nil for a name
// that is no tree.
func (o *Objects) Trees(names []string) ([][]TreeEntry, error) {
	out := make([][]TreeEntry, len(names))
	var ask []string
	var at []int
	o.treeMu.Lock()
	for i, n := range names {
		if t, ok := o.trees[n]; ok && fixedName(n) {
			out[i] = t
		} else {
			ask, at = append(ask, n), append(at, i)
		}
	}
	o.treeMu.Unlock()
	if len(ask) == 0 {
		return out, nil
	}
	objs, err := o.GetMany(ask)
	if err != nil {
		return nil, err
	}
	for j, obj := range objs {
		if obj.Type != "tree" {
			continue
		}
		t, err := ParseTree(obj.Data, len(obj.OID)/2)
		if err != nil {
			return nil, err
		}
		out[at[j]] = t
		if isHexID(strings.TrimSuffix(ask[j], "^{tree}")) {
			o.treeMu.Lock()
			if o.trees == nil {
				o.trees = map[string][]TreeEntry{}
			}
			if len(o.trees) < 1<<14 {
				o.trees[ask[j]] = t
			}
			o.treeMu.Unlock()
		}
	}
	return out, nil
}

// isHexID reports whether s is a full object id (SHA-1 or SHA-256).
func isHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseTree reads git's binary tree format: "<mode> <name>\0<raw id>" per
// entry, with ids of hashLen bytes (20 for SHA-1, 32 for SHA-256).
func ParseTree(data []byte, hashLen int) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := strings.IndexByte(string(data[:min(len(data), 16)]), ' ')
		if sp <= 0 {
			return nil, errors.New("malformed tree: no mode")
		}
		nul := -1
		for i := sp + 1; i < len(data); i++ {
			if data[i] == 0 {
				nul = i
				break
			}
		}
		if nul < 0 || nul+1+hashLen > len(data) {
			return nil, errors.New("malformed tree: entry cut short")
		}
		out = append(out, TreeEntry{Mode: string(data[:sp]), Name: string(data[sp+1 : nul]),
			OID: hex.EncodeToString(data[nul+1 : nul+1+hashLen])})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

// Close stops the reader.
func (o *Objects) Close() error {
	if o == nil || o.cmd == nil || o.shared {
		return nil
	}
	o.in.Close()
	err := o.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && o.err != nil {
		return nil // already reported by the call that broke
	}
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	return nil
}

// Independent returns the commits of oids that no other of them reaches
// (git merge-base --independent): the newest copies when one history holds
// another.
func (r *Repo) Independent(ctx context.Context, oids []string) ([]string, error) {
	if len(oids) < 2 {
		return oids, nil
	}
	if err := checkRevs(oids); err != nil {
		return nil, err
	}
	out, err := r.Run(ctx, append([]string{"merge-base", "--independent"}, oids...)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// LastChange is the committer time (Unix seconds) of the newest commit
// reachable from rev and from none of not that changed one of paths; 0 when
// none did. The walk stops where rev's history meets the others', so it
// costs what the histories diverged by, not the repository's size.
func (r *Repo) LastChange(ctx context.Context, rev string, not []string, paths []string) (int64, error) {
	if err := checkRevs([]string{rev}, not); err != nil {
		return 0, err
	}
	args := []string{"log", "-1", "--format=%ct", logEncoding, "--end-of-options", rev}
	for _, n := range not {
		args = append(args, "^"+n)
	}
	args = append(args, "--")
	for _, p := range paths {
		args = append(args, ":(top,literal)"+p)
	}
	out, err := r.Run(ctx, args...)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// LastChangeSince is the committer time (Unix seconds) of the newest commit
// reachable from rev that changed one of paths after since; 0 when none
// did. The walk stops at commits older than since: it reads only the
// history made after that moment.
func (r *Repo) LastChangeSince(ctx context.Context, rev string, since int64, paths []string) (int64, error) {
	if err := checkRevs([]string{rev}); err != nil {
		return 0, err
	}
	args := []string{"log", "-1", "--format=%ct", logEncoding, "--since=@" + strconv.FormatInt(since, 10), "--end-of-options", rev, "--"}
	for _, p := range paths {
		args = append(args, ":(top,literal)"+p)
	}
	out, err := r.Run(ctx, args...)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// Commit reads a commit object by id through the reader, as a LogEntry:
// parents, tree, subject, the Run-Id / Task-Id trailers of its last
// paragraph, and what it reverts or was picked from. ok is false when
// there is no such commit.
func (o *Objects) Commit(oid string) (LogEntry, bool, error) {
	obj, err := o.Get(oid)
	if err != nil {
		return LogEntry{}, false, err
	}
	e, ok := ParseCommit(obj)
	if ok && o.logged != nil && foreignEncoding(obj.Data) {
		// A message in another encoding: read as the log reads it.
		cs, err := o.logged(obj.OID)
		if err != nil {
			return LogEntry{}, false, err
		}
		if len(cs) == 1 {
			c := cs[0]
			e.Subject, e.RunIDs, e.TaskIDs, e.Listed = c.Subject, c.RunIDs, c.TaskIDs, c.Listed
			e.Reverts, e.PickedFrom = c.Reverts, c.PickedFrom
		}
	}
	return e, ok, nil
}

// ParseCommit reads a commit object as Commit does, the author line too;
// ok is false for another object. A message in another encoding than
// UTF-8 (foreignEncoding) is read as its bytes, where the log reads it
// converted: Commit asks the log for that one.
func ParseCommit(obj Object) (e LogEntry, ok bool) {
	if obj.Type != "commit" {
		return LogEntry{}, false
	}
	e = LogEntry{OID: obj.OID}
	header, msg := commitParts(obj.Data)
	for _, l := range strings.Split(header, "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "tree":
			e.Tree = v
		case "parent":
			e.Parents = append(e.Parents, v)
		case "author":
			e.Author = v
		case "committer":
			// "Name <mail> 1700000000 +0000": the date is the next to last word.
			if f := strings.Fields(v); len(f) >= 2 {
				e.Time, _ = strconv.ParseInt(f[len(f)-2], 10, 64)
			}
		}
	}
	subject, body := subjectOf(msg)
	e.Subject = subject
	run, task := messageTrailers(msg)
	e.RunIDs, e.TaskIDs = splitList(run), splitList(task)
	if m := revertLine.FindStringSubmatch(body); m != nil {
		e.Reverts = m[1]
	}
	if m := pickedLine.FindStringSubmatch(body); m != nil {
		e.PickedFrom = m[1]
	}
	if len(e.Parents) < 2 {
		e.Listed = ListSquashed(e.Subject, body)
	}
	return e, true
}

// commitParts splits a commit object into its header and the message %B
// prints, where pretty.c's parse_commit_header puts it: after the first
// empty line, header lines read as C strings (a NUL ends a line, and the
// header when it starts one), the message itself up to a NUL. An object
// git made has neither NUL; one written by hand can (hash-object
// --literally), and the log reads it so.
func commitParts(data []byte) (header, msg string) {
	i := 0
	for i < len(data) && data[i] != 0 {
		eol := i
		for eol < len(data) && data[eol] != '\n' && data[eol] != 0 {
			eol++
		}
		if eol == i {
			break // the empty line
		}
		i = eol + 1
	}
	header = string(data[:min(i, len(data))])
	if i+1 >= len(data) {
		return header, "" // no message
	}
	msg = string(data[i+1:])
	if k := strings.IndexByte(msg, 0); k >= 0 {
		msg = msg[:k]
	}
	return header, msg
}

// foreignEncoding says whether a commit object's header names an
// encoding git takes for another than UTF-8 (utf8.c's same_encoding:
// "utf-8" or "utf8" in any case is UTF-8): git log converts such a
// message to UTF-8 (iconv, or the bytes as they are where it cannot)
// before it reads its subject and trailers, and Go has no iconv.
func foreignEncoding(data []byte) bool {
	// find_commit_header: the first "encoding " line of the header, read
	// as a C string.
	if k := bytes.IndexByte(data, 0); k >= 0 {
		data = data[:k]
	}
	for len(data) > 0 && data[0] != '\n' {
		line := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("encoding ")); ok {
			name := string(v)
			if len(name) < 3 || !equalFoldASCII(name[:3], "utf") {
				return true
			}
			return strings.TrimPrefix(name[3:], "-") != "8"
		}
	}
	return false
}

// subjectOf splits a commit message (as %B prints it) into git's %s and
// %b (pretty.c's parse_commit_message and format_subject): blank lines
// skipped, then the lines up to one of white space alone (so a CRLF
// message's "\r" line ends it too), each without its trailing white
// space, joined by one space; body is what follows, blank lines skipped.
// A string or the bytes of one, so that the log's parse copies nothing
// but the subject.
func subjectOf[S ~string | ~[]byte](msg S) (subject string, body S) {
	i := skipBlank(msg, 0)
	var joined []byte
	from, to, lines := 0, 0, 0
	for i < len(msg) {
		start := i
		end, next := lineAt(msg, i)
		i = next
		if end == start {
			break // a blank line ends the subject
		}
		switch lines {
		case 0:
			from, to = start, end
		case 1:
			joined = append(joined, msg[from:to]...)
			fallthrough
		default:
			joined = append(append(joined, ' '), msg[start:end]...)
		}
		lines++
	}
	body = msg[skipBlank(msg, i):]
	if lines > 1 {
		return string(joined), body
	}
	return string(msg[from:to]), body
}

// lineAt reads the line of msg at i: where its text ends, trailing white
// space aside (i for a line of white space alone), and where the next
// line starts.
func lineAt[S ~string | ~[]byte](msg S, i int) (end, next int) {
	next = i
	for next < len(msg) && msg[next] != '\n' {
		next++
	}
	end = next
	for end > i && gitSpace(msg[end-1]) {
		end--
	}
	if next < len(msg) {
		next++ // past the newline
	}
	return end, next
}

// skipBlank is where the first line at or after i that is not white
// space alone starts (pretty.c's skip_blank_lines).
func skipBlank[S ~string | ~[]byte](msg S, i int) int {
	for i < len(msg) {
		end, next := lineAt(msg, i)
		if end > i {
			break
		}
		i = next
	}
	return i
}

// DiffTrees is `git diff-tree -r --no-renames from to` read through the
// running reader, in the form of Changes: the sorted "newmode newblob
// path" lines of what differs, a deletion as the all-zero mode and id.
// Subtrees with the same id are never read, so a task's change costs a few
// tree reads, not a process. from and to are tree-ish names (commit ids
// too).
func (o *Objects) DiffTrees(from, to string) (string, error) {
	a, err := o.treeOf(from)
	if err != nil {
		return "", err
	}
	b, err := o.treeOf(to)
	if err != nil {
		return "", err
	}
	var lines []string
	if err := o.diffTrees(a, b, "", &lines); err != nil {
		return "", err
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}

// treeOf reads the tree a tree-ish name leads to; an error when none.
func (o *Objects) treeOf(name string) ([]TreeEntry, error) {
	t, err := o.Tree(name + "^{tree}")
	if err == nil && t == nil {
		// An empty tree reads as no entries, not nil.
		obj, gerr := o.Get(name + "^{tree}")
		if gerr != nil {
			return nil, gerr
		}
		if obj.Type != "tree" {
			return nil, fmt.Errorf("cat-file: %s is not a tree-ish", name)
		}
	}
	return t, err
}

func (o *Objects) diffTrees(a, b []TreeEntry, prefix string, lines *[]string) error {
	type pair struct{ a, b *TreeEntry }
	byName := map[string]*pair{}
	var names []string
	for i := range a {
		byName[a[i].Name] = &pair{a: &a[i]}
		names = append(names, a[i].Name)
	}
	for i := range b {
		if p, ok := byName[b[i].Name]; ok {
			p.b = &b[i]
			continue
		}
		byName[b[i].Name] = &pair{b: &b[i]}
		names = append(names, b[i].Name)
	}
	zero := ""
	for _, n := range names {
		p := byName[n]
		if p.a != nil && p.b != nil && p.a.OID == p.b.OID && canonMode(p.a.Mode) == canonMode(p.b.Mode) {
			continue
		}
		path := prefix + n
		sub := func(e *TreeEntry) ([]TreeEntry, error) {
			if e == nil || !e.IsDir() {
				return nil, nil
			}
			t, err := o.Tree(e.OID)
			if err == nil && t == nil {
				err = fmt.Errorf("cat-file: tree %s of %s is missing", e.OID, path)
			}
			return t, err
		}
		// A side that is a directory is walked; a side that is not is
		// one file, added, changed or deleted (a file that became a
		// directory is both: the file deleted, the directory's files
		// added, as diff-tree -r shows it).
		sa, err := sub(p.a)
		if err != nil {
			return err
		}
		sb, err := sub(p.b)
		if err != nil {
			return err
		}
		if sa != nil || sb != nil {
			if err := o.diffTrees(sa, sb, path+"/", lines); err != nil {
				return err
			}
		}
		fileA := p.a != nil && !p.a.IsDir()
		fileB := p.b != nil && !p.b.IsDir()
		switch {
		case fileB:
			*lines = append(*lines, canonMode(p.b.Mode)+" "+p.b.OID+" "+path)
		case fileA:
			if zero == "" {
				zero = strings.Repeat("0", len(p.a.OID))
			}
			*lines = append(*lines, "000000 "+zero+" "+path)
		}
	}
	return nil
}

// canonMode is the mode as diff-tree prints it: six octal digits, and a
// regular file's other permission bits reduced to 644 or 755 as git does.
func canonMode(m string) string {
	v, err := strconv.ParseUint(m, 8, 32)
	if err != nil {
		return m
	}
	switch v &^ 0o7777 {
	case 0o40000:
		return "040000"
	case 0o120000:
		return "120000"
	case 0o160000:
		return "160000"
	}
	if v&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

// forget lets go of the trees and objects read so far.
func (o *Objects) forget() {
	o.treeMu.Lock()
	o.trees = nil
	o.treeMu.Unlock()
	o.gotMu.Lock()
	o.got, o.gotBytes = nil, 0
	o.gotMu.Unlock()
}
