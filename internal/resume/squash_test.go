package resume

import (
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// The landed changes searched beside the walk, with the paths the tips
// change against the base, stand for the exact search only when every
// path of the tasks' own changes was among them: a task that puts back a
// file its branch's start had changed leaves that file out of the tip's
// change against the base, and the search must run again.
func TestSquashPathsCovered(t *testing.T) {
	changes := gitcmd.Changes{
		"tip1": "100644 aaaa src/a.go\n100644 bbbb src/b.go",
		"tip2": "000000 0000 docs/old.md",
	}
	paths, covered := squashPaths(changes, map[string]bool{"src/a.go": true, "src/b.go": true, "docs/old.md": true, "x": true})
	if !covered || len(paths) != 3 || !paths["docs/old.md"] {
		t.Errorf("all guessed: paths %v, covered %v; want the 3 paths, covered", paths, covered)
	}
	if _, covered := squashPaths(changes, map[string]bool{"src/a.go": true, "src/b.go": true}); covered {
		t.Error("docs/old.md was not guessed, yet covered")
	}
	if _, covered := squashPaths(changes, nil); covered {
		t.Error("nothing guessed (too many tips), yet covered")
	}
	if paths, covered := squashPaths(nil, map[string]bool{}); !covered || len(paths) != 0 {
		t.Errorf("no task changes: paths %v, covered %v; want none, covered", paths, covered)
	}
}

// allHoldStart answers from the history in hand whether every branch holds
// the commit that added the plan; where it cannot show it, git is asked.
func TestAllHoldStart(t *testing.T) {
	e := func(oid string, parents ...string) gitcmd.LogEntry {
		return gitcmd.LogEntry{OID: oid, Parents: parents}
	}
	b := func(oid string) branches.Branch { return branches.Branch{Name: "t-" + oid, OID: oid} }
	// The base's commits since start S (S included): S <- a <- m, where m
	// also merges x, a side commit made before S (its parent P is S's).
	landed := []gitcmd.LogEntry{e("m", "a", "x"), e("a", "S"), e("x", "P"), e("S", "P")}
	for _, c := range []struct {
		name string
		walk []gitcmd.LogEntry
		bs   []branches.Branch
		want bool
	}{
		{"left at start", []gitcmd.LogEntry{e("t1", "S")}, []branches.Branch{b("t1")}, true},
		{"left after start", []gitcmd.LogEntry{e("t1", "a"), e("t2", "m")}, []branches.Branch{b("t1"), b("t2")}, true},
		{"a tip on the base, after start", nil, []branches.Branch{b("a")}, true},
		{"left at a side commit made before start", []gitcmd.LogEntry{e("t1", "x")}, []branches.Branch{b("t1")}, false},
		{"left before start", []gitcmd.LogEntry{e("t1", "P")}, []branches.Branch{b("t1")}, false},
		{"a tip the history read does not hold", nil, []branches.Branch{b("zz")}, false},
		{"one of two left before start", []gitcmd.LogEntry{e("t1", "a"), e("t2", "t3"), e("t3", "P")}, []branches.Branch{b("t1"), b("t2")}, false},
	} {
		if got := allHoldStart(c.walk, c.bs, "S", landed); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
