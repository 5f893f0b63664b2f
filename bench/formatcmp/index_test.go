package formatcmp

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	gogitindex "github.com/go-git/go-git/v5/plumbing/format/index"
	gogithash "github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// entry is what a reader gives of one index entry: everything
// internal/worktree uses (tree.go the path, mode, oid and stage; prove.go
// the stat data; index.go and prove.go the three flags).
type entry struct {
	Path                                     string
	Mode                                     uint32
	OID                                      string
	Stage                                    int
	AssumeUnchanged, SkipWorktree, ITA       bool
	CtimeSec, CtimeNsec, MtimeSec, MtimeNsec uint32
	Dev, Ino, UID, GID, Size                 uint32
}

// indexInput is one index file and the repository git reads it in.
type indexInput struct {
	id, desc string
	repo     string // where git reads it (a split index's shared part is in its .git)
	path     string
	hashLen  int
	sparse   bool // git lists it with --sparse: its directory entries as stored
}

var (
	indexOnce   sync.Once
	indexInputs []indexInput
)

// inputs builds the index files once per test binary, each made by git.
func inputs(tb testing.TB) []indexInput {
	need(tb)
	indexOnce.Do(func() { indexInputs = buildIndexes(tb) })
	if indexInputs == nil {
		tb.Fatal("building the inputs failed earlier")
	}
	return indexInputs
}

