package clean

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
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
	if err := checkVersion(ctx, repo, opts); err != nil {
		return nil, err
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}, Stamp: last.Stamp,
		Backup: BackupRoot + opts.Run + "/" + last.Stamp + "/"}
	chain := undoChain(last, byStamp)
	if !opts.DryRun {
		lock, err := Acquire(repo.CommonDir, opts.Run)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		// What an interrupted clean left is finished first: its saves are what
		// this reads (and must not drop while a folder of it awaits deletion).
		// An interrupted undo's aliases among them: read the branches after.
		recovered, err := recoverLeftovers(ctx, repo, opts.Run, lock)
		if err != nil {
			return nil, err
		}
		res.Actions = append(res.Actions, recovered...)
	}
	existing, err := savedBranchesNow(ctx, repo, chain)
	if err != nil {
		return nil, err
	}
	creates, aliases := undoBranches(res, chain, existing)
	undoWorktrees(res, chain, opts.Run)
	if !opts.DryRun && len(creates) > 0 {
		if len(aliases) > 0 {
			if err := recordAliases(repo.CommonDir, opts.Run, aliases); err != nil {
				return nil, fmt.Errorf("record the aliases to restore: %w", err)
			}
		}
		if err := repo.UpdateRefs(ctx, creates); err != nil {
			os.Remove(aliasRecordPath(repo.CommonDir, opts.Run))
			return nil, fmt.Errorf("restore branches: %w", err)
		}
		for _, a := range res.Actions {
			if a.Op == OpRestoreBranch {
				a.Done = true
			}
		}
		if err := makeAliases(ctx, repo, aliases); err != nil {
			// The record stays: the next run under the lock finishes.
			return nil, &PartialError{Result: res, Err: err}
		}
		os.Remove(aliasRecordPath(repo.CommonDir, opts.Run))
	}
	return res, nil
}

// aliasToMake is an alias --undo created as a plain branch at its saved
// tip, to be made a symbolic ref to target again.
type aliasToMake struct {
	ref, target string
	a           *Action
	// targetGone: target did not exist when the undo read the refs.
	targetGone bool
	// tip is where its plain branch is created: what it resolved to
	// when it was saved.
	tip string
}

// makeAliases turns the branches just created for saved aliases into the
// symbolic refs they were. The plain branch comes first, in the one
// transaction that creates every branch only where none exists: git
// symbolic-ref checks nothing and would replace a branch made meanwhile,
// but now it replaces only the branch this undo just made. One process per
// alias: only an undo that restores one pays it.
func makeAliases(ctx context.Context, repo *gitcmd.Repo, aliases []aliasToMake) error {
	w := repo.Runner
	w.Write = true
	for _, al := range aliases {
		if _, err := w.Run(ctx, "symbolic-ref", "-m", "taskclean --undo: the alias as it was", al.ref, al.target); err != nil {
			al.a.Reason = "restored as a plain branch at its saved tip; making it a symbolic ref to " + al.target + " again failed"
			return fmt.Errorf("restore the alias %s: %w (it is a plain branch at its saved tip; make it again with: git symbolic-ref %s %s)",
				al.ref, err, ui.ShellQuote(al.ref), ui.ShellQuote(al.target))
		}
	}
	return nil
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

// savedBranchesNow reads where the branches the chain saved are now, by
// ref name (refs/heads/...), for those that exist: symbolic refs with what
// they point to, and the refs saved aliases point to, in the same read. A
// symbolic ref to nothing (its target deleted) is no ref to for-each-ref:
// it is found by its file, and taken as existing.
func savedBranchesNow(ctx context.Context, repo *gitcmd.Repo, chain []*Backup) (map[string]gitcmd.Ref, error) {
	var names []string
	for _, b := range chain {
		for _, it := range b.Saves {
			switch it.Kind {
			case SavedBranch:
				names = append(names, "refs/heads/"+it.Name)
			case SavedAlias:
				names = append(names, "refs/heads/"+it.Name)
				if strings.HasPrefix(it.Target, "refs/") {
					names = append(names, it.Target)
				}
			}
		}
	}
	existing := map[string]gitcmd.Ref{}
	if len(names) > 0 {
		refs, err := repo.Refs(ctx, names...)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			existing[r.Name] = r
		}
	}
	for _, n := range names {
		r, ok := existing[n]
		if ok && r.Symref == "" {
			continue
		}
		// The ref a symbolic ref names itself, as a save records it
		// (%(symref) gives the end of a chain).
		if t := worktree.SymrefTarget(repo.CommonDir, n); t != "" {
			r.Name, r.Symref = n, t
			existing[n] = r
		}
	}
	return existing, nil
}

