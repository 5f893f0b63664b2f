package gitcmd

import (
	"bufio"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Shared holds what every run of one repository reads alike, read once for
// a list of many runs: every ref, the claims' and saves' bodies, every
// commit reachable from a ref (with what names a task), one object reader,
// and the answers of read-only commands that take no run (the worktree
// list, git config). A Repo given it (WithShared) answers Refs,
// RefsAndBodies, LogRevs, LogWalk, RevSet and IsAncestor from memory, with
// what git would print; a question about a commit the shared walk did not
// read (a worktree's detached HEAD, a reflog's) goes to git as before.
//
// The answers are git's as of when Shared was read: a list is one view
// of the repository, as one report is.
type Shared struct {
	refs   []Ref
	bodies []SavedRef
	// bodyRoots are the ref prefixes whose bodies were read (each ends
	// in "/"); RefsAndBodies asks only under them.
	bodyRoots []string
	readers   []*Objects
	turn      atomic.Uint32
	// components are the refs' path components, sorted (indexRefs).
	indexOnce  sync.Once
	components []refComponent
	// tried counts the refs tried against a run's patterns.
	tried atomic.Int64

	// started is how many git processes ReadShared started; pretend
	// counts answers as processes (CountAsGit).
	started int64
	pretend bool

	memoMu sync.Mutex
	memo   map[string]memoOut
	// landed holds LandedSince's index per set of tips (under memoMu).
	landed map[string]*landedMemo

	// The commits, in `git log --date-order` order (every commit before
	// its parents), their generation numbers, and where each one is. No
	// pointer per commit: a list holds every commit of the repository
	// while it reads thousands of runs, and the collector then has little
	// to look through (sharedCommit).
	commits []sharedCommit
	gen     []int32
	// ids holds each commit's id and then its tree's, hexLen bytes each;
	// text the subjects; mores what few commits have more of.
	ids    []byte
	hexLen int
	text   []byte
	mores  []commitMore
	// The parents of commit i are parentList[parentAt[i]:parentAt[i+1]].
	parentAt, parentList []int32
	// index finds a commit by its id's first 16 hex digits; clash holds
	// the ids of those that share them (index then says -1).
	index map[uint64]int32
	clash map[string]int32

	// Scratch for the walks, one at a time (a run's reads run at once).
	walkMu sync.Mutex
	mark   []uint32
	epoch  uint32
}

type memoOut struct {
	out []byte
	err error
}

// CountAsGit makes every answer s gives count as the git process it
// stands for, and takes back the processes ReadShared started: a report
// read through s then counts what it would without it, so that the test
// suite can compare every report whole (GIT_TASKRESUME_TEST_SHARED).
func (s *Shared) CountAsGit() {
	s.pretend = true
	processes.Add(-s.started)
}

// served counts one answer from memory as a git process, when asked to.
func (s *Shared) served() {
	if s.pretend {
		processes.Add(1)
	}
}

// sharedBodyRoots are the refs whose bodies (claims, saves) the reports
// read with the refs.
var sharedBodyRoots = []string{"refs/taskclaims/", "refs/taskclean/"}

// ReadShared reads what the runs of r share, at once: four git processes
// whatever the number of runs. A shallow or grafted repository gets no
// shared walk (its answers are git's own, asked each time).
func ReadShared(ctx context.Context, r *Repo, walk bool) (*Shared, error) {
	return ReadSharedThen(ctx, r, walk, nil)
}

// ReadSharedThen is ReadShared that runs early, once the refs and the
// object readers are ready, while the commits are still being read: what
// needs no commit (reading the runs' plans) is not kept waiting for the
// longest read. early must not ask s about commits.
func ReadSharedThen(ctx context.Context, r *Repo, walk bool, early func(*Shared) error) (*Shared, error) {
	s := &Shared{bodyRoots: sharedBodyRoots, memo: map[string]memoOut{}}
	before := processes.Load()
	defer func() { s.started = processes.Load() - before }()
	var refsErr, bodiesErr, logErr, objsErr, earlyErr error
	var wg, logWG sync.WaitGroup
	wg.Add(3)
	logWG.Add(1)
	go func() {
		defer wg.Done()
		// Every ref but the bodies' (read below): one for-each-ref.
		s.refs, refsErr = r.Refs(ctx)
	}()
	go func() {
		defer wg.Done()
		_, s.bodies, bodiesErr = r.RefsAndBodies(ctx, s.bodyRoots)
	}()
	go func() {
		defer logWG.Done()
		if !walk || r.Shallow {
			return
		}
		logErr = s.readCommits(ctx, r)
	}()
	go func() {
		defer wg.Done()
		pre := &objectCache{m: map[string]Object{}}
		for range sharedReaders {
			o, err := r.ObjectReader(ctx)
			if err != nil {
				objsErr = err
				return
			}
			o.shared, o.pre = true, pre
			s.readers = append(s.readers, o)
		}
	}()
	wg.Wait()
	if early != nil && refsErr == nil && bodiesErr == nil && objsErr == nil {
		earlyErr = early(s)
	}
	logWG.Wait()
	if err := errors.Join(refsErr, bodiesErr, logErr, objsErr, earlyErr); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// sharedReaders is how many object readers the runs of a list share: a
// run that waits on a reader's answer (or holds it for a batch) leaves the
// others theirs, and a cat-file process is cheap (measured: 2 readers and
// 3 runs at once against 4 and 6, the latter 5-10 % faster on repo-20k).
const sharedReaders = 4

// Close ends the shared object reader.
func (s *Shared) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, o := range s.readers {
		o.shared = false
		errs = append(errs, o.Close())
	}
	return errors.Join(errs...)
}

// Objects is one of the shared readers, in turn; its trees read so far
// are let go, so that a list of many runs does not hold every tree it
// read.
func (s *Shared) Objects() *Objects {
	s.served()
	o := s.readers[s.turn.Add(1)%uint32(len(s.readers))]
	o.forget()
	return o
}

// sharedCommit is one commit of the shared walk, where its words are
// in Shared's arrays: no pointer, so that the collector skips them all.
type sharedCommit struct {
	subject, subjectLen int32 // in text
	time                int64
	more                int32 // 1 + its index in mores; 0 for none
}

type commitMore struct {
	runIDs, taskIDs, listed []string
	reverts, pickedFrom     string
}

// oid, tree and subject are commit i's, as strings over Shared's arrays
// (written once, before any is made).
func (s *Shared) oid(i int32) string {
	return unsafe.String(&s.ids[2*int(i)*s.hexLen], s.hexLen)
}

func (s *Shared) tree(i int32) string {
	return unsafe.String(&s.ids[(2*int(i)+1)*s.hexLen], s.hexLen)
}

func (s *Shared) subject(i int32) string {
	c := &s.commits[i]
	if c.subjectLen == 0 {
		return ""
	}
	return unsafe.String(&s.text[c.subject], int(c.subjectLen))
}

// parents are commit i's parents' positions.
func (s *Shared) parents(i int32) []int32 {
	return s.parentList[s.parentAt[i]:s.parentAt[i+1]]
}

// lookup finds the commit of id oid.
func (s *Shared) lookup(oid string) (int32, bool) {
	k, ok := idKey(oid)
	if !ok {
		return 0, false
	}
	i, ok := s.index[k]
	if ok && i < 0 {
		i, ok = s.clash[oid]
	}
	return i, ok && s.oid(i) == oid
}

// idKey is the first 16 hex digits of an id as a number.
func idKey(oid string) (uint64, bool) {
	if len(oid) < 16 {
		return 0, false
	}
	k, err := strconv.ParseUint(oid[:16], 16, 64)
	return k, err == nil
}

// entry is commit i as the log prints it.
func (s *Shared) entry(i int32) LogEntry {
	c := &s.commits[i]
	e := LogEntry{OID: s.oid(i), Subject: s.subject(i), Tree: s.tree(i), Time: c.time}
	ps := s.parents(i)
	e.Parents = make([]string, len(ps)) // never nil, as the log's are
	for k, p := range ps {
		e.Parents[k] = s.oid(p)
	}
	if c.more > 0 {
		m := &s.mores[c.more-1]
		e.RunIDs, e.TaskIDs, e.Listed, e.Reverts, e.PickedFrom = m.runIDs, m.taskIDs, m.listed, m.reverts, m.pickedFrom
	}
	return e
}

// readCommits reads every commit reachable from a ref or a worktree's
// HEAD, children before parents, as git prints them (streamed: the
// output is never held whole), and numbers their generations.
func (s *Shared) readCommits(ctx context.Context, r *Repo) error {
	var parentIDs []byte // each commit's parents as printed, until resolved
	var parentEnds []int32
	index := map[uint64]int32{}
	clash := map[string]int32{}
	var commits []sharedCommit
	// longWalk: the walk of every commit touches every page of the packs;
	// in git's default windows they all stay resident (118 MB for the
	// 135,289 commits of the benchmark's largest repository, 70 MB in
	// small windows, in as much time).
	err := r.stream(ctx, longWalk(), func(out *bufio.Reader) error {
		f := make([]string, logFields)
		for {
			for k := range f {
				field, err := out.ReadString(0)
				if err == io.EOF && k == 0 && strings.TrimSpace(field) == "" {
					return nil
				}
				if err != nil {
					return fmt.Errorf("log: %w", err)
				}
				f[k] = field[:len(field)-1]
			}
			f[0] = strings.TrimLeft(f[0], "\n")
			e, err := logEntry(f)
			if err != nil {
				return err
			}
			if s.hexLen == 0 {
				s.hexLen = len(e.OID)
			}
			key, ok := idKey(e.OID)
			if !ok || len(e.OID) != s.hexLen || len(e.Tree) != s.hexLen {
				return errUnread // not the ids this walk keeps
			}
			i := int32(len(commits))
			if _, dup := index[key]; dup {
				// Another id starts with the same 16 digits: both by name.
				if j := index[key]; j >= 0 {
					clash[string(s.ids[2*int(j)*s.hexLen:(2*int(j)+1)*s.hexLen])] = j
				}
				index[key] = -1
				clash[e.OID] = i
			} else {
				index[key] = i
			}
			s.ids = append(append(s.ids, e.OID...), e.Tree...)
			c := sharedCommit{subject: int32(len(s.text)), subjectLen: int32(len(e.Subject)), time: e.Time}
			s.text = append(s.text, e.Subject...)
			if len(e.RunIDs)+len(e.TaskIDs)+len(e.Listed) > 0 || e.Reverts != "" || e.PickedFrom != "" {
				// Copies: the fields share the record's memory, its body too.
				s.mores = append(s.mores, commitMore{runIDs: cloneAll(e.RunIDs), taskIDs: cloneAll(e.TaskIDs), listed: cloneAll(e.Listed),
					reverts: strings.Clone(e.Reverts), pickedFrom: strings.Clone(e.PickedFrom)})
				c.more = int32(len(s.mores))
			}
			commits = append(commits, c)
			parentIDs = append(parentIDs, f[1]...)
			parentEnds = append(parentEnds, int32(len(parentIDs)))
		}
	}, "log", "--all", "--date-order", logFormat, logEncoding)
	if errors.Is(err, errUnread) {
		s.ids, s.text, s.mores = nil, nil, nil
		return nil
	}
	if err != nil {
		return err
	}
	n := len(commits)
	s.gen = make([]int32, n)
	s.parentAt = make([]int32, n+1)
	// Parents first, in order; generations after, oldest first.
	at := int32(0)
	for i := 0; i < n; i++ {
		s.parentAt[i] = int32(len(s.parentList))
		for _, p := range strings.Fields(string(parentIDs[at:parentEnds[i]])) {
			k, _ := idKey(p)
			j, ok := index[k]
			if ok && j < 0 {
				j, ok = clash[p]
			}
			if !ok || j <= int32(i) {
				// A parent git did not print (a graft, a replace ref), or
				// printed before its child: no walk in memory is git's
				// answer then.
				s.ids, s.text, s.mores, s.parentAt, s.parentList, s.gen = nil, nil, nil, nil, nil, nil
				return nil
			}
			s.parentList = append(s.parentList, j)
		}
		at = parentEnds[i]
	}
	s.parentAt[n] = int32(len(s.parentList))
	for i := n - 1; i >= 0; i-- {
		g := int32(1)
		for _, p := range s.parentList[s.parentAt[i]:s.parentAt[i+1]] {
			g = max(g, s.gen[p]+1)
		}
		s.gen[i] = g
	}
	s.commits, s.index, s.clash = slices.Clip(commits), index, clash
	s.mark = make([]uint32, n)
	return nil
}

// errUnread stops reading a log whose ids the shared walk cannot keep.
var errUnread = errors.New("ids of another length")

func cloneAll(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = strings.Clone(v)
	}
	return out
}

