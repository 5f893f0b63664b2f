package clean

import "strings"

// Op is what one action of a clean did: the "action" of its JSON.
type Op string

// Saves reports whether the action saves something (changes nothing else).
func (o Op) Saves() bool { return strings.HasPrefix(string(o), "save_") }

// The actions a clean reports.
const (
	OpSaveWorktree    Op = "save_worktree"
	OpSaveIgnored     Op = "save_ignored"
	OpSaveAdmin       Op = "save_admin"
	OpSaveRaw         Op = "save_raw"
	OpSaveBranch      Op = "save_branch"
	OpSaveReflog      Op = "save_reflog"
	OpSaveClaim       Op = "save_claim"
	OpRemoveWorktree  Op = "remove_worktree"
	OpPruneWorktree   Op = "prune_worktree"
	OpDeleteBranch    Op = "delete_branch"
	OpDropClaim       Op = "drop_claim"
	OpSkipWorktree    Op = "skip_worktree"
	OpSkipBranch      Op = "skip_branch"
	OpSkipClaim       Op = "skip_claim"
	OpRestoreBranch   Op = "restore_branch"
	OpRestoreWorktree Op = "restore_worktree"
	OpExpireBackup    Op = "expire_backup"
	OpRecover         Op = "recover"
	// OpPreRemove is git config taskclean.preRemove run in a worktree
	// before its save.
	OpPreRemove Op = "pre_remove"
)

// AllOps lists every Op.
func AllOps() []Op {
	return []Op{OpSaveWorktree, OpSaveIgnored, OpSaveAdmin, OpSaveRaw, OpSaveBranch, OpSaveReflog, OpSaveClaim, OpRemoveWorktree, OpPruneWorktree, OpDeleteBranch, OpDropClaim, OpSkipWorktree, OpSkipBranch, OpSkipClaim, OpRestoreBranch, OpRestoreWorktree, OpExpireBackup, OpRecover, OpPreRemove}
}
