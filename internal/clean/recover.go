package clean

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// recoverLeftovers finishes or undoes what an interrupted clean of run left,
// so that a rerun after a crash at any point works. It runs holding the
// run's lock, so no other clean of the run is live; it touches only what
// provably belongs to a clean of this run:
//   - a directory renamed aside but not yet deleted goes back to its place
//     (its save may not be recorded; the rerun saves it again);
//   - a directory renamed to its deleting name is deleted (it is only
//     renamed so after its save is recorded), and its entry dropped;
//   - the mark that locked an entry is removed;
//   - git lock files its interrupted ref transaction recorded and left;
//   - the aliases an interrupted --undo restored as plain branches and
//     had not yet made symbolic refs again (finishAliases);
//   - its temporary folders.
func recoverLeftovers(ctx context.Context, repo *gitcmd.Repo, run string, lock *Lock) ([]*Action, error) {
	acts, _, err := recoverChanged(ctx, repo, run, lock)
	return acts, err
}

// recoverChanged is recoverLeftovers that also says whether it changed
// anything a read of the run's state sees (a worktree's directory, its
// admin entry or its lock mark): a clean that read the state before
// recovering reads it again then.
func recoverChanged(ctx context.Context, repo *gitcmd.Repo, run string, lock *Lock) ([]*Action, bool, error) {
	var acts []*Action
	var recorded recordedSaves
	changed := false
	note := func(path, what string) {
		changed = true
		acts = append(acts, &Action{Op: OpRecover, Path: path, Reason: what, Done: true})
	}
	// Temporary folders of dead cleans of this run (and, by age, of the
	// versions that named them without the run).
	if entries, err := os.ReadDir(repo.CommonDir); err == nil {
		for _, e := range entries {
			n := e.Name()
			p := filepath.Join(repo.CommonDir, n)
			switch {
			case strings.HasPrefix(n, tmpPrefix(run)) && e.IsDir():
				os.RemoveAll(p)
			case strings.HasPrefix(n, "taskclean-index-") && e.IsDir():
				if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
					os.RemoveAll(p)
				}
			}
		}
	}
	if own, record := staleTxnLocks(repo.CommonDir, run); record != "" {
		for _, p := range own {
			if err := os.Remove(p); err == nil {
				note(p, "removed the lock file an interrupted clean left")
			}
		}
		os.Remove(record)
	}
	// After the stale locks: one on an alias's ref would fail symbolic-ref.
	if fin, err := finishAliases(ctx, repo, run); len(fin) > 0 || err != nil {
		changed = true
		acts = append(acts, fin...)
		if err != nil {
			return acts, true, err
		}
	}
	for path, admin := range worktree.AdminDirs(repo.CommonDir) {
		if os.Remove(markTemp(admin, run)) == nil {
			changed = true
		}
		lockFile := filepath.Join(admin, "locked")
		data, err := os.ReadFile(lockFile)
		if err != nil || !ownLock(data, run) {
			continue
		}
		_, statErr := os.Lstat(path)
		missing := errors.Is(statErr, os.ErrNotExist)
		if !missing {
			if _, err := os.Lstat(path + asideSuffix); err == nil {
				// Something new was made at the path while the worktree was
				// aside: neither is ours to move or delete. The entry keeps
				// the clean's mark, so no clean touches it until a person
				// has looked.
				changed = true
				acts = append(acts, &Action{Op: OpSkipWorktree, Path: path, Reason: "an interrupted clean moved it to " + path + asideSuffix +
					" and something new is now at " + path + "; both are left as they are: move one away, rename the other back, then unlock with git worktree unlock " + ui.ShellQuote(path)})
				continue
			}
			if _, err := os.Lstat(path + deletingSuffix); err == nil {
				// Saved and recorded before it was renamed so: finish.
				if err := os.RemoveAll(path + deletingSuffix); err != nil {
					return acts, true, errors.New("finish removing " + path + deletingSuffix + ": " + shortErr(err))
				}
				note(path+deletingSuffix, "finished removing it (its save is recorded)")
			}
		}
		if missing {
			if _, err := os.Lstat(path + asideSuffix); err == nil {
				if err := os.Rename(path+asideSuffix, path); err != nil {
					return acts, true, errors.New("put back " + path + " from " + path + asideSuffix + ": " + shortErr(err))
				}
				note(path, "put back from "+path+asideSuffix+" (an interrupted clean had moved it)")
				missing = false
			}
		}
		if missing {
			_, err := os.Lstat(path + deletingSuffix)
			deleting := err == nil
			if deleting {
				// Renamed so only after its save was recorded.
				if err := os.RemoveAll(path + deletingSuffix); err != nil {
					return acts, true, errors.New("finish removing " + path + deletingSuffix + ": " + shortErr(err))
				}
			}
			// Or deleted whole before the clean died, its entry not yet
			// dropped: what is left (HEAD and index) must not be saved
			// again, or that save, newer, would stand before the recorded
			// one in --undo and --restore.
			if deleting || recorded.has(ctx, repo, run, lock, path) {
				if err := worktree.PruneEntry(repo.CommonDir, path); err != nil {
					return acts, true, err
				}
				note(path, "finished removing it (its save is recorded)")
				continue
			}
		}
		if os.Remove(lockFile) == nil {
			changed = true
		}
	}
	return acts, changed, nil
}

// recordedSaves answers, reading the saves once and only when asked,
// whether the interrupted clean recorded a save of a worktree's path.
type recordedSaves struct {
	read  bool
	paths map[string]bool
}

func (r *recordedSaves) has(ctx context.Context, repo *gitcmd.Repo, run string, lock *Lock, path string) bool {
	if lock == nil || lock.Interrupted == "" {
		return false
	}
	if !r.read {
		r.read, r.paths = true, map[string]bool{}
		bs, err := readBackups(ctx, repo, run)
		if err != nil {
			return false // unknown: the worktree is saved again, as before
		}
		for _, b := range bs {
			if b.Stamp != lock.Interrupted {
				continue
			}
			for _, it := range b.Saves {
				if it.Kind == SavedWorktree {
					r.paths[filepath.Clean(it.Path)] = true
				}
			}
		}
	}
	return r.paths[filepath.Clean(path)]
}
