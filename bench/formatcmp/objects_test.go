package formatcmp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// objSet is the commits and trees of one repository, as stored.
type objSet struct {
	name    string
	repo    string
	hashLen int
	commits []gitcmd.Object
	trees   []gitcmd.Object
}

var (
	objOnce sync.Once
	objSets []objSet
)

// objectInputs are three repositories' commits and trees: this module's own
// history (what the report reads every day), commits of unusual but valid
// shapes made with hash-object, and a SHA-256 repository.
func objectInputs(tb testing.TB) []objSet {
	need(tb)
	objOnce.Do(func() {
		self := git(tb, ".", nil, "", "rev-parse", "--path-format=absolute", "--git-common-dir")
		objSets = append(objSets, loadObjects(tb, "this module's history", filepath.Dir(self), 20))
		objSets = append(objSets, loadObjects(tb, oddSet, oddCommits(tb), 20))
		h := newRepo(tb, "objects-sha256", "sha256")
		fill(tb, h, false)
		write(tb, filepath.Join(h, "dir/more.txt"), "more\n")
		git(tb, h, nil, "", "add", ".")
		git(tb, h, nil, "", "commit", "-q", "-m", "two\n\nRun-Id: abc123")
		objSets = append(objSets, loadObjects(tb, "SHA-256 repository", h, 32))
	})
	return objSets
}

// oddSet names the set of oddCommits.
const oddSet = "unusual commits"

