package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Identity is used for the commits that hold saved work: they are records
// made by the tool, and a CI machine may have no user.name at all.
var Identity = []string{
	"GIT_AUTHOR_NAME=git-taskclean", "GIT_AUTHOR_EMAIL=git-taskclean@localhost",
	"GIT_COMMITTER_NAME=git-taskclean", "GIT_COMMITTER_EMAIL=git-taskclean@localhost",
}

// Snapshot is the saved state of a worktree: one commit whose first parent
// is the worktree's HEAD. When there was uncommitted work it has the shape of
// a `git stash` entry (parents HEAD, index, and untracked files when there
// were any), so `git stash apply --index` brings back exactly what was
// staged, unstaged and untracked.
type Snapshot struct {
	Path   string
	Head   string
	Commit string
	// Stash is true when Commit is stash-shaped (there was uncommitted work).
	Stash bool
	// Tree is the tree of Commit when Stash (the working tree's state).
	Tree string
	// Unsaved lists untracked entries git cannot add as files (embedded
	// repositories); they are reported, and the worktree is not removed.
	Unsaved []string
}

// GitDirOf reads the worktree's .git file to find its private git directory
// (index, HEAD), without starting git.
func GitDirOf(path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(data))
	if !strings.HasPrefix(s, "gitdir: ") {
		return "", fmt.Errorf("%s/.git is not a gitdir file", path)
	}
	dir := strings.TrimPrefix(s, "gitdir: ")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(path, dir)
	}
	return dir, nil
}

// Save commits a worktree's uncommitted work without touching its index or
// files: the index is copied, and the copies are what git adds to. tmpDir
// must be on the repository's filesystem and is used for the index copies.
// dirty says whether there is uncommitted work to save; when false, the
// snapshot only records HEAD (which keeps commits on a detached HEAD
// reachable).
//
// untracked, when not nil, is the list of untracked files to keep, as the
// worktree's status just gave it (saving a git process); nil lists them.
func Save(ctx context.Context, repo *gitcmd.Repo, path, head, tmpDir string, dirty bool, msg string, untracked []string) (*Snapshot, error) {
	// Objects are written from the repository, so that a worktree whose
	// directory is gone can still have its HEAD recorded; only the dirty
	// case reads the worktree's files.
	r := gitcmd.Runner{Dir: path, Worktree: true}
	if !dirty {
		r = repo.Runner
	}
	snap := &Snapshot{Path: path, Head: head}
	commit := func(tree string, parents []string, m string) (string, error) {
		args := []string{"commit-tree", tree, "-m", m}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		out, err := r.RunEnv(ctx, Identity, nil, args...)
		return strings.TrimSpace(string(out)), err
	}
	var headParents []string
	if head != "" {
		headParents = []string{head}
	}
	if !dirty {
		c, err := commit(head+"^{tree}", headParents, msg)
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", path, err)
		}
		snap.Commit = c
		return snap, nil
	}

	gd, err := GitDirOf(path)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	tmp, err := os.MkdirTemp(tmpDir, "taskclean-index-")
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	idx := filepath.Join(tmp, "index")
	if err := copyFile(filepath.Join(gd, "index"), idx); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("save %s: copy index: %w", path, err)
	}
	withIdx := func(file string) []string { return []string{"GIT_INDEX_FILE=" + file} }

	out, err := r.RunEnv(ctx, withIdx(idx), nil, "write-tree")
	if err != nil {
		return nil, fmt.Errorf("save %s: index tree: %w", path, err)
	}
	indexTree := strings.TrimSpace(string(out))
	if _, err := r.RunEnv(ctx, withIdx(idx), nil, "add", "--update", "--", "."); err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	out, err = r.RunEnv(ctx, withIdx(idx), nil, "write-tree")
	if err != nil {
		return nil, fmt.Errorf("save %s: worktree tree: %w", path, err)
	}
	workTree := strings.TrimSpace(string(out))

	// Untracked files that are not ignored go into a third tree, as
	// `git stash -u` does.
	if untracked == nil {
		out, err = r.RunEnv(ctx, withIdx(idx), nil, "ls-files", "-z", "--others", "--exclude-standard")
		if err != nil {
			return nil, fmt.Errorf("save %s: list untracked: %w", path, err)
		}
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				untracked = append(untracked, string(f))
			}
		}
	}
	var files []string
	for _, f := range untracked {
		if strings.HasSuffix(f, "/") { // an embedded repository
			snap.Unsaved = append(snap.Unsaved, f)
			continue
		}
		files = append(files, f)
	}
	untrackedCommit := ""
	if len(files) > 0 {
		uidx := filepath.Join(tmp, "untracked")
		in := []byte(strings.Join(files, "\x00") + "\x00")
		if _, err := r.RunEnv(ctx, withIdx(uidx), in, "update-index", "--add", "-z", "--stdin"); err != nil {
			return nil, fmt.Errorf("save %s: add untracked: %w", path, err)
		}
		out, err = r.RunEnv(ctx, withIdx(uidx), nil, "write-tree")
		if err != nil {
			return nil, fmt.Errorf("save %s: untracked tree: %w", path, err)
		}
		untrackedCommit, err = commit(strings.TrimSpace(string(out)), nil, "untracked files on "+msg)
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", path, err)
		}
	}
	indexCommit, err := commit(indexTree, headParents, "index on "+msg)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	parents := append(append([]string(nil), headParents...), indexCommit)
	if untrackedCommit != "" {
		parents = append(parents, untrackedCommit)
	}
	snap.Tree = workTree
	snap.Commit, err = commit(workTree, parents, msg)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	snap.Stash = true
	return snap, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Remove removes a registered worktree, directory included, through git
