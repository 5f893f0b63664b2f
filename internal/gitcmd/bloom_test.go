package gitcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// murmur3 is MurmurHash3's 32-bit form (its published values).
func TestMurmur3(t *testing.T) {
	for _, tc := range []struct {
		seed uint32
		s    string
		want uint32
	}{
		{0, "", 0},
		{1, "", 0x514e28b7},
		{0xffffffff, "", 0x81f16f39},
		{0, "a", 0x3c2569b2},
		{0, "abc", 0xb3dd93fa},
		{0, "abcd", 0x43ed676a},
		{0, "Hello, world!", 0xc0363e43},
		{0x9747b28c, "Hello, world!", 0x24884cba},
		{0x9747b28c, "a", 0x7fa09ea6},
		{0x9747b28c, "abcd", 0xf0478627},
		{0, "\x00\x00\x00\x00", 0x2362f9de},
		{0x9747b28c, "The quick brown fox jumps over the lazy dog", 0x2fa826cd},
	} {
		if got := murmur3(tc.seed, tc.s); got != tc.want {
			t.Errorf("murmur3(%#x, %q) = %#x, want %#x", tc.seed, tc.s, got, tc.want)
		}
	}
}

// bloomGit runs git for the tests of this file.
func bloomGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// bloomImport feeds a git fast-import stream to the repository at dir.
func bloomImport(t *testing.T, dir, stream string) {
	t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
}

