package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PruneEntry removes the admin entry (<common dir>/worktrees/<id>) that
// registers path, and nothing else: the directory git lost track of, or the
// place a damaged entry names, is never touched. It is what `git worktree
// prune` does, for one entry only (prune itself would take other runs'
// entries too).
func PruneEntry(commonDir, path string) error {
	if dir, ok := AdminDirs(commonDir)[filepath.Clean(path)]; ok {
		return os.RemoveAll(dir)
	}
	return fmt.Errorf("no admin entry registers %s", path)
}

// PruneEntryAt is PruneEntry for a caller that knows the entry: adminDir
// is removed when it still registers path (one read, where PruneEntry reads
// every entry of the repository); otherwise PruneEntry looks.
func PruneEntryAt(commonDir, path, adminDir string) error {
	if adminDir != "" && filepath.Dir(adminDir) == filepath.Join(commonDir, "worktrees") {
		if data, err := os.ReadFile(filepath.Join(adminDir, "gitdir")); err == nil {
			for _, p := range recordedPaths(adminDir, strings.TrimRight(string(data), "\r\n")) {
				if p == filepath.Clean(path) {
					return os.RemoveAll(adminDir)
				}
			}
		}
	}
	return PruneEntry(commonDir, path)
}
