package worktree

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LastChange is the newest time anything in a worktree, or in its admin
// entry, was written: an agent that is still working changes at least one
// of them. Each file counts by the later of its modification time and its
// change time (ctime). A writer that keeps old modification times (`cp -p`,
// `rsync -a`, `tar x`, `touch -d`) cannot keep old change times: the system
// sets ctime to now on every write, rename, chmod or time change, and no
// call sets it back. Directories count the same way (a new or removed file
// shows in its directory), except the worktree's root's own ctime: the
// clean's crash recovery renames the root aside and back, which sets it.
// Symbolic links are not followed. adminDir is the worktree's entry under
// <common dir>/worktrees/ ("" reads it from the worktree's .git file).
// refFiles are files of the common directory that the worktree's work
// writes: its branch's loose ref and reflog (a commit made with plumbing,
// in a repository that keeps no reflogs, writes nothing else).
func LastChange(path, adminDir string, refFiles ...string) time.Time {
	var newest time.Time
	see := func(fi fs.FileInfo, ctime bool) {
		if t := fi.ModTime(); t.After(newest) {
			newest = t
		}
		if !ctime {
			return
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			_, _, cs, cn := statTimes(st)
			if t := time.Unix(cs, cn); t.After(newest) {
				newest = t
			}
		}
	}
	if adminDir == "" {
		adminDir, _ = GitDirOf(path)
	}
	if adminDir != "" {
		walkAdmin(adminDir, func(fi fs.FileInfo) { see(fi, true) })
	}
	for _, f := range refFiles {
		if fi, err := os.Lstat(f); err == nil {
			see(fi, true)
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
			see(fi, p != path)
		}
		return nil
	})
	return newest
}

// walkAdmin calls f for every file of a worktree's admin entry that git
// writes while the worktree is in use: HEAD, index, logs/HEAD, ORIG_HEAD,
// a stopped rebase's or merge's files, per-worktree refs. Directories are
// left out (a file made in one has its own times), and so are the files
// only worktree bookkeeping writes: gitdir and commondir (which `git
// worktree repair` or a move rewrites), `locked` and the clean's own marks
// (which the clean writes and removes itself).
func walkAdmin(dir string, f func(fs.FileInfo)) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		top := filepath.Dir(p) == filepath.Clean(dir)
		if d.IsDir() {
			if top && d.Name() == "modules" {
				// Submodule repositories: such a worktree is never
				// selected, and they may be large.
				return filepath.SkipDir
			}
			return nil
		}
		if top {
			switch n := d.Name(); {
			case n == "gitdir" || n == "commondir" || n == "locked" || strings.HasPrefix(n, "taskclean-"):
				return nil
			}
		}
		if fi, err := d.Info(); err == nil {
			f(fi)
		}
		return nil
	})
}