// fill gives a repository entries of every kind: nested paths sharing
// prefixes (what version 4 compresses), an executable, a symbolic link, a
// gitlink, and, when long, a path longer than the 12-bit length field.
func fill(tb testing.TB, root string, long bool) {
	tb.Helper()
	write(tb, filepath.Join(root, "a.txt"), "a\n")
	write(tb, filepath.Join(root, "dir/sub/long-name-one.txt"), "one\n")
	write(tb, filepath.Join(root, "dir/sub/long-name-two.txt"), "two\n")
	write(tb, filepath.Join(root, "dir/z.txt"), "")
	write(tb, filepath.Join(root, "other/x.txt"), "x\n")
	write(tb, filepath.Join(root, "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "sym")); err != nil {
		tb.Fatal(err)
	}
	git(tb, root, nil, "", "add", ".")
	git(tb, root, nil, "", "commit", "-q", "-m", "one")
	head := git(tb, root, nil, "", "rev-parse", "HEAD")
	git(tb, root, nil, "", "update-index", "--add", "--cacheinfo", "160000,"+head+",mod")
	if long {
		blob := git(tb, root, nil, "", "rev-parse", "HEAD:a.txt")
		p := strings.Repeat("x/", 2100) + "end" // 4203 bytes
		git(tb, root, nil, "", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
	}
}

// snap copies a repository's index aside: later steps change it.
func snap(tb testing.TB, root, id string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(need(tb), "indexes", id)
	write(tb, p, string(data))
	return p
}

func buildIndexes(tb testing.TB) []indexInput {
	var in []indexInput
	add := func(id, desc, repo, path string, hashLen int) {
		in = append(in, indexInput{id: id, desc: desc, repo: repo, path: path, hashLen: hashLen})
	}

	a := newRepo(tb, "kinds", "sha1")
	fill(tb, a, true)
	git(tb, a, nil, "", "update-index", "--assume-unchanged", "a.txt")
	git(tb, a, nil, "", "update-index", "--index-version", "2")
	add("v2", "v2: assume-unchanged, 4,203-byte path, gitlink, symlink, executable", a, snap(tb, a, "v2"), 20)
	git(tb, a, nil, "", "update-index", "--skip-worktree", "dir/z.txt")
	write(tb, filepath.Join(a, "new.txt"), "new\n")
	git(tb, a, nil, "", "add", "-N", "new.txt")
	git(tb, a, nil, "", "update-index", "--index-version", "3")
	add("v3", "v3: + skip-worktree, intent-to-add", a, snap(tb, a, "v3"), 20)
	git(tb, a, nil, "", "update-index", "--index-version", "4")
	add("v4", "v4: path compression, same entries", a, snap(tb, a, "v4"), 20)
	git(tb, a, nil, "", "-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true",
		"-c", "index.threads=2", "update-index", "--index-version", "3")
	add("eoie", "v3 written with index.recordEndOfIndexEntries, recordOffsetTable", a, snap(tb, a, "eoie"), 20)
	zero, err := os.ReadFile(in[0].path)
	if err != nil {
		tb.Fatal(err)
	}
	copy(zero[len(zero)-20:], make([]byte, 20))
	zp := filepath.Join(need(tb), "indexes", "zero-trailer")
	write(tb, zp, string(zero))
	add("zero-trailer", "v2 with a zero trailer (what index.skipHash, git 2.40+, writes)", a, zp, 20)

	b := newRepo(tb, "conflict", "sha1")
	write(tb, filepath.Join(b, "f"), "base\n")
	git(tb, b, nil, "", "add", ".")
	git(tb, b, nil, "", "commit", "-q", "-m", "base")
	git(tb, b, nil, "", "checkout", "-q", "-b", "other")
	write(tb, filepath.Join(b, "f"), "other\n")
	git(tb, b, nil, "", "commit", "-q", "-am", "other")
	git(tb, b, nil, "", "checkout", "-q", "main")
	write(tb, filepath.Join(b, "f"), "main\n")
	git(tb, b, nil, "", "commit", "-q", "-am", "main")
	if _, _, err := gitRun(b, nil, "", "merge", "-q", "other"); err == nil {
		tb.Fatal("merge did not conflict")
	}
	add("conflict", "merge conflict: stages 1, 2, 3", b, snap(tb, b, "conflict"), 20)
	write(tb, filepath.Join(b, "f"), "resolved\n")
	git(tb, b, nil, "", "add", "f")
	add("reuc", "the conflict resolved: resolve-undo (REUC)", b, snap(tb, b, "reuc"), 20)

	s := newRepo(tb, "split", "sha1")
	fill(tb, s, false)
	git(tb, s, nil, "", "config", "core.splitIndex", "true")
	git(tb, s, nil, "", "update-index", "--split-index")
	write(tb, filepath.Join(s, "later.txt"), "later\n")
	git(tb, s, nil, "", "add", "later.txt")
	add("split", "split index (core.splitIndex): link, sharedindex.*", s, filepath.Join(s, ".git", "index"), 20)

	sp := newRepo(tb, "sparse", "sha1")
	fill(tb, sp, false)
	git(tb, sp, nil, "", "sparse-checkout", "init", "--cone", "--sparse-index")
	git(tb, sp, nil, "", "sparse-checkout", "set", "dir/sub")
	in = append(in, indexInput{id: "sparse", desc: "sparse index (cone, --sparse-index): directory entries, sdir",
		repo: sp, path: filepath.Join(sp, ".git", "index"), hashLen: 20, sparse: true})

	sf := newRepo(tb, "sparse-full", "sha1")
	fill(tb, sf, false)
	git(tb, sf, nil, "", "sparse-checkout", "init", "--cone")
	git(tb, sf, nil, "", "sparse-checkout", "set", "dir/sub")
	add("sparse-full", "sparse checkout, full index: skip-worktree entries", sf, snap(tb, sf, "sparse-full"), 20)

	h := newRepo(tb, "sha256", "sha256")
	fill(tb, h, true)
	git(tb, h, nil, "", "update-index", "--assume-unchanged", "a.txt")
	git(tb, h, nil, "", "update-index", "--index-version", "2")
	add("sha256-v2", "SHA-256 repository, v2", h, snap(tb, h, "sha256-v2"), 32)
	git(tb, h, nil, "", "update-index", "--index-version", "4")
	add("sha256-v4", "SHA-256 repository, v4", h, snap(tb, h, "sha256-v4"), 32)

	u := newRepo(tb, "untracked", "sha1")
	fill(tb, u, false)
	write(tb, filepath.Join(u, "untracked.txt"), "u\n")
	hook := filepath.Join(need(tb), "fsmonitor-hook")
	write(tb, hook, "#!/bin/sh\nprintf 'token\\0/\\0'\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		tb.Fatal(err)
	}
	for range 2 {
		git(tb, u, nil, "", "-c", "core.untrackedCache=true", "-c", "core.fsmonitor="+hook,
			"-c", "core.fsmonitorHookVersion=2", "status", "--porcelain")
	}
	add("untr-fsmn", "untracked cache and fsmonitor (UNTR, FSMN)", u, snap(tb, u, "untr-fsmn"), 20)

	// 100,000 entries under shared prefixes, written by update-index (no
	// files on disk: their stat data is zero, which costs a reader the
	// same as any other).
	big := newRepo(tb, "big", "sha1")
	blob := git(tb, big, nil, "x\n", "hash-object", "-w", "--stdin")
	var lines strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&lines, "100644 %s\tsrc/pkg%03d/sub%02d/file%05d.go\n", blob, i/1000, i/100%10, i)
	}
	git(tb, big, nil, lines.String(), "update-index", "--add", "--index-info")
	git(tb, big, nil, "", "update-index", "--index-version", "2")
	add("big-v2", "100,000 entries, v2", big, snap(tb, big, "big-v2"), 20)
	git(tb, big, nil, "", "update-index", "--index-version", "4")
	add("big-v4", "100,000 entries, v4", big, snap(tb, big, "big-v4"), 20)

	for i := range in {
		data, err := os.ReadFile(in[i].path)
		if err != nil {
			tb.Fatal(err)
		}
		if ext := extensions(data); ext != "" {
			in[i].desc += " [" + ext + "]"
		}
	}
	return in
}

