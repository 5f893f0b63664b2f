package clean

import (
	"context"
	"fmt"
	"sort"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Undo restores the branches a clean of the run deleted (the last one, or
// opts.Stamp) and, for each worktree it saved, prints the one command that
// brings it back, from the most complete of its saves.
func Undo(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	all, err := readBackups(ctx, repo, opts.Run)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, exit.BadInput("nothing to undo: no clean of run %s saved anything under %s%s/", opts.Run, BackupRoot, opts.Run)
	}
	byStamp := map[string]*Backup{}
	for _, b := range all {
		byStamp[b.Stamp] = b
	}
	last := all[len(all)-1]
	if opts.Stamp != "" {
		if last = byStamp[opts.Stamp]; last == nil {
			return nil, exit.BadInput("no saved clean %s of run %s (list them with: git taskclean --run %s --backups)", opts.Stamp, opts.Run, opts.Run)
		}
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}, Stamp: last.Stamp,
		Backup: BackupRoot + opts.Run + "/" + last.Stamp + "/"}
	// The clean, and the interrupted cleans it continued, newest first.
	var chain []*Backup
	seen := map[string]bool{}
	for next := []string{last.Stamp}; len(next) > 0; {
		s := next[0]
		next = next[1:]
		if seen[s] || byStamp[s] == nil {
			continue
		}
		seen[s] = true
		chain = append(chain, byStamp[s])
		next = append(next, byStamp[s].Continues...)
	}
	sort.Slice(chain, func(i, j int) bool { return chain[i].Stamp > chain[j].Stamp })

	var branchNames []string
	for _, b := range chain {
		for _, it := range b.Saves {
			if it.Kind == "branch" {
				branchNames = append(branchNames, "refs/heads/"+it.Name)
			}
		}
	}
	existing := map[string]string{}
	if len(branchNames) > 0 {
		refs, err := repo.Refs(ctx, branchNames...)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			existing[r.Name] = r.OID
		}
	}
	var lock *Lock
	if !opts.DryRun {
		if lock, err = Acquire(repo.CommonDir, opts.Run); err != nil {
			return nil, err
		}
		defer lock.Release()
		// What an interrupted clean left is finished first: its saves are what
		// this reads (and must not drop while a folder of it awaits deletion).
		if _, err := recoverLeftovers(ctx, repo, opts.Run, lock); err != nil {
			return nil, err
		}
	}
	var creates []gitcmd.RefUpdate
	restoring := map[string]bool{}
	best := map[string]*SavedItem{}
	var paths []string
	for _, b := range chain {
		for _, it := range b.Saves {
			switch it.Kind {
			case "branch":
				a := &Action{Op: OpRestoreBranch, Branch: it.Name, Commit: it.Commit, Ref: it.Ref}
				switch cur, ok := existing["refs/heads/"+it.Name]; {
				case restoring[it.Name]:
					continue // an older save of a branch already dealt with
				case ok && cur == it.Commit:
					a.Op, a.Reason, a.Done = OpSkipBranch, "already restored", true
				case ok:
					a.Op, a.Reason = OpSkipBranch, fmt.Sprintf("branch exists at %s; the saved tip is %s (git branch -f %s %s to take it)", ui.Short(cur), ui.Short(it.Commit), ui.ShellQuote(it.Name), it.Commit)
				default:
					creates = append(creates, gitcmd.RefUpdate{Op: "create", Ref: "refs/heads/" + it.Name, New: it.Commit})
				}
				restoring[it.Name] = true
				res.Actions = append(res.Actions, a)
			case "worktree":
				if cur, ok := best[it.Path]; !ok || better(it, cur) {
					if !ok {
						paths = append(paths, it.Path)
					}
					best[it.Path] = it
				}
			}
		}
	}
	for _, p := range paths {
		it := best[p]
		res.Actions = append(res.Actions, &Action{Op: OpRestoreWorktree, Path: p, Task: it.Task, Ref: it.Ref, Commit: it.Commit,
			Command: restoreCmd(opts.Run, p)})
	}
	if !opts.DryRun && len(creates) > 0 {
		if err := repo.UpdateRefs(ctx, creates); err != nil {
			return nil, fmt.Errorf("restore branches: %w", err)
		}
		for _, a := range res.Actions {
			if a.Op == OpRestoreBranch {
				a.Done = true
			}
		}
	}
	return res, nil
}

// better reports whether save a is more complete than b: work beats HEAD
// only; between equals the newer (saves are visited newest first, so the
// first seen stays).
func better(a, b *SavedItem) bool {
	return a.Work && !b.Work
}
