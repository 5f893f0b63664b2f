package resume

import (
	"testing"

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
