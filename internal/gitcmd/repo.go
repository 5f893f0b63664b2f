package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNotRepo means the directory is not inside a git repository.
var ErrNotRepo = errors.New("not a git repository")

// Repo is a repository as seen from one directory.
type Repo struct {
	Runner
	// GitDir is this worktree's git directory; CommonDir is shared by all
	// worktrees (refs, objects, the worktrees/ admin area live there).
	GitDir    string
	CommonDir string
	// TopLevel is the top of the current worktree, "" in a bare repository.
	TopLevel string
	Bare     bool
	Shallow  bool
}

// Open finds the repository that dir is in.
func Open(ctx context.Context, dir string) (*Repo, error) {
	r := Runner{Dir: dir}
	// --show-toplevel fails in a bare repository; --show-cdup does not.
	out, err := r.Run(ctx, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir",
		"--is-bare-repository", "--is-inside-work-tree", "--is-shallow-repository", "--show-cdup")
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.ExitCode == 128 {
			// git's own reason: not a repository, dubious ownership, a
			// missing directory. Callers test for ErrNotRepo.
			return nil, fmt.Errorf("%s: %w", firstLine(ge.Stderr), ErrNotRepo)
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if lines[0] == "--path-format=absolute" {
		// A git older than 2.31 prints back the option it does not know,
		// then relative paths: read on, every answer would be one line
		// off. A failure instead, which the commands explain by git's
		// version (Features).
		return nil, fmt.Errorf("git rev-parse does not know --path-format=absolute (git %s or newer has it)", needs("`git rev-parse --path-format=absolute`"))
	}
	for len(lines) < 6 {
		lines = append(lines, "")
	}
	repo := &Repo{
		Runner:    r,
		GitDir:    lines[0],
		CommonDir: lines[1],
		Bare:      lines[2] == "true",
		Shallow:   lines[4] == "true",
	}
	if lines[3] == "true" {
		base := dir
		if base == "" {
			base = "."
		}
		top, err := filepath.Abs(filepath.Join(base, lines[5]))
		if err != nil {
			return nil, err
		}
		repo.TopLevel = top
	}
	return repo, nil
}

// Config returns the repository's git config values for keys under prefix
// (e.g. "taskresume."), lower-cased keys; the last value of a key wins as in
// git.
func (r *Repo) Config(ctx context.Context, section string) (map[string]string, error) {
	return r.ConfigMatching(ctx, "^"+regexp.QuoteMeta(section)+`\.`)
}

// ConfigMatching returns the config values whose keys match the regular
// expression re (git config --get-regexp), lower-cased keys; the last value
// of a key wins as in git.
func (r *Repo) ConfigMatching(ctx context.Context, re string) (map[string]string, error) {
	entries, err := r.ConfigEntries(ctx, re)
	if err != nil {
		return nil, err
	}
	return ConfigMap(entries), nil
}

// ConfigEntry is one value of git config, its key as git prints it: section
// and name lower-cased, a subsection (a remote's name) as written.
type ConfigEntry struct{ Key, Value string }

// ConfigEntries returns the config values whose keys match the regular
// expression re, in git's order: where the case of a subsection matters
// (remote names are case-sensitive), ConfigMap's keys cannot say it.
func (r *Repo) ConfigEntries(ctx context.Context, re string) ([]ConfigEntry, error) {
	out, err := r.Run(ctx, "config", "-z", "--get-regexp", re)
	if err != nil {
		if ExitCode(err) == 1 { // no such key
			return nil, nil
		}
		return nil, err
	}
	var entries []ConfigEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		entries = append(entries, ConfigEntry{k, v})
	}
	return entries, nil
}

// ConfigMap indexes entries by lower-cased key; the last value of a key
// wins as in git.
func ConfigMap(entries []ConfigEntry) map[string]string {
	cfg := make(map[string]string, len(entries))
	for _, e := range entries {
		cfg[strings.ToLower(e.Key)] = e.Value
	}
	return cfg
}

