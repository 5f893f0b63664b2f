package gitcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ChangesSince is LogChanges(include, []string{start + "^@"}, paths): the
// whole changes of the non-merge commits since start (start included)
// that `git log -- paths` shows. Where the commit-graph has changed-path
// Bloom filters, it asks git only for the commits and their parents (one
// rev-list, which the graph answers without reading a commit) and for the
// changes of the few commits the filters cannot rule out (one diff-tree),
// and walks the history as git's path-limited log does in between: git
// itself uses the filters only for one path, and reads the trees of every
// commit for more. Elsewhere, and for no paths, it is LogChanges.
//
// The walk is git's history simplification: a merge whose tree at the
// paths equals that of a parent that counts is followed down that parent
// only, the first such in order; any other commit down all its parents. A
// parent counts when it is in the range or one of start's parents. git
// decides whether any other parent counts by how far its date-ordered walk
// has marked the history below start when it reaches the merge: a merge
// the walk reaches whose tree at the paths equals such a parent's is left
// to git's own log.
func (r *Repo) ChangesSince(ctx context.Context, include []string, start string, paths []string) (Changes, error) {
	exclude := []string{start + "^@"}
	if len(paths) == 0 || len(include) == 0 {
		return r.LogChanges(ctx, include, exclude, paths)
	}
	cp, keys := r.changedPathFilters(start, include, paths)
	if cp == nil {
		return r.LogChanges(ctx, include, exclude, paths)
	}
	defer cp.close()
	if !cp.isLong(start, include) || r.rewritten() {
		// A few commits: git's one log reads them sooner than two
		// processes start. A rewritten history (asked of a long range
		// only: replace refs are looked for in packed-refs, which may
		// list thousands): the filters describe the commits as written.
		return r.LogChanges(ctx, include, exclude, paths)
	}
	in, err := revInput(include, exclude)
	if err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--parents", "--stdin"}
	cmd := r.command(ctx, longWalk(), args)
	cmd.Stdin = bytes.NewReader(in)
	g := newRangeGraph(cp.hashLen(), cp.rangeHint(include, exclude))
	if err := run(cmd, g, args); err != nil {
		return nil, err
	}
	if len(g.pending) > 0 {
		g.line(g.pending)
	}
	startOID, _ := decodeOID(start)
	s := g.find(startOID)
	if g.bad || s < 0 || !g.nodes[s].inRange {
		// start outside the range: which of the parents are start's
		// is not known here.
		return r.LogChanges(ctx, include, exclude, paths)
	}
	bottom := map[int32]bool{}
	for _, p := range g.parents(s) {
		bottom[p] = true
	}
	relevant := func(p int32) bool { return g.nodes[p].inRange || bottom[p] }

	// What the filters cannot settle, read in one diff-tree: a commit
	// that may change the paths, against its parent (a root commit
	// against nothing); a merge, unless its first parent counts and it
	// does not change the paths against it, against each of its parents.
	var lines []string
	q := cp.query(keys)
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.inRange {
			continue
		}
		n.may = cp.mayChange(g.oid(int32(i)), q)
		ps := g.parents(int32(i))
		switch {
		case len(ps) <= 1:
			if n.may {
				n.line = int32(len(lines))
				lines = append(lines, g.hex(int32(i)))
			}
		case n.may || !relevant(ps[0]):
			n.line = int32(len(lines))
			for k, p := range ps {
				if k > 0 || n.may {
					lines = append(lines, g.hex(int32(i))+" "+g.hex(p))
				} else {
					// Settled by the filter: a record of no change
					// keeps the records one for one with the parents.
					lines = append(lines, g.hex(int32(i))+" "+g.hex(int32(i)))
				}
			}
		}
	}
	var changes []string
	var touched []bool
	if len(lines) > 0 {
		// --always: a record for every line, so that they follow the
		// lines one for one; --root: a root commit's change is its tree.
		out, err := r.RunEnv(ctx, longWalk(treeCache), []byte(strings.Join(lines, "\n")+"\n"), "diff-tree", "--always", "--root", "-r", "--no-renames", "-z", "--stdin")
		if err != nil {
			return nil, err
		}
		eachChangePaths(out, func(change string, changed []string) {
			changes = append(changes, change)
			touched = append(touched, touchesPaths(changed, paths))
		})
		if len(changes) != len(lines) {
			return r.LogChanges(ctx, include, exclude, paths)
		}
	}

	// The walk, from the tips in the range.
	res := Changes{}
	seen := make([]bool, len(g.nodes))
	var queue []int32
	push := func(i int32) {
		if g.nodes[i].inRange && !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for _, t := range include {
		if oid, ok := decodeOID(t); ok {
			if i := g.find(oid); i >= 0 {
				push(i)
			}
		}
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		n := &g.nodes[i]
		ps := g.parents(i)
		if len(ps) <= 1 {
			if n.may && touched[n.line] {
				res[g.hex(i)] = changes[n.line]
			}
			for _, p := range ps {
				push(p)
			}
			continue
		}
		follow := ps
		for k, p := range ps {
			same := k == 0 && !n.may
			if !same && n.line >= 0 {
				same = !touched[int(n.line)+k]
			}
			if !relevant(p) {
				if same {
					// Whether git counts this parent depends on its
					// walk's order: git's log answers.
					return r.LogChanges(ctx, include, exclude, paths)
				}
				continue
			}
			if same {
				follow = ps[k : k+1]
				break
			}
		}
		for _, p := range follow {
			push(p)
		}
	}
	return res, nil
}