// (which also drops its admin entry, and copes with a missing directory).
// force is needed when uncommitted work was saved; without it git itself
// refuses to remove a worktree that changed since we looked.
func Remove(ctx context.Context, repo *gitcmd.Repo, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	args = append(args, path)
	r := repo.Runner
	r.Write = true
	if _, err := r.Run(ctx, args...); err != nil {
		return fmt.Errorf("remove worktree %s: %w", path, err)
	}
	return nil
}

// PruneEntry removes the admin entry (<common dir>/worktrees/<id>) that
// registers path, and nothing else: the directory git lost track of, or the
// place a damaged entry names, is never touched. It is what `git worktree
// prune` does, for one entry only (prune itself would take other runs'
// entries too).
func PruneEntry(commonDir, path string) error {
	admin := filepath.Join(commonDir, "worktrees")
	entries, err := os.ReadDir(admin)
	if err != nil {
		return err
	}
	for _, e := range entries {
		dir := filepath.Join(admin, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "gitdir"))
		if err != nil {
			continue
		}
		raw := strings.TrimRight(string(data), "\r\n")
		named := strings.TrimSuffix(raw, "/.git")
		if named == path || filepath.Join(dir, named) == path || strings.TrimSuffix(filepath.Join(dir, raw), "/.git") == path {
			return os.RemoveAll(dir)
		}
	}
	return fmt.Errorf("no admin entry registers %s", path)
}

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

// ErrChanged means the worktree changed after the given time and was left.
var ErrChanged = errors.New("changed since it was saved")

// RemoveSaved removes a worktree whose work was saved at since, and only if
// nothing in it is newer than that. The directory is first renamed aside
// (atomic, same parent): from then on a write by path fails instead of
// landing in a directory about to go, and a write through an open handle
// shows in the check that follows. Unchanged, it is deleted here (symbolic
// links are not followed) and its admin entry dropped; changed, it is put
// back and ErrChanged returned. A rename that fails (another file system)
// returns an error, and the caller falls back to git.
func RemoveSaved(commonDir, path string, since time.Time) error {
	aside := path + ".taskclean-removing"
	if err := os.Rename(path, aside); err != nil {
		return err
	}
	if LastChange(aside).After(since) {
		if err := os.Rename(aside, path); err != nil {
			return fmt.Errorf("put back %s: %w (its files are in %s)", path, err, aside)
		}
		return ErrChanged
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("remove %s: %w", aside, err)
	}
	return PruneEntry(commonDir, path)
}
