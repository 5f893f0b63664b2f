package clean

import "strings"

// Op is what one action of a clean did: the "action" of its JSON.
type Op string

// Saves reports whether the action saves something (changes nothing else).
func (o Op) Saves() bool { return strings.HasPrefix(string(o), "save_") }

// The actions a clean reports. Every save is recorded under
// refs/taskclean/<run>/<stamp>/ before anything is removed.
const (
	// OpSaveWorktree saves a worktree's files, staged, unstaged and
	// untracked, as a stash-shaped commit; OpSaveIgnored its ignored files
	// within the budget; OpSaveRaw the bytes of files git would convert on
	// the way in; OpSaveAdmin what its admin entry holds that no branch does;
	// OpSaveIndex the conflict stages of its index's unmerged paths.
	OpSaveWorktree Op = "save_worktree"
	OpSaveIgnored  Op = "save_ignored"
	OpSaveRaw      Op = "save_raw"
	OpSaveAdmin    Op = "save_admin"
	OpSaveIndex    Op = "save_index"
	// OpSaveBranch saves a branch's tip before it is deleted; OpSaveReflog
	// what only its reflog holds; OpSaveClaim a claim before it is dropped.
	OpSaveBranch Op = "save_branch"
	OpSaveReflog Op = "save_reflog"
	OpSaveClaim  Op = "save_claim"

	// What goes once saved: a worktree (pruned when its directory was
	// already gone), a branch, a claim.
	OpRemoveWorktree Op = "remove_worktree"
	OpPruneWorktree  Op = "prune_worktree"
	OpDeleteBranch   Op = "delete_branch"
	OpDropClaim      Op = "drop_claim"

	// What stays, with the reason.
	OpSkipWorktree Op = "skip_worktree"
	OpSkipBranch   Op = "skip_branch"
	OpSkipClaim    Op = "skip_claim"

	// Getting things back (--undo, --restore) and letting old saves go
	// (--expire-backups).
	OpRestoreBranch   Op = "restore_branch"
	OpRestoreWorktree Op = "restore_worktree"
	OpExpireBackup    Op = "expire_backup"

	// OpRecover is what a clean did about an interrupted one's leftovers;
	// OpPreRemove is git config taskclean.preRemove run in a worktree
	// before its save.
	OpRecover   Op = "recover"
	OpPreRemove Op = "pre_remove"
)

// AllOps lists every Op.
func AllOps() []Op {
	return []Op{
		OpSaveWorktree, OpSaveIgnored, OpSaveRaw, OpSaveAdmin, OpSaveIndex, OpSaveBranch, OpSaveReflog, OpSaveClaim,
		OpRemoveWorktree, OpPruneWorktree, OpDeleteBranch, OpDropClaim,
		OpSkipWorktree, OpSkipBranch, OpSkipClaim,
		OpRestoreBranch, OpRestoreWorktree, OpExpireBackup,
		OpRecover, OpPreRemove,
	}
}