// longRange is how many levels a range must span for the filters' two
// processes to cost less than git's log, which reads the trees of each of
// its commits (some microseconds each; a process starts in one or two
// milliseconds). Levels bound the longest line of commits, most often
// their count. (A variable: tests lower it.)
var longRange uint32 = 1000

// isLong says whether the range from include down to start may hold
// longRange commits: true unless the graph holds start and every tip and
// their levels are closer than that (a tip newer than the graph may be
// anywhere above it).
func (cp *commitGraph) isLong(start string, include []string) bool {
	s, _ := decodeOID(start)
	from, ok := cp.level(s)
	if !ok {
		return true
	}
	for _, t := range include {
		oid, _ := decodeOID(t)
		to, ok := cp.level(oid)
		if !ok || to >= from+longRange {
			return true
		}
	}
	return false
}

// touchesPaths says whether one of changed is one of paths or under one,
// as the pathspec ":(top,literal)path" matches.
func touchesPaths(changed, paths []string) bool {
	for _, c := range changed {
		for _, p := range paths {
			if c == p || strings.HasPrefix(c, p) && c[len(p)] == '/' {
				return true
			}
		}
	}
	return false
}

// eachChangePaths is eachChange that also gives each record's paths as git
// wrote them (a path may hold a newline, which the change's lines cannot
// tell from their end).
func eachChangePaths(out []byte, fn func(change string, paths []string)) {
	started := false
	var lines, paths []string
	flush := func() {
		if started {
			sort.Strings(lines)
			fn(strings.Join(lines, "\n"), paths)
		}
		lines, paths = nil, nil
	}
	toks := strings.Split(string(out), "\x00")
	for i := 0; i < len(toks); i++ {
		t := strings.TrimLeft(toks[i], "\n")
		switch {
		case strings.HasPrefix(t, ":"):
			f := strings.Fields(t)
			if i+1 < len(toks) && len(f) >= 5 {
				lines = append(lines, f[1]+" "+f[3]+" "+toks[i+1])
				paths = append(paths, toks[i+1])
			}
			i++ // the path
		case t != "":
			flush()
			started = true
		}
	}
	flush()
}

// rangeGraph is the output of rev-list --parents, read as git writes
// it: the commits of the range and their parents, each commit one node,
// its id kept once in binary (a range may hold hundreds of thousands).
type rangeGraph struct {
	hashLen int
	ids     []byte  // node i's id at [i*hashLen, (i+1)*hashLen)
	table   []int32 // open addressing over the ids: node+1, 0 free
	nodes   []rangeNode
	parList []int32
	pending []byte // a line not yet whole
	bad     bool   // a line that is no commit and parents
	scratch [64]byte
	lineIDs []int32
}

type rangeNode struct {
	parFrom, parTo int32 // its parents, in parList
	inRange        bool
	// may: the filters do not rule out that it changes the paths;
	// line: its first line in the diff-tree asked, -1 for none.
	may  bool
	line int32
}

// newRangeGraph is a graph for a range of at least hint commits.
func newRangeGraph(hashLen, hint int) *rangeGraph {
	size := 1024
	for size < 2*hint {
		size *= 2
	}
	return &rangeGraph{hashLen: hashLen, table: make([]int32, size),
		ids: make([]byte, 0, hint*hashLen), nodes: make([]rangeNode, 0, hint), parList: make([]int32, 0, hint)}
}

func (g *rangeGraph) oid(i int32) []byte {
	return g.ids[int(i)*g.hashLen : int(i+1)*g.hashLen]
}

func (g *rangeGraph) hex(i int32) string { return hex.EncodeToString(g.oid(i)) }

func (g *rangeGraph) parents(i int32) []int32 {
	return g.parList[g.nodes[i].parFrom:g.nodes[i].parTo]
}

// slot is where oid is in the table, or the free slot it would take.
func (g *rangeGraph) slot(oid []byte) int {
	mask := len(g.table) - 1
	// Object ids are hashes already: their first bytes spread well.
	h := int(uint32(oid[0])<<24|uint32(oid[1])<<16|uint32(oid[2])<<8|uint32(oid[3])) & mask
	for {
		n := g.table[h]
		if n == 0 || bytes.Equal(g.oid(n-1), oid) {
			return h
		}
		h = (h + 1) & mask
	}
}

// find is oid's node, -1 when the output did not name it.
func (g *rangeGraph) find(oid []byte) int32 {
	if len(oid) != g.hashLen {
		return -1
	}
	return g.table[g.slot(oid)] - 1
}

