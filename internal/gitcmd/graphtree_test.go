package gitcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// A long log the commit-graph holds takes its trees from the graph, not
// from git's %T: every tree as git's own log gives it, merges and a side
// line included; where a replace ref rewrites a commit, the trees are
// git's (%T of the replacement), not the graph's.
func TestLogTreesFromTheGraph(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	bloomGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	var in strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\nc\nM 644 inline f%d\ndata 2\n%d\n\n", i, 1_700_000_000+i, i%7, i%5)
	}
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&in, "commit refs/heads/side\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\ns\n", 5000+i, 1_700_010_000+i)
		if i == 1 {
			in.WriteString("from :4000\n")
		}
		fmt.Fprintf(&in, "M 644 inline s%d\ndata 2\n%d\n\n", i%3, i%4)
	}
	in.WriteString("commit refs/heads/main\ncommitter A <a@x> 1700020000 +0000\ndata 2\nm\nmerge :5300\n\n")
	bloomImport(t, dir, in.String())
	bloomGit(t, dir, "commit-graph", "write", "--reachable")
	rev := func(x string) string { return bloomGit(t, dir, "rev-parse", x) }
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TASKRESUME_TRACE", trace)
	check := func(what string, graphTrees bool) {
		t.Helper()
		os.Remove(trace)
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := r.LogRevs(context.Background(), []string{rev("main")}, []string{rev("main~4900")})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, l := range strings.Split(bloomGit(t, dir, "log", "--format=%H %T", "main", "^main~4900"), "\n") {
			c, tr, _ := strings.Cut(l, " ")
			want[c] = tr
		}
		if len(cs) != len(want) || len(cs) < 5000 {
			t.Fatalf("%s: %d commits, git lists %d", what, len(cs), len(want))
		}
		for _, c := range cs {
			if c.Tree != want[c.OID] {
				t.Fatalf("%s: %s has tree %q, git says %q", what, c.OID, c.Tree, want[c.OID])
			}
		}
		traced, _ := os.ReadFile(trace)
		if got := strings.Contains(string(traced), logFormatGraphTrees); got != graphTrees {
			t.Errorf("%s: trees from the graph %v, want %v:\n%s", what, got, graphTrees, traced)
		}
	}
	check("a graph", true)
	// A replaced commit in the range: git reads the replacement's tree.
	other := bloomGit(t, dir, "commit-tree", "-p", rev("main~101"), "-m", "replacement", rev("main~3000^{tree}"))
	bloomGit(t, dir, "replace", rev("main~100"), other)
	check("a replace ref", false)
	bloomGit(t, dir, "replace", "-d", rev("main~100"))
	check("the replace ref deleted", true)

	// Entries the graph did not hold get their trees from one log.
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	cs := []LogEntry{{OID: rev("main~7")}, {OID: rev("side~3")}}
	if err := r.fillTrees(context.Background(), cs, []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	if cs[0].Tree != rev("main~7^{tree}") || cs[1].Tree != rev("side~3^{tree}") {
		t.Errorf("fillTrees: %+v", cs)
	}
}

