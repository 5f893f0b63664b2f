package worktree

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// This file reads what a worktree holds uncommitted, from `git status
// --porcelain=v2 -z`.

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