// extensions names the extension signatures an index file seems to hold
// (a look for the four bytes and a plausible size, for the table only).
func extensions(data []byte) string {
	var found []string
	for _, sig := range []string{"TREE", "REUC", "link", "UNTR", "FSMN", "EOIE", "IEOT", "sdir"} {
		if bytes.Contains(data, []byte(sig)) {
			found = append(found, sig)
		}
	}
	return strings.Join(found, " ")
}

// gitEntries is git's own reading of an index file: `ls-files --stage -z
// --debug` prints each entry with its stat data and in-memory flags.
func gitEntries(repo, path string, sparse bool) ([]entry, error) {
	args := []string{"ls-files", "--stage", "-z", "--debug"}
	if sparse {
		args = append(args, "--sparse")
	}
	out, errOut, err := gitRun(repo, []string{"GIT_INDEX_FILE=" + path}, "", args...)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut))
	}
	var es []entry
	for out != "" {
		head, rest, ok := strings.Cut(out, "\x00")
		if !ok {
			return nil, fmt.Errorf("ls-files: unterminated entry %q", head)
		}
		meta, p, ok := strings.Cut(head, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("ls-files: entry %q", head)
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		stage, _ := strconv.Atoi(f[2])
		e := entry{Path: p, Mode: uint32(mode), OID: f[1], Stage: stage}
		lines := strings.SplitN(rest, "\n", 6)
		if len(lines) < 6 {
			return nil, fmt.Errorf("ls-files: debug lines of %q", p)
		}
		var flags uint32
		for k, scan := range []struct {
			format string
			dst    []any
		}{
			{"  ctime: %d:%d", []any{&e.CtimeSec, &e.CtimeNsec}},
			{"  mtime: %d:%d", []any{&e.MtimeSec, &e.MtimeNsec}},
			{"  dev: %d\tino: %d", []any{&e.Dev, &e.Ino}},
			{"  uid: %d\tgid: %d", []any{&e.UID, &e.GID}},
			{"  size: %d\tflags: %x", []any{&e.Size, &flags}},
		} {
			if _, err := fmt.Sscanf(lines[k], scan.format, scan.dst...); err != nil {
				return nil, fmt.Errorf("ls-files line %q: %v", lines[k], err)
			}
		}
		// git's in-memory flags: CE_VALID, CE_SKIP_WORKTREE, CE_INTENT_TO_ADD.
		e.AssumeUnchanged = flags&0x8000 != 0
		e.SkipWorktree = flags&(1<<30) != 0
		e.ITA = flags&(1<<29) != 0
		es = append(es, e)
		out = lines[5]
	}
	return es, nil
}