// WithShared is r answering from s (nil: from git, as before).
func (r *Repo) WithShared(s *Shared) *Repo {
	c := *r
	c.shared = s
	return &c
}

// memoized runs a read-only command whose answer is the same for every
// run once.
func (s *Shared) memoized(key string, run func() ([]byte, error)) ([]byte, error) {
	s.memoMu.Lock()
	defer s.memoMu.Unlock()
	if m, ok := s.memo[key]; ok {
		s.served()
		return m.out, m.err
	}
	out, err := run()
	s.memo[key] = memoOut{out, err}
	return out, err
}

// memoKey says whether args is a read the runs share, and its key: the
// worktree list and git config.
func memoKey(args []string) (string, bool) {
	if len(args) >= 2 && (args[0] == "worktree" && args[1] == "list" || args[0] == "config" && args[1] == "-z") {
		return strings.Join(args, "\x00"), true
	}
	return "", false
}

// refsMatching answers Refs from the shared list: for-each-ref's own
// matching, asked only of the refs that have a path component the
// pattern needs (a list asks each run's refs of every ref there is).
func (s *Shared) refsMatching(patterns []string) ([]Ref, bool) {
	for _, p := range patterns {
		if !simplePattern(p) {
			return nil, false
		}
	}
	if len(patterns) == 0 {
		s.served()
		return append([]Ref(nil), s.refs...), true
	}
	s.indexOnce.Do(s.indexRefs)
	var cand []int32
	for _, p := range patterns {
		lo, hi, ok := s.patternRange(p)
		if !ok {
			cand = nil
			for i := range s.refs {
				cand = append(cand, int32(i))
			}
			break
		}
		for _, c := range s.components[lo:hi] {
			cand = append(cand, c.ref)
		}
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	s.tried.Add(int64(len(cand)))
	var out []Ref
	for _, i := range cand {
		if RefMatches(patterns, s.refs[i].Name) {
			out = append(out, s.refs[i])
		}
	}
	s.served()
	return out, true
}

// refComponent is one path component of a ref (a slice of its name).
type refComponent struct {
	name string
	ref  int32
}

// indexRefs sorts the path components of every ref, once each per ref:
// the refs having a component that starts with given bytes are then one
// range, however many refs share a shorter start (run ids such as run-1
// ... run-2000 share "run-").
func (s *Shared) indexRefs() {
	for i, r := range s.refs {
		at := len(s.components)
		for c := range strings.SplitSeq(r.Name, "/") {
			if !slices.ContainsFunc(s.components[at:], func(o refComponent) bool { return o.name == c }) {
				s.components = append(s.components, refComponent{c, int32(i)})
			}
		}
	}
	slices.SortFunc(s.components, func(a, b refComponent) int { return strings.Compare(a.name, b.name) })
}

// prefixRange is the range of s.components that start with lit.
func (s *Shared) prefixRange(lit string) (int, int) {
	lo, _ := slices.BinarySearchFunc(s.components, lit, func(c refComponent, t string) int { return strings.Compare(c.name, t) })
	hi := lo + sort.Search(len(s.components)-lo, func(k int) bool { return !strings.HasPrefix(s.components[lo+k].name, lit) })
	return lo, hi
}

// patternRange is the range of components one of which every ref the
// pattern matches has, the narrowest: a "*" stays within one component,
// so a pattern component's literal start is the start of one of the
// ref's components, whether the pattern matches as a glob or as a
// prefix. false: no pattern component starts with a literal (every ref
// is tried).
func (s *Shared) patternRange(p string) (lo, hi int, found bool) {
	for c := range strings.SplitSeq(p, "/") {
		lit := c
		if i := strings.IndexAny(c, "*?"); i >= 0 {
			lit = c[:i]
		}
		if lit == "" {
			continue
		}
		if l, h := s.prefixRange(lit); !found || h-l < hi-lo {
			lo, hi, found = l, h, true
		}
	}
	return lo, hi, found
}

// bodiesUnder are the saved refs under prefixes, each under a root read.
func (s *Shared) bodiesUnder(prefixes []string) ([]SavedRef, bool) {
	for _, p := range prefixes {
		ok := false
		for _, root := range s.bodyRoots {
			ok = ok || strings.HasPrefix(p, root)
		}
		if !ok || !strings.HasSuffix(p, "/") {
			return nil, false
		}
	}
	var out []SavedRef
	for _, sr := range s.bodies {
		for _, p := range prefixes {
			if strings.HasPrefix(sr.Name, p) {
				out = append(out, sr)
				break
			}
		}
	}
	return out, true
}

// simplePattern says whether p uses only what RefMatches knows: "*", "?"
// and "**", no character classes or escapes (ref names cannot hold them).
func simplePattern(p string) bool { return !strings.ContainsAny(p, "[\\") }

// RefMatches is for-each-ref's test of a ref name against its patterns:
// a pattern matches a whole name, or a prefix of it ending at a "/" (or
// ending in "/"), or as a glob whose "*" stops at "/" and whose "**"
// between slashes matches any number of directories.
func RefMatches(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if strings.HasPrefix(name, p) && (len(name) == len(p) || name[len(p)] == '/' || strings.HasSuffix(p, "/")) {
			return true
		}
		if wildmatch(p, name) {
			return true
		}
	}
	return false
}