// Ref is one entry of for-each-ref.
type Ref struct {
	Name       string // full name, refs/heads/x
	OID        string
	Type       string // object type of OID: commit, tag, ...
	Symref     string // target when Name is a symbolic ref
	CommitTime time.Time
}

// RefsAndBodies is Refs, plus the parents and message bodies of the refs
// under bodyPrefixes (each ending in "/"), in one for-each-ref: what
// SavedRefs would read with a process of its own.
func (r *Repo) RefsAndBodies(ctx context.Context, bodyPrefixes []string, patterns ...string) ([]Ref, []SavedRef, error) {
	if r.shared != nil {
		if saved, ok := r.shared.bodiesUnder(bodyPrefixes); ok {
			if refs, ok := r.shared.refsMatching(patterns); ok {
				var out []Ref
				for _, ref := range refs {
					under := false
					for _, p := range bodyPrefixes {
						under = under || strings.HasPrefix(ref.Name, p)
					}
					if !under {
						out = append(out, ref)
					}
				}
				return out, saved, nil
			}
		}
	}
	args := []string{"for-each-ref",
		"--format=%(refname)%00%(objectname)%00%(objecttype)%00%(symref)%00%(committerdate:unix)%00%(tree)%00%(parent)%00%(contents:body)%00",
		"--end-of-options"}
	args = append(args, patterns...)
	args = append(args, bodyPrefixes...)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, nil, err
	}
	var refs []Ref
	var saved []SavedRef
	for _, rec := range bytes.Split(out, []byte("\x00\n")) {
		if len(rec) == 0 {
			continue
		}
		// The body is last and may hold anything but NUL.
		f := strings.SplitN(string(rec), "\x00", 8)
		if len(f) != 8 {
			return nil, nil, fmt.Errorf("for-each-ref: unexpected record %q", rec)
		}
		under := false
		for _, p := range bodyPrefixes {
			under = under || strings.HasPrefix(f[0], p)
		}
		if under {
			saved = append(saved, SavedRef{Name: f[0], OID: f[1], Tree: f[5], Parents: strings.Fields(f[6]), Body: f[7]})
			continue
		}
		ref := Ref{Name: f[0], OID: f[1], Type: f[2], Symref: f[3]}
		if f[4] != "" {
			if sec, err := strconv.ParseInt(f[4], 10, 64); err == nil {
				ref.CommitTime = time.Unix(sec, 0)
			}
		}
		refs = append(refs, ref)
	}
	return refs, saved, nil
}

// Refs lists refs matching the for-each-ref patterns. Patterns are globs
// ("refs/heads/x1y2z3-task-*"); a literal pattern only matches a whole name
// or a prefix ending in "/", which is why task prefixes must be globbed.
func (r *Repo) Refs(ctx context.Context, patterns ...string) ([]Ref, error) {
	if r.shared != nil {
		if refs, ok := r.shared.refsMatching(patterns); ok {
			return refs, nil
		}
	}
	args := []string{"for-each-ref",
		"--format=%(refname)%00%(objectname)%00%(objecttype)%00%(symref)%00%(committerdate:unix)%00",
		"--end-of-options"}
	args = append(args, patterns...)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return ParseRefs(out)
}