// undoBranches adds an action for each branch the chain saved (the newest
// save of each) and returns the ref updates that create the missing ones.
// A branch that exists is never moved (docs/DESIGN.md, "No loss: how the
// clean removes"): at the saved tip it is restored already, elsewhere it
// is skipped with the command that would take the saved tip.
func undoBranches(res *Result, chain []*Backup, existing map[string]gitcmd.Ref) ([]gitcmd.RefUpdate, []aliasToMake) {
	var creates []gitcmd.RefUpdate
	var aliases []aliasToMake
	restoring := map[string]bool{}
	for _, b := range chain {
		for _, it := range b.Saves {
			if it.Kind != SavedBranch && it.Kind != SavedAlias || restoring[it.Name] {
				continue // an older save of a branch already dealt with
			}
			restoring[it.Name] = true
			if it.Kind == SavedAlias {
				u, al := undoAlias(res, it, existing)
				if u != nil {
					creates = append(creates, *u)
				}
				if al != nil {
					aliases = append(aliases, *al)
				}
				continue
			}
			a := &Action{Op: OpRestoreBranch, Branch: it.Name, Commit: it.Commit, Ref: it.Ref}
			switch cur, ok := existing["refs/heads/"+it.Name]; {
			case ok && cur.Symref != "":
				a.Op, a.Reason = OpSkipBranch, fmt.Sprintf("%s exists, a symbolic ref to %s; the saved tip is %s (git branch <another name> %s to take it)",
					it.Name, cur.Symref, ui.Short(it.Commit), it.Commit)
			case ok && cur.OID == it.Commit:
				a.Op, a.Reason, a.Done = OpSkipBranch, "already restored", true
			case ok:
				a.Op, a.Reason = OpSkipBranch, fmt.Sprintf("branch exists at %s; the saved tip is %s (git branch -f %s %s to take it)", ui.Short(cur.OID), ui.Short(it.Commit), ui.ShellQuote(it.Name), it.Commit)
			default:
				creates = append(creates, gitcmd.RefUpdate{Op: "create", Ref: "refs/heads/" + it.Name, New: it.Commit})
			}
			res.Actions = append(res.Actions, a)
		}
	}
	return creates, aliasesOfNothing(aliases, creates)
}

// undoAlias adds the action of a saved alias and returns what makes it
// again: a plain branch at its saved tip (created only where no ref is),
// then, when what it pointed to still exists, the symbolic ref. A ref of
// that name that exists is never replaced or moved: the action says what
// it is.
func undoAlias(res *Result, it *SavedItem, existing map[string]gitcmd.Ref) (*gitcmd.RefUpdate, *aliasToMake) {
	ref := "refs/heads/" + it.Name
	a := &Action{Op: OpRestoreBranch, Branch: it.Name, Commit: it.Tip, Ref: it.Ref, Reason: "as a symbolic ref to " + it.Target}
	res.Actions = append(res.Actions, a)
	if it.Tip == "" || !strings.HasPrefix(it.Target, "refs/") {
		a.Op, a.Reason = OpSkipBranch, "the save "+it.Ref+" is not an alias this tool recorded (no target and tip in its message); nothing restored"
		return nil, nil
	}
	cur, ok := existing[ref]
	switch {
	case ok && cur.Symref == it.Target:
		a.Op, a.Reason, a.Done = OpSkipBranch, "already restored (a symbolic ref to "+it.Target+")", true
		return nil, nil
	case ok && cur.Symref != "":
		a.Op, a.Reason = OpSkipBranch, fmt.Sprintf("%s exists, a symbolic ref to %s; the saved alias pointed to %s (git symbolic-ref %s %s to take it)",
			it.Name, cur.Symref, it.Target, ui.ShellQuote(ref), ui.ShellQuote(it.Target))
		return nil, nil
	case ok:
		a.Op, a.Reason = OpSkipBranch, fmt.Sprintf("branch %s exists at %s, a plain branch; the saved alias pointed to %s (at %s then); it is left as it is",
			it.Name, ui.Short(cur.OID), it.Target, ui.Short(it.Tip))
		return nil, nil
	}
	u := &gitcmd.RefUpdate{Op: "create", Ref: ref, New: it.Tip}
	t, ok := existing[it.Target]
	return u, &aliasToMake{ref: ref, target: it.Target, a: a, targetGone: !ok || t.OID == "", tip: it.Tip}
}

// aliasesOfNothing leaves plain the aliases whose target neither exists
// nor is restored by this undo (the same clean may have deleted both: the
// target comes back in the same transaction, so the alias follows it
// again). An alias of nothing would name no commit: it comes back as a
// plain branch at the tip it resolved to.
func aliasesOfNothing(aliases []aliasToMake, creates []gitcmd.RefUpdate) []aliasToMake {
	created := map[string]bool{}
	for _, u := range creates {
		created[u.Ref] = true
	}
	var out []aliasToMake
	for _, al := range aliases {
		if al.targetGone && !created[al.target] {
			al.a.Reason = al.target + " no longer exists: restored as a plain branch at the tip the alias resolved to (" + ui.Short(al.a.Commit) + ")"
			continue
		}
		out = append(out, al)
	}
	return out
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