// wildmatch is git's wildmatch with WM_PATHNAME for patterns without
// character classes.
func wildmatch(p, s string) bool { return wildFrom(p, s, true) }

// wildFrom matches p against s; bound says p starts the pattern or
// follows a "/" (where "**" may stand for directories).
func wildFrom(p, s string, bound bool) bool {
	for len(p) > 0 {
		switch p[0] {
		case '?':
			if s == "" || s[0] == '/' {
				return false
			}
			p, s, bound = p[1:], s[1:], false
		case '*':
			rest := strings.TrimLeft(p, "*")
			// "**" is special at the start or after "/", and at the end
			// or before "/"; elsewhere it is "*".
			if len(p)-len(rest) >= 2 && bound && (rest == "" || rest[0] == '/') {
				if rest == "" {
					return true // "**" at the end: anything below
				}
				// "**/": zero or more directories.
				tail := rest[1:]
				if wildFrom(tail, s, true) {
					return true
				}
				for i := 0; i < len(s); i++ {
					if s[i] == '/' && wildFrom(tail, s[i+1:], true) {
						return true
					}
				}
				return false
			}
			for i := 0; ; i++ {
				if wildFrom(rest, s[i:], false) {
					return true
				}
				if i == len(s) || s[i] == '/' {
					return false
				}
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			bound = p[0] == '/'
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// Walk marks: the query's epoch above three bits.
const (
	markIn     = 1 // reachable from an included commit
	markEx     = 2 // reachable from an excluded one
	markQueued = 4
	markBits   = 3
)

// resolve turns revisions into commit positions: a full object id, or
// "<id>^@" (its parents). false: one the shared walk did not read, or
// any other spelling (git answers those).
func (s *Shared) resolve(revs []string) ([]int32, bool) {
	var out []int32
	for _, rev := range revs {
		id, parents := strings.CutSuffix(rev, "^@")
		i, ok := s.lookup(id)
		if !ok {
			return nil, false
		}
		if parents {
			out = append(out, s.parents(i)...)
		} else {
			out = append(out, i)
		}
	}
	return out, true
}

// walkable says whether the shared walk can answer for these revisions.
func (s *Shared) walkable(lists ...[]string) bool {
	if s == nil || s.commits == nil {
		return false
	}
	for _, l := range lists {
		if _, ok := s.resolve(l); !ok {
			return false
		}
	}
	return true
}

// genHeap orders positions by generation, highest first; on a tie the
// newer (earlier in the log) first.
type genHeap struct {
	s  *Shared
	is []int32
}

func (h *genHeap) Len() int { return len(h.is) }
func (h *genHeap) Less(a, b int) bool {
	ga, gb := h.s.gen[h.is[a]], h.s.gen[h.is[b]]
	return ga > gb || ga == gb && h.is[a] < h.is[b]
}
func (h *genHeap) Swap(a, b int) { h.is[a], h.is[b] = h.is[b], h.is[a] }
func (h *genHeap) Push(x any)    { h.is = append(h.is, x.(int32)) }
func (h *genHeap) Pop() any {
	x := h.is[len(h.is)-1]
	h.is = h.is[:len(h.is)-1]
	return x
}

// diff finds the commits reachable from include and not from exclude, in
// the log's order, and the excluded parents they have (git's boundary).
// Commits are taken highest generation first, so that every child of a
// commit is taken before it and its marks are whole when it is; the walk
// stops once nothing queued can still be listed.
func (s *Shared) diff(include, exclude []int32) (listed, boundary []int32) {
	s.walkMu.Lock()
	defer s.walkMu.Unlock()
	s.epoch++
	if s.epoch >= 1<<29 {
		clear(s.mark)
		s.epoch = 1
	}
	ep := s.epoch << 3
	get := func(i int32) uint32 {
		if m := s.mark[i]; m&^7 == ep {
			return m & 7
		}
		return 0
	}
	h := &genHeap{s: s}
	inOnly := 0
	push := func(i int32, f uint32) {
		old := get(i)
		nf := old | f
		if nf == old {
			return
		}
		if old&markQueued != 0 {
			if old&markBits == markIn && nf&markBits != markIn {
				inOnly--
			}
			s.mark[i] = ep | nf
			return
		}
		s.mark[i] = ep | nf | markQueued
		heap.Push(h, i)
		if nf&markBits == markIn {
			inOnly++
		}
	}
	for _, i := range exclude {
		push(i, markEx)
	}
	for _, i := range include {
		push(i, markIn)
	}
	for h.Len() > 0 && inOnly > 0 {
		i := heap.Pop(h).(int32)
		f := get(i) &^ markQueued
		s.mark[i] = ep | f
		if f == markIn {
			inOnly--
			listed = append(listed, i)
		}
		for _, p := range s.parents(i) {
			push(p, f)
		}
	}
	seen := map[int32]bool{}
	for _, i := range listed {
		for _, p := range s.parents(i) {
			if get(p)&markEx != 0 && !seen[p] {
				seen[p] = true
				boundary = append(boundary, p)
			}
		}
	}
	slices.Sort(listed)
	return s.dateOrder(listed, include, func(p int32) bool { return get(p) == markIn }), boundary
}

// dateOrder puts listed (positions, sorted) in the order `git log
// --date-order` gives them when they are all it lists: a commit once
// each of its children among them is listed, of those ready the newest
// committer date first, on a tie the one ready first (git's priority
// queue), the tips given (include) ready first in the order given. The
// whole log's order, which positions follow, is not always
// that: there a commit also waits for children the query does not list,
// and one of them dated before other listed commits holds it back behind
// them (a branch forked from the default branch's line with an older
// clock). in says whether a position is among listed.
func (s *Shared) dateOrder(listed, include []int32, in func(int32) bool) []int32 {
	if len(listed) < 2 {
		return listed
	}
	pos := func(p int32) int {
		k, _ := slices.BinarySearch(listed, p)
		return k
	}
	deg := make([]int32, len(listed))
	for _, i := range listed {
		for _, p := range s.parents(i) {
			if in(p) {
				deg[pos(p)]++
			}
		}
	}
	h := &dateHeap{s: s}
	// Only the tips given have no child listed; each is ready once.
	for _, i := range include {
		if in(i) {
			if k := pos(i); deg[k] == 0 {
				deg[k] = -1
				h.push(i)
			}
		}
	}
	for k, i := range listed {
		if deg[k] == 0 {
			h.push(i)
		}
	}
	heap.Init(h)
	out := make([]int32, 0, len(listed))
	for h.Len() > 0 {
		i := heap.Pop(h).(dated).i
		out = append(out, i)
		for _, p := range s.parents(i) {
			if in(p) {
				k := pos(p)
				if deg[k]--; deg[k] == 0 {
					heap.Push(h, h.entry(p))
				}
			}
		}
	}
	return out
}

// dated is a commit ready in dateOrder, and when it got ready.
type dated struct{ i, ctr int32 }

// dateHeap orders ready commits newest committer date first, on a tie
// the one ready first.
type dateHeap struct {
	s   *Shared
	ctr int32
	is  []dated
}

func (h *dateHeap) entry(i int32) dated {
	h.ctr++
	return dated{i, h.ctr}
}
func (h *dateHeap) push(i int32) { h.is = append(h.is, h.entry(i)) }
func (h *dateHeap) Len() int     { return len(h.is) }
func (h *dateHeap) Less(a, b int) bool {
	ta, tb := h.s.commits[h.is[a].i].time, h.s.commits[h.is[b].i].time
	return ta > tb || ta == tb && h.is[a].ctr < h.is[b].ctr
}
func (h *dateHeap) Swap(a, b int) { h.is[a], h.is[b] = h.is[b], h.is[a] }
func (h *dateHeap) Push(x any)    { h.is = append(h.is, x.(dated)) }
func (h *dateHeap) Pop() any {
	x := h.is[len(h.is)-1]
	h.is = h.is[:len(h.is)-1]
	return x
}

// logRevs is Repo.logRevs from memory; false when the walk cannot say.
func (s *Shared) logRevs(include, exclude []string, boundary bool) ([]LogEntry, map[string]string, bool) {
	return s.logRevsCounted(include, exclude, boundary, true)
}

// logRevsCounted is logRevs, counted as a git process (CountAsGit) only
// when count is true.
func (s *Shared) logRevsCounted(include, exclude []string, boundary, count bool) ([]LogEntry, map[string]string, bool) {
	in, ok1 := s.resolve(include)
	ex, ok2 := s.resolve(exclude)
	if s.commits == nil || !ok1 || !ok2 {
		return nil, nil, false
	}
	if count {
		s.served()
	}
	listed, bound := s.diff(in, ex)
	cs := make([]LogEntry, len(listed))
	for k, i := range listed {
		cs[k] = s.entry(i)
	}
	if !boundary {
		return cs, nil, true // LogRevs: no trees asked
	}
	trees := make(map[string]string, len(listed)+len(bound))
	for _, c := range cs {
		trees[c.OID] = c.Tree
	}
	for _, i := range bound {
		trees[s.oid(i)] = s.tree(i)
	}
	return cs, trees, true
}

// revSet is Repo.RevSet from memory.
func (s *Shared) revSet(include, exclude []string) (map[string]bool, bool) {
	in, ok1 := s.resolve(include)
	ex, ok2 := s.resolve(exclude)
	if s.commits == nil || !ok1 || !ok2 {
		return nil, false
	}
	s.served()
	listed, _ := s.diff(in, ex)
	set := make(map[string]bool, len(listed))
	for _, i := range listed {
		set[s.oid(i)] = true
	}
	return set, true
}

// isAncestor is Repo.IsAncestor from memory: a walk down from desc that
// never goes below anc's generation.
func (s *Shared) isAncestor(anc, desc string) (bool, bool) {
	if s == nil || s.commits == nil {
		return false, false
	}
	a, ok1 := s.lookup(anc)
	d, ok2 := s.lookup(desc)
	if !ok1 || !ok2 {
		return false, false
	}
	s.served()
	floor := s.gen[a]
	seen := map[int32]bool{d: true}
	stack := []int32{d}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i == a {
			return true, true
		}
		for _, p := range s.parents(i) {
			if !seen[p] && s.gen[p] >= floor {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false, true
}
