package gitcmd

import (
	"context"
	"fmt"
	"os"
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