// reader reads an index file; hashLen is the repository's.
type reader struct {
	name string
	read func(path string, hashLen int) ([]entry, error)
}

var readers = []reader{
	{"ours", readOurs},
	{"go-git", readGoGit},
}

// readOurs is internal/worktree's reader (index.go).
func readOurs(path string, hashLen int) ([]entry, error) {
	es, err := worktree.ReadIndex(path, hashLen)
	if err != nil {
		return nil, err
	}
	out := make([]entry, len(es))
	for i, e := range es {
		out[i] = entry{Path: e.Path, Mode: e.Mode, OID: e.OID, Stage: e.Stage,
			AssumeUnchanged: e.AssumeUnchanged, SkipWorktree: e.SkipWorktree, ITA: e.IntentToAdd,
			CtimeSec: e.CtimeSec, CtimeNsec: e.CtimeNsec, MtimeSec: e.MtimeSec, MtimeNsec: e.MtimeNsec,
			Dev: e.Dev, Ino: e.Ino, UID: e.UID, GID: e.GID, Size: e.Size}
	}
	return out, nil
}

// readGoGit is go-git's plumbing/format/index, as its storer reads an
// index: a decoder over the open file. Its hash length is fixed when it is
// built (20, or 32 with -tags sha256), not taken from the repository.
func readGoGit(path string, _ int) (es []entry, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if r := recover(); r != nil {
			es, err = nil, fmt.Errorf("PANIC: %v", r)
		}
	}()
	var idx gogitindex.Index
	if err := gogitindex.NewDecoder(f).Decode(&idx); err != nil {
		return nil, err
	}
	out := make([]entry, len(idx.Entries))
	for i, e := range idx.Entries {
		// go-git keeps no CE_VALID (assume-unchanged) flag: it is lost.
		out[i] = entry{Path: e.Name, Mode: uint32(e.Mode), OID: e.Hash.String(), Stage: int(e.Stage),
			SkipWorktree: e.SkipWorktree, ITA: e.IntentToAdd, Dev: e.Dev, Ino: e.Inode, UID: e.UID, GID: e.GID, Size: e.Size}
		if !e.CreatedAt.IsZero() {
			out[i].CtimeSec, out[i].CtimeNsec = uint32(e.CreatedAt.Unix()), uint32(e.CreatedAt.Nanosecond())
		}
		if !e.ModifiedAt.IsZero() {
			out[i].MtimeSec, out[i].MtimeNsec = uint32(e.ModifiedAt.Unix()), uint32(e.ModifiedAt.Nanosecond())
		}
	}
	return out, nil
}

// diff says how got differs from want: "" when the same.
func diff(got, want []entry) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d entries, git %d", len(got), len(want))
	}
	fields := map[string]int{}
	bad := 0
	for i := range got {
		g, w := got[i], want[i]
		n := 0
		for name, same := range map[string]bool{
			"path": g.Path == w.Path, "mode": g.Mode == w.Mode, "oid": g.OID == w.OID, "stage": g.Stage == w.Stage,
			"assume-unchanged": g.AssumeUnchanged == w.AssumeUnchanged, "skip-worktree": g.SkipWorktree == w.SkipWorktree,
			"intent-to-add": g.ITA == w.ITA,
			"stat": g.CtimeSec == w.CtimeSec && g.CtimeNsec == w.CtimeNsec && g.MtimeSec == w.MtimeSec &&
				g.MtimeNsec == w.MtimeNsec && g.Dev == w.Dev && g.Ino == w.Ino && g.UID == w.UID && g.GID == w.GID && g.Size == w.Size,
		} {
			if !same {
				fields[name]++
				n++
			}
		}
		if n > 0 {
			bad++
		}
	}
	if bad == 0 {
		return ""
	}
	var names []string
	for k, n := range fields {
		names = append(names, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(names)
	return fmt.Sprintf("%d of %d entries differ (%s)", bad, len(got), strings.Join(names, ", "))
}

// verdict is one reader's answer on one input beside git's.
func verdict(r reader, in indexInput, want []entry, wantErr error) string {
	got, err := r.read(in.path, in.hashLen)
	switch {
	case err != nil && wantErr != nil:
		return "refuses, as git does: " + short(err)
	case errors.Is(err, worktree.ErrIndexUnsupported):
		return "declines: " + short(err)
	case err != nil:
		return "ERROR: " + short(err)
	case wantErr != nil:
		return fmt.Sprintf("WRONG: reads %d entries, git refuses", len(got))
	}
	if d := diff(got, want); d != "" {
		return "WRONG: " + d
	}
	return fmt.Sprintf("same %d entries", len(got))
}

func short(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": corrupt"); i >= 0 {
		s = s[i+2:]
	} else if i := strings.Index(s, ": unsupported"); i >= 0 {
		s = s[i+2:]
	}
	if len(s) > 70 {
		s = s[:70] + "..."
	}
	return s
}