// node is oid's node, made when new.
func (g *rangeGraph) node(oid []byte) int32 {
	h := g.slot(oid)
	if n := g.table[h]; n != 0 {
		return n - 1
	}
	i := int32(len(g.nodes))
	g.ids = append(g.ids, oid...)
	g.nodes = append(g.nodes, rangeNode{line: -1})
	g.table[h] = i + 1
	if 2*len(g.nodes) > len(g.table) {
		g.table = make([]int32, 2*len(g.table))
		for k := range g.nodes {
			g.table[g.slot(g.oid(int32(k)))] = int32(k) + 1
		}
	}
	return i
}

// line reads "<commit> <parent>...".
func (g *rangeGraph) line(l []byte) {
	ids := g.lineIDs[:0]
	for len(l) > 0 {
		if l[0] == ' ' {
			l = l[1:]
			continue
		}
		x := l
		if i := bytes.IndexByte(l, ' '); i >= 0 {
			x, l = l[:i], l[i+1:]
		} else {
			l = nil
		}
		b := g.scratch[:hex.DecodedLen(len(x))]
		if len(b) != g.hashLen {
			g.bad = true
			return
		}
		if _, err := hex.Decode(b, x); err != nil {
			g.bad = true
			return
		}
		ids = append(ids, g.node(b))
	}
	g.lineIDs = ids
	if len(ids) == 0 {
		return
	}
	n := &g.nodes[ids[0]]
	n.inRange = true
	n.parFrom = int32(len(g.parList))
	g.parList = append(g.parList, ids[1:]...)
	n.parTo = int32(len(g.parList))
}

// Write takes the next piece of rev-list's output.
func (g *rangeGraph) Write(b []byte) (int, error) {
	n := len(b)
	if len(g.pending) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			g.pending = append(g.pending, b...)
			return n, nil
		}
		g.pending = append(g.pending, b[:i]...)
		g.line(g.pending)
		g.pending = g.pending[:0]
		b = b[i+1:]
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			g.pending = append(g.pending, b...)
			return n, nil
		}
		g.line(b[:i])
		b = b[i+1:]
	}
}

// ReadFrom reads rev-list's output in large pieces.
func (g *rangeGraph) ReadFrom(r io.Reader) (int64, error) {
	return readLarge(r, g.Write)
}

// changedPathFilters opens the commit-graph's filters for a search of
// paths since start from include, and the paths' keys; nil where the
// search is to be git's own: no filters, a path git's filter versions
// hash apart, or a repository whose graph git does not read as it is
// (graphObjects; a rewritten history is asked apart, rewritten).
func (r *Repo) changedPathFilters(start string, include, paths []string) (*commitGraph, []*pathKeys) {
	oid, ok := decodeOID(start)
	if !ok {
		return nil, nil
	}
	for _, t := range include {
		if b, ok := decodeOID(t); !ok || len(b) != len(oid) {
			return nil, nil
		}
	}
	keys := make([]*pathKeys, 0, len(paths))
	for _, p := range paths {
		k, ok := newPathKeys(p)
		if !ok {
			return nil, nil
		}
		keys = append(keys, k)
	}
	objects := r.graphObjects()
	if objects == "" {
		return nil, nil
	}
	cp, err := openChangedPaths(objects, len(oid))
	if err != nil {
		return nil, nil
	}
	return cp, keys
}

// graphObjects is the object directory whose commit-graph git reads, ""
// where it reads the history otherwise than its commits say from what
// the environment says (shallow, a graft file, a replace ref base: the
// graph describes the commits as written), matches paths otherwise
// (GIT_ICASE_PATHSPECS), or reads objects from elsewhere
// (GIT_OBJECT_DIRECTORY).
func (r *Repo) graphObjects() string {
	if r.Shallow {
		return ""
	}
	for _, v := range []string{"GIT_ICASE_PATHSPECS", "GIT_REPLACE_REF_BASE", "GIT_OBJECT_DIRECTORY", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE"} {
		if os.Getenv(v) != "" {
			return ""
		}
	}
	if c := r.common(); c != "" {
		return filepath.Join(c, "objects")
	}
	return ""
}

func (r *Repo) common() string {
	if r.CommonDir != "" {
		return r.CommonDir
	}
	return r.GitDir
}

// rewritten says whether git reads the history otherwise than its commits
// say, as the repository is: a grafts file, a replace ref (while replace
// refs are read), or refs git 2.39 does not read (reftable).
func (r *Repo) rewritten() bool {
	c := r.common()
	if c == "" || exists(filepath.Join(c, "info", "grafts")) || exists(filepath.Join(c, "reftable")) {
		return true
	}
	return os.Getenv("GIT_NO_REPLACE_OBJECTS") == "" && hasReplaceRefs(c)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// hasReplaceRefs says whether refs/replace/ may hold a ref: a loose one,
// or a packed one (packed-refs read line by line: it may list thousands).
func hasReplaceRefs(common string) bool {
	found := false
	filepath.WalkDir(filepath.Join(common, "refs", "replace"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if found {
		return true
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(" refs/replace/")) {
			return true
		}
	}
	return sc.Err() != nil
}
