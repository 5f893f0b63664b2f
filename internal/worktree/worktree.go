// Package worktree lists the linked worktrees git has registered, tells what
// state each is in, and (for git-taskclean) saves and removes them.
package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Worktree is one entry of `git worktree list --porcelain -z`.
type Worktree struct {
	Path     string
	HEAD     string // commit id; empty in a repository with no commit yet
	Branch   string // full ref name, "" when detached or bare
	Detached bool
	Bare     bool
	Locked   bool
	// LockReason is the text given to `git worktree lock --reason`.
	LockReason string
	// Prunable is set by git when the worktree's directory is gone.
	Prunable       bool
	PrunableReason string
	// Main is the first entry: the main worktree (or the bare repository).
	Main bool
}

// Name is the base name of the worktree directory.
func (w *Worktree) Name() string { return filepath.Base(w.Path) }

// BranchShort is the branch name without refs/heads/.
func (w *Worktree) BranchShort() string { return strings.TrimPrefix(w.Branch, "refs/heads/") }

// List returns every worktree of the repository.
func List(ctx context.Context, repo *gitcmd.Repo) ([]*Worktree, error) {
	out, err := repo.Run(ctx, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	return Parse(out)
}

// Parse parses `git worktree list --porcelain -z`: NUL-terminated
// "key value" attributes, an empty attribute between worktrees. With -z a
// path may hold any byte but NUL, newlines included.
func Parse(out []byte) ([]*Worktree, error) {
	var wts []*Worktree
	var cur *Worktree
	for _, attr := range bytes.Split(out, []byte{0}) {
		if len(attr) == 0 {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(string(attr), " ")
		if key == "worktree" {
			cur = &Worktree{Path: val, Main: len(wts) == 0}
			wts = append(wts, cur)
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("worktree list: attribute %q before any worktree", key)
		}
		switch key {
		case "HEAD":
			// An unborn branch shows as the all-zero id; it names no commit.
			if strings.Trim(val, "0") != "" {
				cur.HEAD = val
			}
		case "branch":
			cur.Branch = val
		case "detached":
			cur.Detached = true
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked = true
			cur.LockReason = val
		case "prunable":
			cur.Prunable = true
			cur.PrunableReason = val
		}
	}
	return wts, nil
}

// State is the condition of a task's worktree, as the report shows it.
type State string

// The states of a worktree. A worktree may be several at once (locked and
// dirty); Classify picks the one that matters most to a resumer.
const (
	Clean    State = "clean"
	Dirty    State = "dirty"
	Missing  State = "missing" // directory gone; `git worktree prune` material
	Locked   State = "locked"
	Orphaned State = "detached_with_commits"
)

// Status is what a worktree holds that git would lose on removal.
type Status struct {
	Staged, Unstaged, Untracked int
	// Err is set when status could not be read (unreadable directory).
	Err error
}

// Dirty reports whether anything is uncommitted.
func (s Status) Dirty() bool { return s.Staged+s.Unstaged+s.Untracked > 0 }

// ReadStatus runs `git status --porcelain=v2 -z` in each directory, a few at
// a time, and counts what is uncommitted. One process per worktree is the
// least git needs: dirtiness is a property of each working tree.
func ReadStatus(ctx context.Context, paths []string) map[string]Status {
	st, _ := ReadStatusFiles(ctx, paths, false)
	return st
}

// Files names what a worktree holds outside its commits: untracked files
// that are not ignored (what a save keeps) and ignored ones (what a removal
// deletes unsaved; a wholly ignored directory is one entry ending in "/").
type Files struct {
	Untracked []string
	Ignored   []string
}

// ReadStatusFiles is ReadStatus that also lists the untracked files and,
// when ignored is set, the ignored ones, from the same git process.
func ReadStatusFiles(ctx context.Context, paths []string, ignored bool) (map[string]Status, map[string]Files) {
	res := make(map[string]Status, len(paths))
	files := make(map[string]Files, len(paths))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, p := range paths {
		wg.Add(1)
		go func(p string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st, fl := statusOf(ctx, p, ignored)
			mu.Lock()
			res[p], files[p] = st, fl
			mu.Unlock()
		}(p)
	}
	wg.Wait()
	return res, files
}

func statusOf(ctx context.Context, path string, ignored bool) (Status, Files) {
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return Status{Err: fmt.Errorf("worktree %s is not a directory", path)}, Files{}
	}
	// "matching" shows an ignored directory as one entry instead of every
	// file under it (node_modules/ stays one line).
	mode := "--ignored=no"
	if ignored {
		mode = "--ignored=matching"
	}
	// --ignore-submodules=none: a submodule set to "ignore = all" in
	// .gitmodules can still hold an agent's unfinished commits or edits.
	out, err := gitcmd.Runner{Dir: path, Worktree: true}.Run(ctx, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", mode)
	if err != nil {
		return Status{Err: err}, Files{}
	}
	return ParseStatus(out), ParseStatusFiles(out)
}

// ParseStatusFiles lists the untracked ("?") and ignored ("!") entries of
// `git status --porcelain=v2 -z`.
func ParseStatusFiles(out []byte) Files {
	var f Files
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) >= 2 && r[0] == '2' {
			i++ // a rename record is followed by the original path (as ParseStatus reads it)
			continue
		}
		if len(r) < 3 {
			continue
		}
		switch r[0] {
		case '?':
			f.Untracked = append(f.Untracked, string(r[2:]))
		case '!':
			f.Ignored = append(f.Ignored, string(r[2:]))
		}
	}
	return f
}

// ParseStatus counts entries of `git status --porcelain=v2 -z`.
func ParseStatus(out []byte) Status {
	var st Status
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 2 {
			continue
		}
		switch r[0] {
		case '?':
			st.Untracked++
		case '1', '2', 'u':
			// "1 XY ..." : X is the staged state, Y the unstaged one.
			if len(r) >= 4 {
				if r[2] != '.' {
					st.Staged++
				}
				if r[3] != '.' {
					st.Unstaged++
				}
			}
			if r[0] == '2' {
				i++ // a rename record is followed by the original path
			}
		}
	}
	return st
}

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