// ParseRefs parses the output format used by Refs: five NUL-terminated
// fields then a newline per ref.
func ParseRefs(out []byte) ([]Ref, error) {
	var refs []Ref
	for _, rec := range bytes.Split(out, []byte("\x00\n")) {
		if len(rec) == 0 {
			continue
		}
		f := strings.Split(string(rec), "\x00")
		if len(f) != 5 {
			return nil, fmt.Errorf("for-each-ref: unexpected record %q", rec)
		}
		ref := Ref{Name: f[0], OID: f[1], Type: f[2], Symref: f[3]}
		if f[4] != "" {
			sec, err := strconv.ParseInt(f[4], 10, 64)
			if err == nil {
				ref.CommitTime = time.Unix(sec, 0)
			}
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// RefsContaining returns the names of the refs matching patterns whose
// commits contain commit (`for-each-ref --contains`).
func (r *Repo) RefsContaining(ctx context.Context, commit string, patterns ...string) (map[string]bool, error) {
	if err := checkRevs([]string{commit}); err != nil {
		return nil, err
	}
	args := append([]string{"for-each-ref", "--format=%(refname)", "--contains", commit, "--end-of-options"}, patterns...)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			set[l] = true
		}
	}
	return set, nil
}

// ResolveCommit resolves a user-given revision to a commit id. The name is
// passed after --end-of-options so that it can never act as an option.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit is one commit of a history walk with its parents (WalkNotOnRefs).
type Commit struct {
	OID     string
	Parents []string
}

// WalkNotOnRefs returns the commits reachable from include that no branch,
// tag or remote-tracking ref holds: work that a worktree removal would
// orphan.
func (r *Repo) WalkNotOnRefs(ctx context.Context, include []string) ([]Commit, error) {
	if len(include) == 0 {
		return nil, nil
	}
	if err := checkRevs(include); err != nil {
		return nil, err
	}
	in := strings.Join(include, "\n") + "\n"
	out, err := r.RunInput(ctx, []byte(in), "rev-list", "--parents", "--stdin", "--not", "--branches", "--tags", "--remotes")
	if err != nil {
		return nil, err
	}
	return ParseWalk(out), nil
}

// revInput is what `rev-list --stdin` (and log, which takes the same) reads
// for the commits reachable from include and not from exclude: one id or
// "^id" a line, so that neither argv limits nor option-looking names
// matter. Revisions it would misread are refused (see checkRevs).
func revInput(include, exclude []string) ([]byte, error) {
	if err := checkRevs(include, exclude); err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, s := range include {
		in.WriteString(s + "\n")
	}
	for _, s := range exclude {
		in.WriteString("^" + s + "\n")
	}
	return in.Bytes(), nil
}

// checkRevs refuses revisions that would change what `rev-list --stdin`
// reads: a blank line ends its input (silently dropping every revision after
// it), and a line starting with "-" is read as an option.
func checkRevs(lists ...[]string) error {
	for _, l := range lists {
		for _, s := range l {
			if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, "\n\r") {
				return fmt.Errorf("rev-list: unusable revision %q", s)
			}
		}
	}
	return nil
}

// ParseWalk parses `rev-list --parents` output.
func ParseWalk(out []byte) []Commit {
	var cs []Commit
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		cs = append(cs, Commit{OID: f[0], Parents: f[1:]})
	}
	return cs
}

// ReadBlob returns the content of REV:PATH.
func (r *Repo) ReadBlob(ctx context.Context, rev, path string) ([]byte, error) {
	return r.Run(ctx, "cat-file", "blob", "--end-of-options", rev+":"+path)
}

// RefUpdate is one line of an `update-ref --stdin` transaction. It always
// applies to the ref it names, never to the ref that one points to when it
// is a symbolic ref (`option no-deref`): deleting an alias such as
// refs/heads/<run>-main -> refs/heads/main deletes the alias, not main and
// its reflog. The expected old value is still checked, against what the
// alias resolves to (the value every reader saw).
type RefUpdate struct {
	// Op is create (must not exist), delete (must be at Old), update, or
	// verify (must be at Old, all zeros for absent; nothing written: the
	// ref is locked with the others, so the transaction holds only while
	// it is so).
	Op       string
	Ref      string
	New, Old string
}

// UpdateRefs applies updates in one atomic transaction: all or none. Every
// update names the value it expects, so a ref that moved since it was read
// makes the whole transaction fail instead of losing the new value.
func (r *Repo) UpdateRefs(ctx context.Context, updates []RefUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	var in strings.Builder
	writeUpdates(&in, updates)
	w := r.Runner
	w.Write = true
	_, err := w.RunInput(ctx, []byte(in.String()), "update-ref", "--stdin")
	return err
}