// oddCommits makes a repository holding commits git accepts (hash-object
// checks them as fsck does, unless marked) that a reader may trip on.
func oddCommits(tb testing.TB) string {
	r := newRepo(tb, "objects-odd", "sha1")
	fill(tb, r, false)
	tree := git(tb, r, nil, "", "rev-parse", "HEAD^{tree}")
	head := git(tb, r, nil, "", "rev-parse", "HEAD")
	git(tb, r, nil, "", "commit", "-q", "--allow-empty", "-m", "second")
	second := git(tb, r, nil, "", "rev-parse", "HEAD")
	who := "Ada <ada@example.com> 1700000000 +0000"
	hdr := "tree " + tree + "\nparent " + head + "\nauthor " + who + "\ncommitter " + who + "\n"
	sig := "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n =abcd\n -----END PGP SIGNATURE-----\n"
	for _, c := range []struct {
		literally bool
		body      string
	}{
		{false, hdr + sig + "\n[Task 1.1] Signed\n\nRun-Id: abc123\nTask-Id: 1.1\n"},
		{false, hdr + "mergetag object " + head + "\n type commit\n tag v1\n tagger " + who + "\n \n v1\n" + "\nMerge tag 'v1'\n"},
		{false, hdr + "encoding ISO-8859-1\n\nCaf\xe9 cr\xe8me\n"},
		{false, hdr + "\n\n\nLeading blank lines\n"},
		{false, hdr + "\nA subject\nwrapped on two lines\n\nbody\n"},
		{false, "tree " + tree + "\nparent " + head + "\nparent " + second + "\nparent " + head + "\nauthor " + who + "\ncommitter " + who + "\n\nOctopus\n"},
		{false, hdr + "\n"},
		{true, hdr},
		{false, hdr + "x-custom-header value\n\nUnknown header\n"},
		{false, "tree " + tree + "\nparent " + head + "\nauthor Ada <ada@example.com> 1700000000 +0530\ncommitter Bob <bob@example.com> 1700003600 -0800\n\nTime zones\n"},
		{false, hdr + "\nCRLF subject\r\n\r\nbody\r\n"},
		{true, "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\nparent " + head + "\n\nParent after the author (fsck: badParentSha1)\n"},
		{true, "tree " + tree + "\nparent " + head + "\nauthor Ada 1700000000 +0000\ncommitter " + who + "\n\nAuthor without an email\n"},
	} {
		args := []string{"hash-object", "-t", "commit", "-w", "--stdin"}
		if c.literally {
			args = append(args, "--literally")
		}
		git(tb, r, nil, c.body, args...)
	}
	// A tree with the 100664 mode of old git and a name with a space.
	blob := git(tb, r, nil, "", "rev-parse", "HEAD:a.txt")
	raw, err := hexBytes(blob)
	if err != nil {
		tb.Fatal(err)
	}
	t := "100664 old mode\x00" + string(raw) + "100644 with space.txt\x00" + string(raw)
	git(tb, r, nil, t, "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
	oddTrees(tb, r)
	return r
}

// oddTrees writes two trees naming one folder: one as git writes it
// ("40000"), one with the zero-padded mode old tools wrote ("040000",
// fsck's zeroPaddedFilemode warning, which git reads as a folder), and
// records their ids for TestZeroPaddedTreeDiff.
func oddTrees(tb testing.TB, r string) {
	dir, err := hexBytes(git(tb, r, nil, "", "rev-parse", "HEAD:dir"))
	if err != nil {
		tb.Fatal(err)
	}
	other, err := hexBytes(git(tb, r, nil, "", "rev-parse", "HEAD:other"))
	if err != nil {
		tb.Fatal(err)
	}
	padded.repo = r
	padded.plain = git(tb, r, nil, "40000 d\x00"+string(dir), "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
	padded.zero = git(tb, r, nil, "040000 d\x00"+string(other), "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
}

// padded names two trees of oddTrees.
var padded struct{ repo, plain, zero string }

// TestZeroPaddedTreeDiff compares ours' tree diff (gitcmd.Objects.DiffTrees,
// which reads trees with ParseTree) with git diff-tree when a folder's mode
// is stored zero-padded: ParseTree keeps the stored mode, where git and
// go-git canonicalise it.
func TestZeroPaddedTreeDiff(t *testing.T) {
	objectInputs(t)
	want := git(t, padded.repo, nil, "", "diff-tree", "-r", "--no-renames", padded.plain, padded.zero)
	ctx := context.Background()
	repo, err := gitcmd.Open(ctx, padded.repo)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := repo.ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	got, err := objs.DiffTrees(padded.plain, padded.zero)
	t.Logf("git diff-tree -r:\n%s\nours DiffTrees (err %v):\n%s", want, err, got)
}

func hexBytes(s string) ([]byte, error) {
	b := make([]byte, len(s)/2)
	for i := range b {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		b[i] = byte(v)
	}
	return b, nil
}

// loadObjects reads every commit and tree of a repository with one
// `cat-file --batch-all-objects --batch`.
func loadObjects(tb testing.TB, name, repo string, hashLen int) objSet {
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch", "--unordered")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("cat-file in %s: %v", repo, err)
	}
	set := objSet{name: name, repo: repo, hashLen: hashLen}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		f := strings.Fields(line)
		if err != nil || len(f) != 3 {
			tb.Fatalf("cat-file line %q: %v", line, err)
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			tb.Fatal(err)
		}
		o := gitcmd.Object{OID: f[0], Type: f[1], Data: data[:size]}
		switch o.Type {
		case "commit":
			set.commits = append(set.commits, o)
		case "tree":
			set.trees = append(set.trees, o)
		}
	}
	return set
}

// commitFacts is what the report takes from a commit object.
type commitFacts struct {
	tree, parents, author, subject string
	time                           int64
}

// gitCommits is git's reading of the commits: one `log --no-walk --stdin`.
func gitCommits(tb testing.TB, set objSet) map[string]commitFacts {
	var ids strings.Builder
	for _, c := range set.commits {
		ids.WriteString(c.OID + "\n")
	}
	out := git(tb, set.repo, nil, ids.String(), "log", "--no-walk=unsorted", "--stdin", "--date=raw",
		"--format=%H%x00%T%x00%P%x00%an <%ae> %ad%x00%s%x00%ct%x00")
	m := map[string]commitFacts{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\x00")
		if len(f) < 6 {
			tb.Fatalf("log line %q", line)
		}
		t, _ := strconv.ParseInt(f[5], 10, 64)
		m[f[0]] = commitFacts{tree: f[1], parents: f[2], author: f[3], subject: f[4], time: t}
	}
	return m
}

// subjectOf is git's %s of a message: its first paragraph, lines joined
// with spaces (the rule ours applies; here for go-git's Message).
func subjectOf(msg string) string {
	msg = strings.TrimLeft(msg, "\n")
	subject, _, _ := strings.Cut(msg, "\n\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(subject, "\n", " ")), " ")
}

func oursCommit(o gitcmd.Object) (commitFacts, error) {
	e, ok := gitcmd.ParseCommit(o)
	if !ok {
		return commitFacts{}, fmt.Errorf("not a commit")
	}
	return commitFacts{tree: e.Tree, parents: strings.Join(e.Parents, " "), author: e.Author, subject: e.Subject, time: e.Time}, nil
}

// memObject is the object as go-git's storers hand it to a decoder.
func memObject(o gitcmd.Object, t plumbing.ObjectType) *plumbing.MemoryObject {
	m := &plumbing.MemoryObject{}
	m.SetType(t)
	m.Write(o.Data)
	return m
}

func goGitCommit(m *plumbing.MemoryObject) (f commitFacts, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	var c object.Commit
	if err := c.Decode(m); err != nil {
		return commitFacts{}, err
	}
	var ps []string
	for _, p := range c.ParentHashes {
		ps = append(ps, p.String())
	}
	a := c.Author
	return commitFacts{tree: c.TreeHash.String(), parents: strings.Join(ps, " "),
		author:  fmt.Sprintf("%s <%s> %d %s", a.Name, a.Email, a.When.Unix(), a.When.Format("-0700")),
		subject: subjectOf(c.Message), time: c.Committer.When.Unix()}, nil
}

func factsDiff(got, want commitFacts) string {
	var d []string
	if got.tree != want.tree {
		d = append(d, "tree")
	}
	if got.parents != want.parents {
		d = append(d, "parents")
	}
	if got.author != want.author {
		d = append(d, "author")
	}
	if got.subject != want.subject {
		d = append(d, "subject")
	}
	if got.time != want.time {
		d = append(d, "time")
	}
	return strings.Join(d, "+")
}

// tally counts outcomes: "same", or the fields that differ, or the error.
func tallyString(t map[string]int) string {
	var parts []string
	for k, n := range t {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func TestCommitReaders(t *testing.T) {
	var rows [][]string
	for _, set := range objectInputs(t) {
		want := gitCommits(t, set)
		ours, gg := map[string]int{}, map[string]int{}
		for _, o := range set.commits {
			w := want[o.OID]
			f, err := oursCommit(o)
			ours[outcome(f, w, err)]++
			g, err := goGitCommit(memObject(o, plumbing.CommitObject))
			gg[outcome(g, w, err)]++
			if d := factsDiff(f, w); d != "" && testing.Verbose() {
				t.Logf("ours %s: %s: %+v, git %+v", o.OID[:12], d, f, w)
			}
			if d := factsDiff(g, w); d != "" && err == nil && testing.Verbose() {
				t.Logf("go-git %s: %s: %+v, git %+v", o.OID[:12], d, g, w)
			}
		}
		// The unusual commits hold known differences (the table says
		// which); elsewhere ours must read what git reads.
		if set.name != oddSet && ours["same"] != len(set.commits) {
			t.Errorf("ours on %s: %s", set.name, tallyString(ours))
		}
		rows = append(rows, []string{set.name, strconv.Itoa(len(set.commits)), tallyString(ours), tallyString(gg)})
	}
	table(t, []string{"commits of", "n", "ours (gitcmd.ParseCommit)", "go-git (object.Commit.Decode)"}, rows)
}

func outcome(got, want commitFacts, err error) string {
	if err != nil {
		return "ERROR " + short(err)
	}
	if d := factsDiff(got, want); d != "" {
		return "WRONG " + d
	}
	return "same"
}

// treeEntry is one entry as `git ls-tree -z` prints it, the mode as an
// octal number (git prints a directory's as 040000, ours keeps the stored
// 40000).
type treeEntry struct {
	mode      uint64
	name, oid string
}

func gitTree(tb testing.TB, repo, oid string) []treeEntry {
	out := git(tb, repo, nil, "", "ls-tree", "-z", oid)
	var es []treeEntry
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		es = append(es, treeEntry{mode, name, f[2]})
	}
	return es
}

func oursTree(o gitcmd.Object, hashLen int) ([]treeEntry, error) {
	es, err := gitcmd.ParseTree(o.Data, hashLen)
	if err != nil {
		return nil, err
	}
	out := make([]treeEntry, len(es))
	for i, e := range es {
		m, _ := strconv.ParseUint(e.Mode, 8, 32)
		out[i] = treeEntry{m, e.Name, e.OID}
	}
	return out, nil
}

func goGitTree(m *plumbing.MemoryObject) (out []treeEntry, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	var t object.Tree
	if err := t.Decode(m); err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		out = append(out, treeEntry{uint64(e.Mode), e.Name, e.Hash.String()})
	}
	return out, nil
}

func treeOutcome(got, want []treeEntry, err error) string {
	if err != nil {
		return "ERROR " + short(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		for i := range min(len(got), len(want)) {
			if got[i].mode != want[i].mode && got[i].name == want[i].name && got[i].oid == want[i].oid {
				return "WRONG mode"
			}
		}
		return "WRONG entries"
	}
	return "same"
}

func TestTreeReaders(t *testing.T) {
	var rows [][]string
	for _, set := range objectInputs(t) {
		ours, gg := map[string]int{}, map[string]int{}
		for _, o := range set.trees {
			want := gitTree(t, set.repo, o.OID)
			got, err := oursTree(o, set.hashLen)
			ours[treeOutcome(got, want, err)]++
			g, err := goGitTree(memObject(o, plumbing.TreeObject))
			gg[treeOutcome(g, want, err)]++
			if testing.Verbose() && treeOutcome(g, want, err) != "same" {
				t.Logf("go-git tree %s: %v\n got %v\nwant %v", o.OID[:12], err, g, want)
			}
		}
		if set.name != oddSet && ours["same"] != len(set.trees) {
			t.Errorf("ours on %s: %s", set.name, tallyString(ours))
		}
		rows = append(rows, []string{set.name, strconv.Itoa(len(set.trees)), tallyString(ours), tallyString(gg)})
	}
	table(t, []string{"trees of", "n", "ours (gitcmd.ParseTree)", "go-git (object.Tree.Decode)"}, rows)
}

// BenchmarkCommit decodes all of this module's commits per op.
func BenchmarkCommit(b *testing.B) {
	set := objectInputs(b)[0]
	mems := make([]*plumbing.MemoryObject, len(set.commits))
	for i, o := range set.commits {
		mems[i] = memObject(o, plumbing.CommitObject)
		mems[i].Hash() // as a storer does: the id is known
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range set.commits {
				gitcmd.ParseCommit(o)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.commits)), "ns/commit")
	})
	b.Run("go-git", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range mems {
				var c object.Commit
				c.Decode(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.commits)), "ns/commit")
	})
}

// BenchmarkTree decodes all of this module's trees per op.
func BenchmarkTree(b *testing.B) {
	set := objectInputs(b)[0]
	mems := make([]*plumbing.MemoryObject, len(set.trees))
	for i, o := range set.trees {
		mems[i] = memObject(o, plumbing.TreeObject)
		mems[i].Hash()
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range set.trees {
				gitcmd.ParseTree(o.Data, 20)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.trees)), "ns/tree")
	})
	b.Run("go-git", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range mems {
				var t object.Tree
				t.Decode(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.trees)), "ns/tree")
	})
}