// TestIndexReaders compares both readers with git on every input: the
// entries and the fields internal/worktree uses.
func TestIndexReaders(t *testing.T) {
	var rows [][]string
	for _, in := range inputs(t) {
		want, wantErr := gitEntries(in.repo, in.path, in.sparse)
		row := []string{in.id, in.desc}
		if wantErr != nil {
			row = append(row, "refuses: "+short(wantErr))
		} else {
			row = append(row, strconv.Itoa(len(want)))
		}
		for _, r := range readers {
			v := verdict(r, in, want, wantErr)
			// go-git's answers are what is measured; ours must be git's.
			if r.name == "ours" && (strings.HasPrefix(v, "WRONG") || strings.HasPrefix(v, "ERROR")) {
				t.Errorf("ours on %s: %s", in.id, v)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	t.Logf("go-git built for %d-byte hashes", gogithash.Size)
	table(t, []string{"input", "what", "git ls-files", "ours (internal/worktree/index.go)", "go-git (plumbing/format/index)"}, rows)
}

// corpus is the fuzz corpus of the index reader: FuzzReadIndex's seeds
// (real indexes of versions 2 to 4, both hash lengths, assume-unchanged
// and skip-worktree entries, made again here as internal/worktree's
// idxSeeds makes them) and the inputs fuzzing left in the build cache.
func corpus(t *testing.T) (seeds, cached [][]byte) {
	for _, format := range []string{"sha1", "sha256"} {
		root := newRepo(t, "seeds-"+format, format)
		write(t, filepath.Join(root, "a.txt"), "a\n")
		write(t, filepath.Join(root, "dir/sub/b.txt"), "b\n")
		write(t, filepath.Join(root, "dir/sub/c.txt"), "c\n")
		git(t, root, nil, "", "add", ".")
		git(t, root, nil, "", "update-index", "--assume-unchanged", "a.txt")
		for _, v := range []string{"2", "3", "4"} {
			if v == "3" {
				git(t, root, nil, "", "update-index", "--skip-worktree", "dir/sub/b.txt")
			}
			git(t, root, nil, "", "update-index", "--index-version", v)
			data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, data)
		}
	}
	dir := os.Getenv("FORMATCMP_CORPUS")
	if dir == "" && goCache != "" {
		dir = filepath.Join(goCache, "fuzz", "github.com/taskresume/git-taskresume/internal/worktree/FuzzReadIndex")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1" then one Go literal: []byte("...").
		_, lit, ok := strings.Cut(string(data), "\n")
		lit = strings.TrimSpace(lit)
		lit, ok2 := strings.CutPrefix(lit, "[]byte(")
		lit, ok3 := strings.CutSuffix(lit, ")")
		b, err := strconv.Unquote(lit)
		if !ok || !ok2 || !ok3 || err != nil {
			t.Fatalf("%s: not a corpus file of []byte", f)
		}
		cached = append(cached, []byte(b))
	}
	t.Logf("fuzz corpus: %d seeds, %d cached inputs from %s", len(seeds), len(cached), dir)
	return seeds, cached
}

// errClass is an error's message without its numbers and quoted names, so
// that the tally groups refusals by reason.
func errClass(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": corrupt index: "); i >= 0 {
		s = s[i+17:]
	} else if i := strings.Index(s, ": unsupported index: "); i >= 0 {
		s = "unsupported: " + s[i+21:]
	}
	if i := strings.IndexAny(s, "\"("); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }), "N")
	return strings.TrimSpace(s)
}