// writeUpdates writes updates as `git update-ref --stdin` commands, each
// after `option no-deref` (it holds for the next command only).
func writeUpdates(w io.Writer, updates []RefUpdate) {
	for _, u := range updates {
		io.WriteString(w, "option no-deref\n")
		switch {
		case u.Op == "create":
			fmt.Fprintf(w, "create %s %s\n", u.Ref, u.New)
		case u.Op == "verify":
			fmt.Fprintf(w, "verify %s %s\n", u.Ref, u.Old)
		case u.Op == "delete" && u.Old == "":
			fmt.Fprintf(w, "delete %s\n", u.Ref)
		case u.Op == "delete":
			fmt.Fprintf(w, "delete %s %s\n", u.Ref, u.Old)
		default:
			fmt.Fprintf(w, "update %s %s %s\n", u.Ref, u.New, u.Old)
		}
	}
}

// SavedRef is a ref with the parents and message body of its commit.
type SavedRef struct {
	Name    string
	OID     string
	Tree    string
	Parents []string
	Body    string
}

// SavedRefs lists refs under prefix with their commits' parents and bodies.
func (r *Repo) SavedRefs(ctx context.Context, prefix string) ([]SavedRef, error) {
	out, err := r.Run(ctx, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(tree)%00%(parent)%00%(contents:body)%00",
		"--end-of-options", prefix)
	if err != nil {
		return nil, err
	}
	var res []SavedRef
	for _, rec := range bytes.Split(out, []byte("\x00\n")) {
		if len(rec) == 0 {
			continue
		}
		f := strings.SplitN(string(rec), "\x00", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("for-each-ref: unexpected record %q", rec)
		}
		res = append(res, SavedRef{Name: f[0], OID: f[1], Tree: f[2], Parents: strings.Fields(f[3]), Body: f[4]})
	}
	return res, nil
}

// IsAncestor says whether anc is desc or one of its ancestors (git
// merge-base --is-ancestor).
func (r *Repo) IsAncestor(ctx context.Context, anc, desc string) (bool, error) {
	if yes, ok := r.shared.isAncestor(anc, desc); ok {
		return yes, nil
	}
	_, err := r.Run(ctx, "merge-base", "--is-ancestor", "--end-of-options", anc, desc)
	if err == nil {
		return true, nil
	}
	if ExitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

// PathChange is a commit that changed a file, and the blob it left there
// ("" for a merge: git's log shows no change of a merge; read the file
// there).
type PathChange struct {
	Commit, Blob string
	// Added: the file was not there before this commit.
	Added bool
}

// PathChanges lists the commits that changed the file at path, newest
// first, from rev back to the newest commit that added it (included), as
// `git log rev -- path` walks them; git stops there, not at the root.
func (r *Repo) PathChanges(ctx context.Context, rev, path string) ([]PathChange, error) {
	var changes []PathChange
	scanned, added := 0, false
	parse := func(out []byte) bool {
		// Whole lines only: the rest arrives with the next write.
		for !added {
			nl := bytes.IndexByte(out[scanned:], '\n')
			if nl < 0 {
				return false
			}
			line := string(out[scanned : scanned+nl])
			scanned += nl + 1
			switch {
			case strings.HasPrefix(line, "\x00"):
				changes = append(changes, PathChange{Commit: line[1:]})
			case strings.HasPrefix(line, ":") && len(changes) > 0:
				// ":100644 100644 <old> <new> M\tpath"
				meta, _, _ := strings.Cut(line, "\t")
				f := strings.Fields(meta)
				if len(f) == 5 {
					c := &changes[len(changes)-1]
					c.Blob = f[3]
					if f[4] == "A" {
						c.Added, added = true, true
					}
				}
			}
		}
		return true
	}
	out, err := r.RunUntil(ctx, parse, "log", "--format=%x00%H", logEncoding, "--raw", "--no-abbrev", "--no-renames",
		"--end-of-options", rev, "--", ":(top,literal)"+path)
	if err != nil {
		return nil, err
	}
	parse(out) // a git that ended on its own: its last lines
	return changes, nil
}

// LogEntry is a commit with what marks it as a task's: its subject (merge
// messages name the branch), its trailers, and what its message says it
// reverts or was cherry-picked from.
type LogEntry struct {
	OID     string
	Parents []string
	Subject string
	RunIDs  []string
	TaskIDs []string
	// Tree is the commit's tree: a commit whose tree is its parent's
	// changes nothing.
	Tree string
	// Reverts is the commit "This reverts commit X." names; PickedFrom
	// the one "(cherry picked from commit X)" names.
	Reverts, PickedFrom string
	// Time is the committer date, in seconds.
	Time int64
	// Listed are the subjects a squash's message lists (ListSquashed):
	// nil for any other commit.
	Listed []string
	// Author is the author line ("Name <mail> 1700000000 +0000"), read
	// only by Objects.Commit and ParseCommit (the log does not ask).
	Author string
}

// logFormat prints what names a task: parents, the tree, the boundary
// mark, the committer date and the message, from which the subject, the
// Run-Id / Task-Id trailers (read as git reads them: trailers.go) and
// what it reverts or was picked from are read. A "B" before the message
// keeps one that starts with a newline from reading as a record's end.
const logFormat = "--format=%H%x00%P%x00%T%x00%m%x00%ct%x00B%B%x00"

// logEncoding has the log write in UTF-8, whatever i18n.logOutputEncoding
// (or i18n.commitEncoding, its default) asks: git converts a message to
// UTF-8 from its commit's encoding before it reads it, and another output
// encoding converts the whole record again, ids included (to Latin-1 the
// subject and trailers were no longer the object reader's; to UTF-16 no
// record could be read). Every log and rev-list --format here passes it.
const logEncoding = "--encoding=UTF-8"

// logFormatGraphTrees is logFormat without the trees (the field left
// empty), for a log whose trees the commit-graph gives.
const logFormatGraphTrees = "--format=%H%x00%P%x00%x00%m%x00%ct%x00B%B%x00"

// fillTrees reads the trees of the entries at positions at of cs, which
// the commit-graph did not hold, in one log.
func (r *Repo) fillTrees(ctx context.Context, cs []LogEntry, at []int) error {
	var in bytes.Buffer
	for _, i := range at {
		in.WriteString(cs[i].OID + "\n")
	}
	out, err := r.RunInput(ctx, in.Bytes(), "log", "--no-walk=unsorted", "--format=%H %T", logEncoding, "--stdin")
	if err != nil {
		return err
	}
	trees := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if c, t, ok := strings.Cut(l, " "); ok {
			trees[c] = t
		}
	}
	for _, i := range at {
		if cs[i].Tree = trees[cs[i].OID]; cs[i].Tree == "" {
			return fmt.Errorf("log: no tree read for %s", cs[i].OID)
		}
	}
	return nil
}

