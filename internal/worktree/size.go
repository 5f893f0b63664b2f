package worktree

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// DiskUsage is what a directory's files take on disk, as du counts it:
// the blocks of each file, directory and link under dir, each inode once,
// symbolic links never followed. A file with other hard links outside dir
// (a package manager's shared store) is counted but not freed by deleting
// dir. Unreadable entries are skipped; the error says the count is short.
func DiskUsage(dir string) (int64, error) {
	seen := map[[2]uint64]bool{}
	var total int64
	var first error
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if first == nil {
				first = err
			}
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			if first == nil {
				first = err
			}
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		if st.Nlink > 1 {
			key := [2]uint64{uint64(st.Dev), uint64(st.Ino)}
			if seen[key] {
				return nil
			}
			seen[key] = true
		}
		total += int64(st.Blocks) * 512
		return nil
	})
	if err == nil {
		err = first
	}
	return total, err
}
