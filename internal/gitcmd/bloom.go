package gitcmd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The commit-graph's changed-path Bloom filters, read in-process: for a
// commit the graph holds, whether it may change a path (against its first
// parent), so that a search for the commits touching a few paths diffs
// only those that may. git uses them itself only for a walk limited to one
// path; this answers for any number of paths in one pass.
//
// The format is git's (gitformat-commit-graph(5)): a file of chunks, or a
// chain of such files under objects/info/commit-graphs/. Only what the
// filters need is read: the sorted commit ids (OIDF, OIDL), the filters'
// index and data (BIDX, BDAT). A filter says "no" only where git wrote that
// the commit does not change the path; anything else (a commit the graph
// lacks, a layer without filters, a filter not computed, one of a commit
// with too many changes, a path whose hash git versions disagree on) is
// "may", and the caller reads the commit's change.

// graphLayer is one commit-graph file, mapped.
type graphLayer struct {
	data    []byte
	hashLen int
	fanout  []byte // OIDF: 256 big-endian counts
	oids    []byte // OIDL
	data1   []byte // CDAT: per commit its tree, parents, level and date
	n       int
	index   []byte // BIDX, nil without filters
	filters []byte // BDAT after its header
	// version and hashes are the filters' settings (BDAT's header).
	version, hashes uint32
}

// commitGraph is the repository's commit-graph, its layers newest first.
type commitGraph struct {
	layers []*graphLayer
}

// hashLen is the length of the object ids the graph holds.
func (cp *commitGraph) hashLen() int { return cp.layers[0].hashLen }

// errNoFilters: the repository has no commit-graph with changed-path
// filters that this reader can use.
var errNoFilters = errors.New("no changed-path Bloom filters")

// openChangedPaths is openGraph where some layer has filters, else
// errNoFilters.
func openChangedPaths(objects string, hashLen int) (*commitGraph, error) {
	g, err := openGraph(objects, hashLen)
	if err != nil {
		return nil, err
	}
	for _, l := range g.layers {
		if l.index != nil {
			return g, nil
		}
	}
	g.close()
	return nil, errNoFilters
}

