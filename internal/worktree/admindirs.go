package worktree

import (
	"os"
	"path/filepath"
	"strings"
)

// This file finds the admin entry (<common dir>/worktrees/<id>) that
// registers a linked worktree.

// AdminDirOf finds a linked worktree's admin entry from the worktree
// itself: the entry its .git file names, when that entry is one of
// commonDir's and records this path (what AdminDirs would map it to). ok
// is false when the worktree cannot say (no .git file, a symbolic link,
// an entry elsewhere or recording another path): AdminDirs then reads
// every entry. One entry read, not all of them: a repository may hold
// thousands of worktrees.
func AdminDirOf(commonDir, path string) (string, bool) {
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", false
	}
	named, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(named) {
		named = filepath.Join(path, named)
	}
	admin := filepath.Join(commonDir, "worktrees")
	if filepath.Dir(filepath.Clean(named)) != filepath.Clean(admin) {
		return "", false
	}
	dir := filepath.Join(admin, filepath.Base(named))
	rec, err := os.ReadFile(filepath.Join(dir, "gitdir"))
	if err != nil {
		return "", false
	}
	for _, p := range recordedPaths(dir, strings.TrimRight(string(rec), "\r\n")) {
		if p == filepath.Clean(path) {
			return dir, true
		}
	}
	return "", false
}

// recordedPaths are the paths an entry's gitdir file records: as written
// (git lists a damaged entry so) and, when relative, as it resolves from
// the entry.
func recordedPaths(dir, raw string) []string {
	out := []string{filepath.Clean(strings.TrimSuffix(raw, "/.git"))}
	if !filepath.IsAbs(raw) {
		out = append(out, filepath.Clean(strings.TrimSuffix(filepath.Join(dir, raw), "/.git")))
	}
	return out
}

// AdminDirs maps each linked worktree's path, as its admin entry records
// it, to that entry (<common dir>/worktrees/<id>). A worktree whose
// directory is gone or was moved is still found: the entry is what holds
// its HEAD, index and per-worktree refs.
func AdminDirs(commonDir string) map[string]string {
	res := map[string]string{}
	admin := filepath.Join(commonDir, "worktrees")
	entries, err := os.ReadDir(admin)
	if err != nil {
		return res
	}
	for _, e := range entries {
		dir := filepath.Join(admin, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "gitdir"))
		if err != nil {
			continue
		}
		for _, p := range recordedPaths(dir, strings.TrimRight(string(data), "\r\n")) {
			res[p] = dir
		}
	}
	return res
}