// The filters read here are git's: every path a commit changes (and every
// directory above it) is in its filter, and the paths it does not change
// mostly are not (a hash unlike git's would both miss changed paths and
// let everything through). Commits the graph lacks, and a graph written
// without filters, say "may" for everything.
func TestChangedPathFilters(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	bloomGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	paths := []string{"README.md", "a.txt", "src/x.go", "src/deep/y.go", "src/deep/z.go", "docs/guide/intro.md", "docs/guide/more.md", "abc", "abcd", "abcde", "s p a c e/f"}
	var commits []string
	for i := 0; i < 60; i++ {
		// Each commit changes one to three of the paths.
		for k := 0; k <= i%3; k++ {
			p := paths[(i*7+k*3)%len(paths)]
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(fmt.Sprint(i, k)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bloomGit(t, dir, "add", "-A")
		bloomGit(t, dir, "commit", "-q", "-m", fmt.Sprint("c", i))
		commits = append(commits, bloomGit(t, dir, "rev-parse", "HEAD"))
	}
	objects := filepath.Join(dir, ".git", "objects")
	if _, err := openChangedPaths(objects, 20); err != errNoFilters {
		t.Fatalf("no commit-graph: %v, want errNoFilters", err)
	}
	bloomGit(t, dir, "commit-graph", "write", "--reachable")
	if _, err := openChangedPaths(objects, 20); err != errNoFilters {
		t.Fatalf("a commit-graph without filters: %v, want errNoFilters", err)
	}
	os.Remove(filepath.Join(objects, "info", "commit-graph"))
	bloomGit(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	// One more commit, which the graph does not hold.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	bloomGit(t, dir, "commit", "-q", "-am", "late")
	late := bloomGit(t, dir, "rev-parse", "HEAD")

	cp, err := openChangedPaths(objects, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.close()
	if _, err := openChangedPaths(objects, 32); err != errNoFilters {
		t.Errorf("a graph of another hash: %v, want errNoFilters", err)
	}
	queries := append([]string{"src", "src/deep", "docs", "docs/guide", "nothing", "src/none.go", "ab"}, paths...)
	no, unchanged := 0, 0
	for i, c := range commits[1:] {
		changed := strings.Fields(bloomGit(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", c))
		for _, q := range queries {
			keys, ok := newPathKeys(q)
			if !ok {
				t.Fatal(q)
			}
			oid, _ := decodeOID(c)
			may := cp.mayChange(oid, cp.query([]*pathKeys{keys}))
			if touchesPaths(changed, []string{q}) {
				if !may {
					t.Errorf("commit %d changes %s (%q), its filter says not", i+1, q, changed)
				}
				continue
			}
			unchanged++
			if !may {
				no++
			}
		}
	}
	if no < unchanged*9/10 {
		t.Errorf("the filters ruled out %d of %d unchanged paths; git's rule out nearly all", no, unchanged)
	}
	oid, _ := decodeOID(late)
	if k, _ := newPathKeys("nothing"); !cp.mayChange(oid, cp.query([]*pathKeys{k})) {
		t.Error("a commit the graph lacks: ruled out")
	}
	if _, ok := newPathKeys("caf\xc3\xa9"); ok {
		t.Error("a path with high-bit bytes: keys made; git's filter versions hash it apart")
	}

	// A chain of graphs (git commit-graph write --split), read the same.
	os.Remove(filepath.Join(objects, "info", "commit-graph"))
	bloomGit(t, dir, "commit-graph", "write", "--reachable", "--changed-paths", "--split=no-merge")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("newer"), 0o644); err != nil {
		t.Fatal(err)
	}
	bloomGit(t, dir, "commit", "-q", "-am", "newer")
	newer := bloomGit(t, dir, "rev-parse", "HEAD")
	bloomGit(t, dir, "commit-graph", "write", "--reachable", "--changed-paths", "--split=no-merge")
	chain, err := openChangedPaths(objects, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer chain.close()
	if len(chain.layers) < 2 {
		t.Fatalf("%d layers, want a chain", len(chain.layers))
	}
	for _, tc := range []struct {
		commit, path string
		want         bool
	}{{newer, "README.md", true}, {newer, "a.txt", false}, {late, "a.txt", true}, {late, "README.md", false}} {
		oid, _ := decodeOID(tc.commit)
		k, _ := newPathKeys(tc.path)
		if got := chain.mayChange(oid, chain.query([]*pathKeys{k})); got != tc.want {
			t.Errorf("chain: %s may change %s: %v, want %v", tc.commit[:7], tc.path, got, tc.want)
		}
	}
}

// A range is long (the filters are read) when the graph's levels of its
// tips stand longRange or more above its start, or when the graph does not
// hold a tip: a tip newer than the graph may be anywhere above it.
func TestLongRange(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	bloomGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	var in strings.Builder
	for i := 1; i <= 1100; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter A <a@x> %d +0000\ndata 2\nc\n", 1_700_000_000+i)
		fmt.Fprintf(&in, "M 100644 inline f%d\ndata 1\nx\n\n", i%7)
	}
	bloomImport(t, dir, in.String())
	bloomGit(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	bloomGit(t, dir, "reset", "-q", "--hard", "main")
	bloomGit(t, dir, "commit", "-q", "--allow-empty", "-m", "after the graph")
	cp, err := openChangedPaths(filepath.Join(dir, ".git", "objects"), 20)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.close()
	rev := func(r string) string { return bloomGit(t, dir, "rev-parse", r) }
	// main~1 is the graph's newest commit, level 1,100; main~k is at
	// level 1,101-k; main itself is not in the graph.
	for _, tc := range []struct {
		start, tip string
		want       bool
	}{
		{"main~1100", "main~1", true}, // the root, 1,099 levels below
		{"main~1050", "main~1", true}, // 1,049
		{"main~1000", "main~1", false},
		{"main~6", "main~1", false},
		{"main~6", "main", true}, // a tip the graph lacks
	} {
		if got := cp.isLong(rev(tc.start), []string{rev(tc.tip)}); got != tc.want {
			t.Errorf("from %s to %s: long %v, want %v", tc.start, tc.tip, got, tc.want)
		}
	}
	if lr, _ := cp.level(mustOID(t, rev("main~1100"))); lr != 1 {
		t.Errorf("the root's level: %d, want 1", lr)
	}
	if lt, _ := cp.level(mustOID(t, rev("main~1"))); lt != 1100 {
		t.Errorf("the tip's level: %d, want 1100", lt)
	}
}

func mustOID(t *testing.T, s string) []byte {
	t.Helper()
	b, ok := decodeOID(strings.TrimSpace(s))
	if !ok {
		t.Fatalf("not an object id: %q", s)
	}
	return b
}

// The room made for a log is a lower bound of its commits, by the graph's
// levels: exact on a line of commits, none where the graph lacks a tip.
func TestRangeHint(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	bloomGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	var in strings.Builder
	for i := 1; i <= 6000; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\nc\n\n", i, 1_700_000_000+i)
	}
	// A side line of 5,000 from main~5500, merged at the tip.
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&in, "commit refs/heads/side\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\ns\n", 6000+i, 1_700_010_000+i)
		if i == 1 {
			in.WriteString("from :500\n")
		}
		in.WriteString("\n")
	}
	in.WriteString("commit refs/heads/main\ncommitter A <a@x> 1700020000 +0000\ndata 2\nm\nmerge :11000\n\n")
	bloomImport(t, dir, in.String())
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rev := func(x string) string { return bloomGit(t, dir, "rev-parse", x) }
	count := func(inc, exc string) int {
		n, _ := strconv.Atoi(bloomGit(t, dir, "rev-list", "--count", inc, "^"+exc))
		return n
	}
	if got := r.rangeHint([]string{rev("main")}, []string{rev("main~5000")}); got != 0 {
		t.Errorf("no graph: %d", got)
	}
	bloomGit(t, dir, "commit-graph", "write", "--reachable")
	for _, tc := range []struct {
		inc, exc string
		parents  bool // exc^@
		exact    bool
	}{
		{"main^", "main~5000", false, true},  // a line: exact
		{"main", "main~5000", false, false},  // and the side line: more
		{"main", "side~4000", false, false},  // both lines above side~4000
		{"main~10", "main~5998", true, true}, // down to the root, by its parents
	} {
		exc, spec := rev(tc.exc), tc.exc
		if tc.parents {
			exc, spec = exc+"^@", spec+"^@"
		}
		got, n := r.rangeHint([]string{rev(tc.inc)}, []string{exc}), count(tc.inc, spec)
		if got > n || got == 0 || tc.exact && got != n {
			t.Errorf("%s ^%s: room for %d, the log holds %d", tc.inc, spec, got, n)
		}
	}
	if got := r.rangeHint([]string{rev("main~5")}, []string{rev("main~10")}); got != 0 {
		t.Errorf("five commits: room for %d; none is made below a few thousand", got)
	}
	bloomGit(t, dir, "commit", "-q", "--allow-empty", "-m", "after the graph")
	if got := r.rangeHint([]string{rev("main")}, []string{rev("main~5000")}); got != 0 {
		t.Errorf("a tip the graph lacks: room for %d", got)
	}
}