// logFields is how many fields a logFormat record holds.
const logFields = 6

// LogRevs lists the commits reachable from any of include and none of
// exclude, newest first, with what names a task (see LogEntry).
func (r *Repo) LogRevs(ctx context.Context, include, exclude []string) ([]LogEntry, error) {
	cs, _, err := r.logRevs(ctx, include, exclude, false)
	return cs, err
}

// LogWalk is LogRevs that also returns the trees of the boundary: the
// excluded commits the listed ones have as parents.
func (r *Repo) LogWalk(ctx context.Context, include, exclude []string) ([]LogEntry, map[string]string, error) {
	return r.logRevs(ctx, include, exclude, true)
}

func (r *Repo) logRevs(ctx context.Context, include, exclude []string, boundary bool) ([]LogEntry, map[string]string, error) {
	if len(include) == 0 {
		return nil, nil, nil
	}
	if r.shared != nil {
		if cs, trees, ok := r.shared.logRevs(include, exclude, boundary); ok {
			return cs, trees, nil
		}
	}
	in, err := revInput(include, exclude)
	if err != nil {
		return nil, nil, err
	}
	// The graph, opened once: its levels size the list, and for a long
	// range it holds (its tips are in it, so every commit below them is)
	// it gives the trees, where git's %T costs a tenth of the log (an
	// object made for every tree). Not where the history is rewritten
	// (grafts, replace refs): the graph records commits as written.
	hint, format := 0, logFormat
	var graph *commitGraph
	if g := r.graphFor(include); g != nil {
		defer g.close()
		hint = g.rangeHint(include, exclude)
		if !boundary && hint > 0 && !r.rewritten() {
			graph, format = g, logFormatGraphTrees
		}
	}
	// --date-order: every child before its parents, as "newest first"
	// is read (a revert before what it reverts, a re-apply before the
	// revert it undoes) even where a clock ran behind; git's default
	// order lists a parent first when another path reaches it sooner.
	// It is also the shared walk's order.
	args := []string{"log", format, logEncoding, "--date-order"}
	if boundary {
		args = append(args, "--boundary")
	}
	// Parsed as git writes it: a long history is never held whole.
	args = append(args, "--stdin")
	cmd := r.command(ctx, longWalk(), args)
	cmd.Stdin = bytes.NewReader(in)
	p := newLogParser(hint)
	p.graph = graph
	if err := run(cmd, p, args); err != nil {
		return nil, nil, err
	}
	all, err := p.finish()
	if err != nil {
		return nil, nil, err
	}
	if len(p.treeless) > 0 {
		if err := r.fillTrees(ctx, all, p.treeless); err != nil {
			return nil, nil, err
		}
	}
	if !boundary {
		return all, nil, nil // LogRevs: no trees asked, no copy made
	}
	var cs []LogEntry
	trees := map[string]string{}
	for _, c := range all {
		trees[c.OID] = c.Tree
		if c.Reverts != "-" { // the boundary mark, kept in Reverts by parseLog
			cs = append(cs, c)
		}
	}
	return cs, trees, nil
}