// openGraph maps the commit-graph of the object directory objects (git's
// objects/info/commit-graph, else the chain under
// objects/info/commit-graphs/), for object ids of hashLen bytes; it fails
// with errNoFilters where there is none to read.
func openGraph(objects string, hashLen int) (*commitGraph, error) {
	info := filepath.Join(objects, "info")
	var files []string
	if _, err := os.Stat(filepath.Join(info, "commit-graph")); err == nil {
		// git reads the single file first, and then no chain.
		files = []string{filepath.Join(info, "commit-graph")}
	} else {
		f, err := os.Open(filepath.Join(info, "commit-graphs", "commit-graph-chain"))
		if err != nil {
			return nil, errNoFilters
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if h := strings.TrimSpace(sc.Text()); h != "" {
				files = append(files, filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
			}
		}
		f.Close()
	}
	g := &commitGraph{}
	for i := len(files) - 1; i >= 0; i-- {
		l, err := mapLayer(files[i], hashLen)
		if err != nil {
			// A layer that cannot be read: the layers above it stay
			// usable (a commit none of them holds is "may").
			break
		}
		g.layers = append(g.layers, l)
	}
	if len(g.layers) == 0 {
		return nil, errNoFilters
	}
	return g, nil
}

// close unmaps the layers.
func (cp *commitGraph) close() {
	for _, l := range cp.layers {
		syscall.Munmap(l.data)
	}
	cp.layers = nil
}

// Chunk ids.
const (
	chunkOIDF = 0x4f494446
	chunkOIDL = 0x4f49444c
	chunkCDAT = 0x43444154
	chunkBIDX = 0x42494458
	chunkBDAT = 0x42444154
)

// mapLayer maps one commit-graph file and finds its chunks, checking each
// bound it reads by.
func mapLayer(path string, hashLen int) (*graphLayer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < 8+12 || size > 1<<40 {
		return nil, errNoFilters
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	l, ok := parseLayer(data, hashLen)
	if !ok {
		syscall.Munmap(data)
		return nil, errNoFilters
	}
	return l, nil
}

// parseLayer reads a commit-graph file's header and chunk table.
func parseLayer(data []byte, hashLen int) (*graphLayer, bool) {
	if len(data) < 8 || string(data[:4]) != "CGPH" || data[4] != 1 {
		return nil, false
	}
	switch {
	case data[5] == 1 && hashLen == 20, data[5] == 2 && hashLen == 32:
	default:
		return nil, false // another hash than the repository's
	}
	nChunks := int(data[6])
	table := data[8:]
	if len(table) < (nChunks+1)*12 {
		return nil, false
	}
	chunks := map[uint32][]byte{}
	for i := 0; i < nChunks; i++ {
		id := binary.BigEndian.Uint32(table[i*12:])
		from := binary.BigEndian.Uint64(table[i*12+4:])
		to := binary.BigEndian.Uint64(table[(i+1)*12+4:])
		if from > to || to > uint64(len(data)) {
			return nil, false
		}
		chunks[id] = data[from:to]
	}
	l := &graphLayer{data: data, hashLen: hashLen, fanout: chunks[chunkOIDF], oids: chunks[chunkOIDL], data1: chunks[chunkCDAT]}
	if len(l.fanout) != 256*4 {
		return nil, false
	}
	l.n = int(binary.BigEndian.Uint32(l.fanout[255*4:]))
	if len(l.oids) != l.n*hashLen || len(l.data1) != l.n*(hashLen+16) {
		return nil, false
	}
	index, filters := chunks[chunkBIDX], chunks[chunkBDAT]
	if index != nil && filters != nil && len(index) == l.n*4 && len(filters) >= 12 {
		l.version = binary.BigEndian.Uint32(filters)
		l.hashes = binary.BigEndian.Uint32(filters[4:])
		if (l.version == 1 || l.version == 2) && l.hashes > 0 && l.hashes <= 64 {
			l.index, l.filters = index, filters[12:]
		}
	}
	return l, true
}

// find is the lexicographic position of oid in the layer, -1 when absent.
func (l *graphLayer) find(oid []byte) int {
	if len(oid) != l.hashLen {
		return -1
	}
	lo := 0
	if oid[0] > 0 {
		lo = int(binary.BigEndian.Uint32(l.fanout[(int(oid[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(l.fanout[int(oid[0])*4:]))
	if hi > l.n || lo > hi {
		return -1
	}
	// The first eight bytes decide almost every step: compared as one
	// number, the rest only when they are equal (an old run asks this of
	// each of 50,000 commits).
	key := binary.BigEndian.Uint64(oid)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		at := l.oids[mid*l.hashLen : (mid+1)*l.hashLen]
		c := 0
		if k := binary.BigEndian.Uint64(at); k < key {
			c = -1
		} else if k > key {
			c = 1
		} else {
			c = bytes.Compare(at[8:], oid[8:])
		}
		switch {
		case c == 0:
			return mid
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// filter is the Bloom filter of the commit at position i; ok is false when
// there is none to read (nil data: not computed, "may" for every path).
func (l *graphLayer) filter(i int) ([]byte, bool) {
	if l.index == nil {
		return nil, false
	}
	end := binary.BigEndian.Uint32(l.index[i*4:])
	start := uint32(0)
	if i > 0 {
		start = binary.BigEndian.Uint32(l.index[(i-1)*4:])
	}
	if end < start || uint64(end) > uint64(len(l.filters)) {
		return nil, false
	}
	return l.filters[start:end], true
}

// pathKeys are a path's Bloom keys: the path and each directory above
// it, as git asks (a commit that changes a path changes every directory
// above it, and its filter holds them all), hashed once for each number
// of hashes the layers use.
type pathKeys struct {
	path   string
	hashes map[uint32][][]uint32
}

// newPathKeys prepares the keys of path; ok is false for a path that holds
// a byte with the high bit set, whose hash git's first filter version
// computes differently from one machine to another.
func newPathKeys(path string) (*pathKeys, bool) {
	for i := 0; i < len(path); i++ {
		if path[i] >= 0x80 {
			return nil, false
		}
	}
	return &pathKeys{path: path, hashes: map[uint32][][]uint32{}}, path != ""
}

// of are the keys' hash values for num hashes each.
func (k *pathKeys) of(num uint32) [][]uint32 {
	if hs, ok := k.hashes[num]; ok {
		return hs
	}
	var hs [][]uint32
	for p := k.path; ; {
		h0 := murmur3(0x293ae76f, p)
		h1 := murmur3(0x7e646e2c, p)
		v := make([]uint32, num)
		for i := range v {
			v[i] = h0 + uint32(i)*h1
		}
		hs = append(hs, v)
		j := strings.LastIndexByte(p, '/')
		if j <= 0 {
			break
		}
		p = p[:j]
	}
	k.hashes[num] = hs
	return hs
}

// contains is git's bloom_filter_contains: false only when some bit of
// some key is unset. An empty filter (not computed) contains everything.
func contains(filter []byte, keys [][]uint32) bool {
	if len(filter) == 0 {
		return true
	}
	if len(filter) >= 1<<28 {
		return true // past any filter git writes: not read
	}
	bits := uint32(len(filter)) * 8
	for _, key := range keys {
		for _, h := range key {
			pos := h % bits
			if filter[pos/8]&(1<<(pos%8)) == 0 {
				return false
			}
		}
	}
	return true
}

// bloomQuery is some paths' keys for each layer's settings (a layer's
// own number of hashes), made once for a search.
type bloomQuery struct {
	perLayer [][][][]uint32 // layer, path, the path and its directories, hash
}

// query prepares the keys of paths.
func (cp *commitGraph) query(paths []*pathKeys) *bloomQuery {
	q := &bloomQuery{}
	for _, l := range cp.layers {
		var keys [][][]uint32
		for _, k := range paths {
			keys = append(keys, k.of(l.hashes))
		}
		q.perLayer = append(q.perLayer, keys)
	}
	return q
}

// mayChange says whether the commit oid may change any of the query's
// paths against its first parent; false only where its filter says it
// changes none.
func (cp *commitGraph) mayChange(oid []byte, q *bloomQuery) bool {
	for i, l := range cp.layers {
		at := l.find(oid)
		if at < 0 {
			continue
		}
		f, ok := l.filter(at)
		if !ok {
			return true
		}
		for _, keys := range q.perLayer[i] {
			if contains(f, keys) {
				return true
			}
		}
		return false
	}
	return true
}

// treeOf is the tree of commit oid as the graph records it (CDAT: the
// tree's id first), false when no layer holds the commit.
func (cp *commitGraph) treeOf(oid []byte) ([]byte, bool) {
	for _, l := range cp.layers {
		if i := l.find(oid); i >= 0 {
			at := i * (l.hashLen + 16)
			return l.data1[at : at+l.hashLen], true
		}
	}
	return nil, false
}

// level is the commit's topological level (generation number v1: one
// more than its parents' highest, a root's 1), ok false when no layer
// holds it. Two commits' levels bound how many commits lie between them.
func (cp *commitGraph) level(oid []byte) (uint32, bool) {
	for _, l := range cp.layers {
		if i := l.find(oid); i >= 0 {
			return binary.BigEndian.Uint32(l.data1[i*(l.hashLen+16)+l.hashLen+8:]) >> 2, true
		}
	}
	return 0, false
}

// murmur3 is the 32-bit murmur3 hash git's filters use, of an ASCII string
// (where git's two filter versions agree).
func murmur3(seed uint32, s string) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(s) / 4
	for i := 0; i < n; i++ {
		k := uint32(s[4*i]) | uint32(s[4*i+1])<<8 | uint32(s[4*i+2])<<16 | uint32(s[4*i+3])<<24
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := s[4*n:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(len(s))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// decodeOID is an object id's bytes from its hex.
func decodeOID(s string) ([]byte, bool) {
	b, err := hex.DecodeString(s)
	return b, err == nil && (len(b) == 20 || len(b) == 32)
}

// rangeHint is how many commits at least are reachable from include and
// from none of exclude, by the commit-graph's levels: a commit whose level
// is above every excluded commit's is none's ancestor, and the longest
// line down from a tip holds one commit a level. 0 when the graph does not
// tell (a revision that is no commit id, or X^@, the graph does not hold),
// and below a few thousand (room made as the log comes costs little).
// It sizes the list the log is read into at once, which growing would
// copy, entry by entry, while the log is read.
func (r *Repo) rangeHint(include, exclude []string) int {
	g := r.graphFor(include)
	if g == nil {
		return 0
	}
	defer g.close()
	return g.rangeHint(include, exclude)
}

// graphFor opens the commit-graph git reads for a walk from include, in
// the hash its first revision is written in; nil where there is none to
// read (graphObjects) or the revision is no commit id. The caller closes
// it.
func (r *Repo) graphFor(include []string) *commitGraph {
	// A rewritten history is not looked for here: the graph's levels only
	// size a list; what reads more of it checks rewritten itself.
	objects := r.graphObjects()
	if objects == "" || len(include) == 0 {
		return nil
	}
	oid, ok := decodeOID(strings.TrimSuffix(include[0], "^@"))
	if !ok {
		return nil
	}
	g, err := openGraph(objects, len(oid))
	if err != nil {
		return nil
	}
	return g
}

// rangeHint is Repo.rangeHint from an open graph.
func (g *commitGraph) rangeHint(include, exclude []string) int {
	const worth = 4096
	levelOf := func(rev string) (int, bool) {
		parents := strings.HasSuffix(rev, "^@")
		oid, ok := decodeOID(strings.TrimSuffix(rev, "^@"))
		if !ok {
			return 0, false
		}
		l, ok := g.level(oid)
		if parents {
			l-- // the parents' highest: one below
		}
		return int(l), ok
	}
	top := 0
	for _, rev := range include {
		l, ok := levelOf(rev)
		if !ok {
			return 0
		}
		top = max(top, l)
	}
	below := 0
	for _, rev := range exclude {
		l, ok := levelOf(rev)
		if !ok {
			return 0
		}
		below = max(below, l)
	}
	total := 0
	for _, l := range g.layers {
		total += l.n
	}
	if n := top - below; n >= worth && n <= total {
		return n
	}
	return 0
}
