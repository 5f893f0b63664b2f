package worktree

import (
	"os"
	"path/filepath"
)

// NestedRepos lists the directories inside a worktree that hold a git
// repository of their own (a .git file or directory below the top),
// ignored ones included: a save cannot capture their history, so a worktree
// holding one is never removed. Symbolic links are not followed.
func NestedRepos(path string) []string {
	var found []string
	filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == path {
			return nil
		}
		if d.Name() == ".git" {
			if filepath.Dir(p) != path {
				rel, _ := filepath.Rel(path, filepath.Dir(p))
				found = append(found, rel+"/")
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return found
}
