package resume

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// stashEntry is one entry of the stash: stash@{n}, the commit it was made
// on, and its message.
type stashEntry struct {
	n           int
	parent, msg string
}

// readStashes reads the stash's reflog as a file (stash@{0} is its last
// line) and each entry's first parent through the object reader: no git
// process. Without a reader, or a stash, there are none.
func readStashes(commonDir string, objs *gitcmd.Objects) ([]stashEntry, error) {
	if objs == nil {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(commonDir, "logs", "refs", "stash"))
	if err != nil {
		return nil, nil
	}
	var entries []reflogEntry
	for _, line := range strings.Split(string(data), "\n") {
		if e, ok := parseReflogLine(line); ok {
			entries = append(entries, e)
		}
	}
	var out []stashEntry
	for i := len(entries) - 1; i >= 0; i-- {
		c, ok, err := objs.Commit(entries[i].new)
		if err != nil {
			return nil, err
		}
		if ok && len(c.Parents) > 0 {
			out = append(out, stashEntry{n: len(entries) - 1 - i, parent: c.Parents[0], msg: entries[i].msg})
		}
	}
	return out, nil
}