// The trees read from a split commit-graph are git's, in SHA-1 and
// SHA-256 repositories: from the chain's layers, and, once its base layer
// is gone, from one log for the commits only that layer held (a side line
// merged into the top layer's range). With replace refs not read
// (GIT_NO_REPLACE_OBJECTS) a replace ref leaves the graph's trees right.
func TestLogTreesFromASplitGraph(t *testing.T) {
	for _, hash := range []string{"sha1", "sha256"} {
		testbin.IsolateGit(t)
		dir := filepath.Join(t.TempDir(), "repo")
		bloomGit(t, filepath.Dir(dir), "init", "-q", "--object-format="+hash, "-b", "main", dir)
		var in strings.Builder
		for i := 1; i <= 3000; i++ {
			fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\ndata 2\nc\nM 644 inline f%d\ndata 2\n%d\n\n", i, 1_700_000_000+i, i%7, i%5)
		}
		for i := 1; i <= 50; i++ {
			fmt.Fprintf(&in, "commit refs/heads/side\ncommitter A <a@x> %d +0000\ndata 2\ns\n", 1_700_000_000+i)
			if i == 1 {
				in.WriteString("from :100\n")
			}
			fmt.Fprintf(&in, "M 644 inline s%d\ndata 2\n%d\n\n", i%3, i%4)
		}
		bloomImport(t, dir, in.String())
		bloomGit(t, dir, "commit-graph", "write", "--reachable", "--split=no-merge")
		in.Reset()
		for i := 3001; i <= 9000; i++ {
			fmt.Fprintf(&in, "commit refs/heads/main\ncommitter A <a@x> %d +0000\ndata 2\nc\n", 1_700_000_000+i)
			if i == 3001 {
				in.WriteString("from refs/heads/main^0\n")
			}
			fmt.Fprintf(&in, "M 644 inline f%d\ndata 2\n%d\n\n", i%7, i%5)
		}
		in.WriteString("commit refs/heads/main\ncommitter A <a@x> 1800000000 +0000\ndata 2\nm\nmerge refs/heads/side\n\n")
		bloomImport(t, dir, in.String())
		bloomGit(t, dir, "commit-graph", "write", "--reachable", "--split=no-merge")
		chain := strings.Fields(readFile(t, filepath.Join(dir, ".git/objects/info/commit-graphs/commit-graph-chain")))
		if len(chain) != 2 {
			t.Fatalf("%s: a chain of %d layers, want 2", hash, len(chain))
		}
		tip, base := bloomGit(t, dir, "rev-parse", "main"), bloomGit(t, dir, "rev-parse", "main~5000")
		trace := filepath.Join(t.TempDir(), "trace")
		t.Setenv("GIT_TASKRESUME_TRACE", trace)
		check := func(what string, fills bool) {
			t.Helper()
			os.Remove(trace)
			r, err := Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := r.LogRevs(context.Background(), []string{tip}, []string{base})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "log", "--format=%H %T", tip, "^"+base)
			cmd.Dir = dir
			out, err := cmd.Output() // stderr: git's own warning of a missing layer
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				c, tr, _ := strings.Cut(l, " ")
				want[c] = tr
			}
			if len(cs) != len(want) || len(cs) < 5000 {
				t.Fatalf("%s, %s: %d commits, git lists %d", hash, what, len(cs), len(want))
			}
			for _, c := range cs {
				if c.Tree != want[c.OID] {
					t.Fatalf("%s, %s: %s has tree %q, git says %q", hash, what, c.OID, c.Tree, want[c.OID])
				}
			}
			traced := readFile(t, trace)
			if !strings.Contains(traced, logFormatGraphTrees) {
				t.Errorf("%s, %s: trees not from the graph:\n%s", hash, what, traced)
			}
			if got := strings.Contains(traced, "--no-walk=unsorted --format=%H %T"); got != fills {
				t.Errorf("%s, %s: trees filled by a log %v, want %v:\n%s", hash, what, got, fills, traced)
			}
		}
		check("the chain", false)
		other := bloomGit(t, dir, "commit-tree", "-p", bloomGit(t, dir, "rev-parse", "main~101"), "-m", "replacement", bloomGit(t, dir, "rev-parse", "main~3000^{tree}"))
		bloomGit(t, dir, "replace", bloomGit(t, dir, "rev-parse", "main~100"), other)
		t.Setenv("GIT_NO_REPLACE_OBJECTS", "1")
		check("a replace ref not read", false)
		os.Unsetenv("GIT_NO_REPLACE_OBJECTS")
		bloomGit(t, dir, "replace", "-d", bloomGit(t, dir, "rev-parse", "main~100"))
		os.Remove(filepath.Join(dir, ".git/objects/info/commit-graphs/graph-"+chain[0]+".graph"))
		check("the base layer gone", true)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
