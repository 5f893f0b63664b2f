package worktree

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

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
