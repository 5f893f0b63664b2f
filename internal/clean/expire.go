package clean

import (
	"context"
	"fmt"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Expire deletes the run's saved cleans older than opts.ExpireBackups; a
// clean stays as long as a younger clean that continued it.
func Expire(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	if err := validRun(opts.Run); err != nil {
		return nil, err
	}
	if err := checkVersion(ctx, repo, opts); err != nil {
		return nil, err
	}
	var lock *Lock
	var err error
	if !opts.DryRun {
		if lock, err = Acquire(repo.CommonDir, opts.Run); err != nil {
			return nil, err
		}
		defer lock.Release()
	}
	all, err := readBackups(ctx, repo, opts.Run)
	if err != nil {
		return nil, err
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}}
	keep := map[string]bool{}
	if lock != nil && lock.Interrupted != "" {
		// A clean that died may have folders awaiting deletion whose only
		// copy is this save: it stays until a rerun finishes that clean.
		keep[lock.Interrupted] = true
	}
	for _, b := range all {
		if opts.Now.Sub(b.Time) < opts.ExpireBackups {
			keep[b.Stamp] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range all {
			for _, c := range b.Continues {
				if keep[b.Stamp] && !keep[c] {
					keep[c], changed = true, true
				}
			}
		}
	}
	var dels []gitcmd.RefUpdate
	for _, b := range all {
		if keep[b.Stamp] {
			continue
		}
		for _, it := range b.Saves {
			dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: it.Ref, Old: it.Commit})
			res.Actions = append(res.Actions, &Action{Op: OpExpireBackup, Ref: it.Ref, Commit: it.Commit, Path: it.Path, Branch: it.Branch, Done: !opts.DryRun})
		}
		for _, c := range b.Continues {
			ref := BackupRoot + opts.Run + "/" + b.Stamp + "/continues/" + c
			dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: ref})
			res.Actions = append(res.Actions, &Action{Op: OpExpireBackup, Ref: ref, Done: !opts.DryRun})
		}
	}
	if !opts.DryRun && len(dels) > 0 {
		if err := repo.UpdateRefs(ctx, dels); err != nil {
			return nil, fmt.Errorf("expire backups: %w", err)
		}
	}
	return res, nil
}