// RevSet returns the ids of the commits reachable from include and not
// from exclude.
func (r *Repo) RevSet(ctx context.Context, include, exclude []string) (map[string]bool, error) {
	set := map[string]bool{}
	if len(include) == 0 {
		return set, nil
	}
	if r.shared != nil {
		if s, ok := r.shared.revSet(include, exclude); ok {
			return s, nil
		}
	}
	in, err := revInput(include, exclude)
	if err != nil {
		return nil, err
	}
	out, err := r.RunInput(ctx, in, "rev-list", "--stdin")
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Fields(string(out)) {
		set[l] = true
	}
	return set, nil
}

// MergeBaseAll returns the best common ancestor of all of oids
// (`merge-base --octopus`), "" when they share no history.
func (r *Repo) MergeBaseAll(ctx context.Context, oids []string) (string, error) {
	if err := checkRevs(oids); err != nil {
		return "", err
	}
	args := append([]string{"merge-base", "--octopus", "--end-of-options"}, oids...)
	out, err := r.Run(ctx, args...)
	var ge *Error
	if errors.As(err, &ge) && ge.ExitCode == 1 && strings.TrimSpace(ge.Stderr) == "" {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// revertLine and pickedLine are what git revert and git cherry-pick -x
// write into the message.
var (
	revertLine = regexp.MustCompile(`(?m)^This reverts commit ([0-9a-f]{40,64})\b`)
	pickedLine = regexp.MustCompile(`(?m)^\(cherry picked from commit ([0-9a-f]{40,64})\)`)
)

func parseLog(out []byte) ([]LogEntry, error) {
	var res []LogEntry
	for _, rec := range bytes.Split(out, []byte("\x00\n")) {
		if len(rec) == 0 || len(bytes.TrimSpace(rec)) == 0 {
			continue
		}
		f := strings.Split(strings.TrimLeft(string(rec), "\n"), "\x00")
		e, err := logEntry(f)
		if err != nil {
			return nil, err
		}
		res = append(res, e)
	}
	return res, nil
}

// logEntry reads the fields of one record of logFormat.
func logEntry(f []string) (LogEntry, error) {
	if len(f) != logFields || !strings.HasPrefix(f[5], "B") {
		return LogEntry{}, fmt.Errorf("log: unexpected record %q", strings.Join(f, "\x00"))
	}
	msg := f[5][1:]
	subject, body := subjectOf(msg)
	e := LogEntry{OID: f[0], Parents: strings.Fields(f[1]), Subject: subject, Tree: f[2]}
	run, task := messageTrailers(msg)
	e.RunIDs, e.TaskIDs = splitList(run), splitList(task)
	e.Time, _ = strconv.ParseInt(f[4], 10, 64)
	// The lines are looked for only where their words are: a regexp
	// anchored at each line's start tries every byte of the body, and a
	// list reads every commit's (long ones in a repository of forge
	// squashes, whose bodies list the squashed commits).
	if f[3] == "-" {
		e.Reverts = "-" // a boundary commit; LogWalk takes it out
	} else if strings.Contains(body, "This reverts commit ") {
		if m := revertLine.FindStringSubmatch(body); m != nil {
			e.Reverts = m[1]
		}
	}
	if strings.Contains(body, "(cherry picked from commit ") {
		if m := pickedLine.FindStringSubmatch(body); m != nil {
			e.PickedFrom = m[1]
		}
	}
	if len(e.Parents) < 2 {
		e.Listed = ListSquashed(e.Subject, body)
	}
	return e, nil
}

// A forge's squash names the squashed commits in its message. Read are:
//
//   - git's own `git merge --squash` message, subject "Squashed commit of
//     the following:", then per commit a "commit <id>" line, its header
//     lines, a blank line and its message indented by four spaces: the
//     first indented line is the commit's subject;
//   - the "* <subject>" lines of GitHub's squash body (the commits of a pull
//     request squashed under "Title (#N)") and of GitLab's %{all_commits}
//     (a merge request's commits, a reference "group/project!N" or "merge
//     request !N" in the message); only
//     when the message carries such a mark, so that an ordinary commit
//     whose body is a bullet list is not read as a squash.
var (
	squashMR   = regexp.MustCompile(`(?i)(?:merge request\s+(?:[\w.-]+/)*[\w.-]*|[\w.-]+/(?:[\w.-]+/)*[\w.-]+)![0-9]+\b`)
	squashLine = regexp.MustCompile(`(?m)^\* +(\S.*?)\s*$`)
	gitSquash  = regexp.MustCompile(`(?m)^commit [0-9a-f]{40,64}\n(?:[A-Za-z]+:.*\n)*\n {4}(\S.*?)\s*$`)
)

// PRSuffix is where GitHub's squash mark " (#N)" starts at the end of
// subject (trailing spaces aside), -1 when it has none. Read by hand: it
// is asked of every landed commit.
func PRSuffix(subject string) int {
	s := strings.TrimRight(subject, " ")
	if !strings.HasSuffix(s, ")") {
		return -1
	}
	k := strings.LastIndex(s, " (#")
	if k < 0 || k+4 >= len(s) {
		return -1
	}
	for _, c := range s[k+3 : len(s)-1] {
		if c < '0' || c > '9' {
			return -1
		}
	}
	return k
}

// GitSquashSubject is the subject git's `git merge --squash` writes.
const GitSquashSubject = "Squashed commit of the following:"

// ListSquashed returns the subjects a squash's message (subject, body)
// lists, nil when it is no squash message read (see above).
func ListSquashed(subject, body string) []string {
	var out []string
	switch {
	case strings.TrimSpace(subject) == GitSquashSubject:
		for _, m := range gitSquash.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
	case !strings.Contains(body, "* "):
		// No list: most commits stop here.
	case PRSuffix(subject) >= 0 || strings.IndexByte(subject+body, '!') >= 0 && squashMR.MatchString(subject+"\n"+body):
		out = squashLines(body)
	}
	return out
}

// squashLines are the "* <subject>" lines of body, as squashLine reads
// them (a "*", spaces, the subject up to trailing white space), found
// without a regexp: one that tries every byte of every listed body costs
// a list of a repository of forge squashes seconds.
func squashLines(body string) []string {
	var out []string
	for line := range strings.SplitSeq(body, "\n") {
		rest, ok := strings.CutPrefix(line, "* ")
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " ")
		if rest == "" || strings.IndexByte("\t\n\f\r ", rest[0]) >= 0 {
			continue
		}
		out = append(out, strings.TrimRight(rest, "\t\n\f\r "))
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Changes maps a commit (or a diff-tree record's first id) to what it
// changes: the sorted "newmode newblob path" lines of its raw diff. Only the
// new side is kept: the same change applied on another parent has other
// old blobs.
type Changes map[string]string

// LogChanges reads the whole changes of the non-merge commits reachable
// from include and not from exclude that touch one of paths (all of them
// when paths is empty), in one `git log --raw --full-diff`.
func (r *Repo) LogChanges(ctx context.Context, include, exclude, paths []string) (Changes, error) {
	if len(include) == 0 {
		return Changes{}, nil
	}
	in, err := revInput(include, exclude)
	if err != nil {
		return nil, err
	}
	args := []string{"log", "--no-merges", "--no-abbrev", "--raw", "--full-diff", "--no-renames", "-z", "--format=%x01%H", logEncoding, "--stdin"}
	if len(paths) > 0 {
		args = append(args, "--")
		for _, p := range paths {
			args = append(args, ":(top,literal)"+p)
		}
	}
	out, err := r.RunEnv(ctx, longWalk(treeCache), in, args...)
	if err != nil {
		return nil, err
	}
	return ParseChanges(out), nil
}

// DiffChanges reads the changes of diff-tree --stdin lines ("<commit>",
// or "<commit> <parent>" for the change from parent to commit), keyed by
// the line itself: git heads each record with the commit alone, and two
// lines may name one commit with different parents (two tasks whose work
// is on one branch).
func (r *Repo) DiffChanges(ctx context.Context, lines []string) (Changes, error) {
	if len(lines) == 0 {
		return Changes{}, nil
	}
	// --always: a record for every line, empty changes included, so that
	// the records follow the lines one for one.
	out, err := r.RunInput(ctx, []byte(strings.Join(lines, "\n")+"\n"), "diff-tree", "--always", "-r", "--no-renames", "-z", "--stdin")
	if err != nil {
		return nil, err
	}
	res := Changes{}
	i := 0
	eachChange(out, func(_, change string) {
		if i < len(lines) {
			res[lines[i]] = change
		}
		i++
	})
	if i != len(lines) {
		return nil, fmt.Errorf("diff-tree: %d records for %d lines", i, len(lines))
	}
	return res, nil
}

// ParseChanges parses NUL-separated raw diffs (`log --raw -z` with a
// "%x01%H" format, or `diff-tree -z --stdin`): a header token, then
// ":meta" and path tokens in turn. A path may hold any byte, so what
// follows a meta token is always a path.
func ParseChanges(out []byte) Changes {
	res := Changes{}
	eachChange(out, func(header, change string) {
		key, _, _ := strings.Cut(strings.TrimPrefix(header, "\x01"), " ")
		res[key] = change
	})
	return res
}

// eachChange calls fn, in order, with each record's header token and its
// change: the sorted "newmode newblob path" lines of its raw diff.
func eachChange(out []byte, fn func(header, change string)) {
	header := ""
	var lines []string
	flush := func() {
		if header != "" {
			sort.Strings(lines)
			fn(header, strings.Join(lines, "\n"))
		}
		lines = nil
	}
	toks := strings.Split(string(out), "\x00")
	for i := 0; i < len(toks); i++ {
		t := strings.TrimLeft(toks[i], "\n")
		switch {
		case strings.HasPrefix(t, ":"):
			f := strings.Fields(t)
			if i+1 < len(toks) && len(f) >= 5 {
				lines = append(lines, f[1]+" "+f[3]+" "+toks[i+1])
			}
			i++ // the path
		case t != "":
			flush()
			header = t
		}
	}
	flush()
}

// AheadBehind counts the commits a has that b lacks, and b has that a
// lacks (`rev-list --left-right --count a...b`).
func (r *Repo) AheadBehind(ctx context.Context, a, b string) (ahead, behind int, err error) {
	if err := checkRevs([]string{a, b}); err != nil {
		return 0, 0, err
	}
	out, err := r.Run(ctx, "rev-list", "--left-right", "--count", "--end-of-options", a+"..."+b)
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("rev-list --left-right --count: unexpected output %q", out)
	}
	if ahead, err = strconv.Atoi(f[0]); err == nil {
		behind, err = strconv.Atoi(f[1])
	}
	return ahead, behind, err
}
