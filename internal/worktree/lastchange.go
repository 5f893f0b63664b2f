package worktree

import (
	"os"
	"path/filepath"
	"time"
)

// LastChange is the newest of a worktree's HEAD, index and file times
// (directories included, so a new file shows in its directory's time): an
// agent that is still working touches at least one of them. Symbolic links
// are not followed.
func LastChange(path string) time.Time {
	var newest time.Time
	see := func(t time.Time) {
		if t.After(newest) {
			newest = t
		}
	}
	if gd, err := GitDirOf(path); err == nil {
		for _, f := range []string{"HEAD", "index"} {
			if fi, err := os.Stat(filepath.Join(gd, f)); err == nil {
				see(fi.ModTime())
			}
		}
	}
	filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" && p != path && d.IsDir() {
			return filepath.SkipDir
		}
		if fi, err := d.Info(); err == nil {
			see(fi.ModTime())
		}
		return nil
	})
	return newest
}
