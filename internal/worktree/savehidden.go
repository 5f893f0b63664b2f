package worktree

import (
	"os"
	"path/filepath"
	"strings"
)

// clearHidden clears, in the index copy, the marks that hide edits
// (assume-unchanged, skip-worktree) on files that are there, so that the
// status and the trees see those edits and save them (a skip-worktree file
// that is absent is a sparse checkout's, not an edit). While it reads the
// index it notes whether a .gitattributes file is among its entries. A
// step of its own: it changes the copy before the status reads it.
func (s *saver) clearHidden() error {
	// The entries writeIndexWhole read (none when there is no index).
	entries, err := s.snap.Index.Entries, s.snap.Index.Err
	var hidden []string
	switch {
	case err == nil:
		hidden = s.hiddenInEntries(entries)
	default:
		s.attrsKnown = false
		if hidden, err = s.hiddenByGit(); err != nil {
			return s.fail("list index", err)
		}
	}
	if len(hidden) > 0 {
		if err := clearMarks(s.git, s.idx, hidden); err != nil {
			return s.fail("clear hidden marks", err)
		}
		s.snap.Hidden = len(hidden)
	}
	return nil
}

// hiddenInEntries returns the marked entries whose files are there, of an
// index read here, and notes any .gitattributes entry.
func (s *saver) hiddenInEntries(entries []IndexEntry) []string {
	var hidden []string
	for _, e := range entries {
		s.attrsIn = s.attrsIn || isAttrFile(e.Path)
		if !e.AssumeUnchanged && !e.SkipWorktree {
			continue
		}
		if s.onDisk(e.Path) {
			hidden = append(hidden, e.Path)
		}
	}
	return hidden
}

// hiddenByGit returns the marked entries whose files are there, of an
// index we cannot read ourselves: git says which entries are marked
// (ls-files -v: lower case is assume-unchanged, S is skip-worktree).
func (s *saver) hiddenByGit() ([]string, error) {
	out, err := s.git(s.idx, nil, "ls-files", "-z", "-v")
	if err != nil {
		return nil, err
	}
	var hidden []string
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) < 3 {
			continue
		}
		tag, path := rec[0], rec[2:]
		if tag == 'S' || tag >= 'a' && tag <= 'z' {
			if s.onDisk(path) {
				hidden = append(hidden, path)
			}
		}
	}
	return hidden, nil
}

// onDisk says whether the worktree has something at the index path p.
func (s *saver) onDisk(p string) bool {
	_, err := os.Lstat(filepath.Join(s.in.Dir, filepath.FromSlash(p)))
	return err == nil
}

// clearMarks clears assume-unchanged and skip-worktree on paths of an
// index. Two calls: update-index applies only one such option to the paths
// it reads from stdin.
func clearMarks(run func(string, []byte, ...string) (string, error), idx string, paths []string) error {
	in := []byte(strings.Join(paths, "\x00") + "\x00")
	for _, opt := range []string{"--no-assume-unchanged", "--no-skip-worktree"} {
		if _, err := run(idx, in, "update-index", opt, "-z", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}
