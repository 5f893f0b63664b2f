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
	last, byStamp, err := cleanToUndo(all, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}, Stamp: last.Stamp,
		Backup: BackupRoot + opts.Run + "/" + last.Stamp + "/"}
	chain := undoChain(last, byStamp)
	existing, err := savedBranchesNow(ctx, repo, chain)
	if err != nil {
		return nil, err
	}
	if !opts.DryRun {
		lock, err := Acquire(repo.CommonDir, opts.Run)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		// What an interrupted clean left is finished first: its saves are what
		// this reads (and must not drop while a folder of it awaits deletion).
		if _, err := recoverLeftovers(ctx, repo, opts.Run, lock); err != nil {
			return nil, err
		}
	}
	creates := undoBranches(res, chain, existing)
	undoWorktrees(res, chain, opts.Run)
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

// cleanToUndo picks, of the saved cleans all (oldest first), the one to
// undo: the last, or opts.Stamp; it returns it with the saved cleans by
// stamp. Nothing saved, or no such stamp, is an input error.
func cleanToUndo(all []*Backup, opts Options) (*Backup, map[string]*Backup, error) {
	if len(all) == 0 {
		return nil, nil, exit.BadInput("nothing to undo: no clean of run %s saved anything under %s%s/", opts.Run, BackupRoot, opts.Run)
	}
	byStamp := map[string]*Backup{}
	for _, b := range all {
		byStamp[b.Stamp] = b
	}
	last := all[len(all)-1]
	if opts.Stamp != "" {
		if last = byStamp[opts.Stamp]; last == nil {
			return nil, nil, exit.BadInput("no saved clean %s of run %s (list them with: git taskclean --run %s --backups)", opts.Stamp, opts.Run, opts.Run)
		}
	}
	return last, byStamp, nil
}

// undoChain is the clean last and the interrupted cleans it continued
// (following their links), newest first: undo treats them as one.
func undoChain(last *Backup, byStamp map[string]*Backup) []*Backup {
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
	return chain
}

// savedBranchesNow reads where the branches the chain saved are now:
// ref name (refs/heads/...) -> commit, for those that exist.
func savedBranchesNow(ctx context.Context, repo *gitcmd.Repo, chain []*Backup) (map[string]string, error) {
	var branchNames []string
	for _, b := range chain {
		for _, it := range b.Saves {
			if it.Kind == SavedBranch {
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
	return existing, nil
}

// undoBranches adds an action for each branch the chain saved (the newest
// save of each) and returns the ref updates that create the missing ones.
// A branch that exists is never moved (docs/DESIGN.md, "No loss: how the
// clean removes"): at the saved tip it is restored already, elsewhere it
// is skipped with the command that would take the saved tip.
func undoBranches(res *Result, chain []*Backup, existing map[string]string) []gitcmd.RefUpdate {
	var creates []gitcmd.RefUpdate
	restoring := map[string]bool{}
	for _, b := range chain {
		for _, it := range b.Saves {
			if it.Kind != SavedBranch {
				continue
			}
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
		}
	}
	return creates
}

// undoWorktrees adds, for each worktree the chain saved, in the order first
// seen, the command that restores it from the most complete of its saves.
// The command names that save's clean (--from): --restore PATH alone takes
// the newest save of the path, which a later clean of the same path makes
// another one, so only --from brings back the save this clean made.
func undoWorktrees(res *Result, chain []*Backup, run string) {
	best := map[string]*SavedItem{}
	bestClean := map[string]*Backup{}
	var paths []string
	for _, b := range chain {
		for _, it := range b.Saves {
			if it.Kind != SavedWorktree {
				continue
			}
			if cur, ok := best[it.Path]; !ok || better(it, cur) {
				if !ok {
					paths = append(paths, it.Path)
				}
				best[it.Path], bestClean[it.Path] = it, b
			}
		}
	}
	for _, p := range paths {
		it := best[p]
		res.Actions = append(res.Actions, &Action{Op: OpRestoreWorktree, Path: p, Task: it.Task, Ref: it.Ref, Commit: it.Commit,
			Command: restoreFromCmd(run, p, bestClean[p].Stamp)})
	}
}

// better reports whether save a is more complete than b: work beats HEAD
// only; between equals the newer (saves are visited newest first, so the
// first seen stays).
func better(a, b *SavedItem) bool {
	return a.Work && !b.Work
}