// withChecksum gives data the trailer of its content, as FuzzReadIndex
// does before its second parse: a mutated file almost never keeps one, and
// git (which does not check it on reading) would otherwise read files both
// readers refuse for that alone.
func withChecksum(data []byte, hashLen int) []byte {
	if len(data) < hashLen {
		return data
	}
	out := append([]byte(nil), data...)
	var sum []byte
	if hashLen == 32 {
		s := sha256.Sum256(out[:len(out)-hashLen])
		sum = s[:]
	} else {
		s := sha1.Sum(out[:len(out)-hashLen])
		sum = s[:]
	}
	copy(out[len(out)-hashLen:], sum)
	return out
}

// TestIndexCorpus reads every corpus input, with a valid checksum, as git
// reads it in a repository of each object format, and tallies how each
// reader's answer compares with git's.
func TestIndexCorpus(t *testing.T) {
	need(t)
	seeds, cached := corpus(t)
	repos := map[int]string{20: newRepo(t, "corpus-sha1", "sha1"), 32: newRepo(t, "corpus-sha256", "sha256")}
	file := filepath.Join(need(t), "corpus-index")
	var rows [][]string
	for _, set := range []struct {
		name string
		data [][]byte
	}{{"seeds", seeds}, {"cached", cached}} {
		for _, hashLen := range []int{20, 32} {
			tally := map[string]map[string]int{}
			gitReads := 0
			for _, data := range set.data {
				write(t, file, string(withChecksum(data, hashLen)))
				want, wantErr := gitEntries(repos[hashLen], file, false)
				if wantErr == nil {
					gitReads++
				}
				for _, r := range readers {
					if tally[r.name] == nil {
						tally[r.name] = map[string]int{}
					}
					got, err := r.read(file, hashLen)
					var k string
					switch {
					case err != nil && strings.HasPrefix(err.Error(), "PANIC"):
						k = "PANIC"
					case err != nil && wantErr != nil:
						k = "both refuse"
					case err != nil:
						k = "refuses what git reads (" + errClass(err) + ")"
					case wantErr != nil:
						k = "WRONG: reads what git refuses"
					case diff(got, want) != "":
						k = "WRONG: entries differ"
					default:
						k = "same entries"
					}
					tally[r.name][k]++
					if r.name == "ours" && (strings.HasPrefix(k, "WRONG") || k == "PANIC") {
						t.Errorf("ours on a %s input (hash %d): %s", set.name, hashLen, k)
					}
				}
			}
			row := []string{set.name, strconv.Itoa(hashLen), fmt.Sprintf("%d/%d", gitReads, len(set.data))}
			for _, r := range readers {
				var parts []string
				for k, n := range tally[r.name] {
					parts = append(parts, fmt.Sprintf("%s %d", k, n))
				}
				sort.Strings(parts)
				row = append(row, strings.Join(parts, "; "))
			}
			rows = append(rows, row)
		}
	}
	t.Logf("go-git built for %d-byte hashes", gogithash.Size)
	table(t, []string{"corpus", "hash", "git reads", "ours", "go-git"}, rows)
}

// BenchmarkIndex reads each input with each reader (where the reader reads
// it at all), and the big ones with git ls-files too, for scale.
func BenchmarkIndex(b *testing.B) {
	for _, in := range inputs(b) {
		for _, r := range readers {
			b.Run(in.id+"/"+r.name, func(b *testing.B) {
				if _, err := r.read(in.path, in.hashLen); err != nil {
					b.Skip(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					r.read(in.path, in.hashLen)
				}
			})
		}
		if strings.HasPrefix(in.id, "big") {
			b.Run(in.id+"/git-ls-files", func(b *testing.B) {
				for b.Loop() {
					if _, _, err := gitRun(in.repo, []string{"GIT_INDEX_FILE=" + in.path}, "", "ls-files", "--stage", "-z"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
