package clean

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// removeAll removes each target whose save is recorded (or that the user
// chose not to save): a live process that appeared meanwhile keeps it; the
// directory is renamed to its deleting name (a rerun after a crash finishes
// the deletion: its save is recorded), deleted here without following
// symbolic links, and its admin entry dropped. It is the step "remove
// second" of docs/DESIGN.md, "No loss: how the clean removes".
//
// Deleting a directory is the long part (a system call per file): a few
// deletions run at once (workers), each started only after its directory
// is renamed for deletion, while what the clean records of each (its
// action, the crash tests' step) follows the targets' order.
func (c *cleaner) removeAll(targets []*Target) {
	live := c.lastLook(targets)
	var gone []*Target
	for _, t := range targets {
		if t.skip != nil {
			continue
		}
		if !t.ok && !c.opts.NoBackup && !c.opts.DryRun {
			continue // not saved: never removed
		}
		gone = append(gone, t)
	}
	if len(gone) == 0 {
		return
	}
	// Counted as each removal is recorded, with what it freed; a dry run
	// measures what it would free.
	title, word := "Removing worktrees", "freed"
	if c.opts.DryRun {
		title, word = "Measuring worktrees", "to free"
	}
	step := c.opts.Progress.StartBytes(title, len(gone), word)
	q := &removals{parallel: workers(len(gone)), step: step, dry: c.opts.DryRun}
	defer step.Done() // after the last removal is recorded (deferred first, run last)
	defer q.finish(0)
	for _, t := range gone {
		c.removeOne(q, t, live)
	}
}

// lastLook reads which processes work in the directories set aside, just
// before they are removed: the last look in /proc of docs/DESIGN.md, "No
// loss: how the clean removes" (none in a dry run or with --ignore-live).
func (c *cleaner) lastLook(targets []*Target) map[string][]worktree.Proc {
	var asides []string
	for _, t := range targets {
		if t.aside != "" && t.skip == nil {
			asides = append(asides, t.aside)
		}
	}
	var live map[string][]worktree.Proc
	if !c.opts.DryRun && !c.opts.IgnoreLive && len(asides) > 0 {
		live, _ = worktree.LiveIn(asides)
	}
	return live
}

// removals are the removals removeAll started and has not yet recorded,
// oldest first: at most parallel of them run at once, and each is recorded
// (its finish called) in the order it was queued.
type removals struct {
	pending  []*removal
	parallel int
	// step counts the removals recorded, and the bytes of those done (in
	// a dry run, dry: of all).
	step *progress.Step
	dry  bool
}

// removal is one queued removal: the work running in the background, if
// any, and what records it.
type removal struct {
	done   chan error // nil: nothing runs in the background
	finish func(error)
	// action is the removal's action, whose bytes count as freed once it
	// is done (a dry run's: always); nil when it keeps the worktree.
	action *Action
}

// finish records the oldest removals, waiting for each, until keep are
// left.
func (q *removals) finish(keep int) {
	for len(q.pending) > keep {
		r := q.pending[0]
		q.pending = q.pending[1:]
		var err error
		if r.done != nil {
			err = <-r.done
		}
		r.finish(err)
		if r.action != nil && (r.action.Done || q.dry) {
			q.step.Add(1, r.action.Bytes)
		} else {
			q.step.Add(1, 0)
		}
	}
}

// queue starts work (when not nil) in the background and queues fin to
// record it with work's error (a is the removal's action, nil when it
// keeps the worktree), then records the oldest removals until fewer than
// parallel are pending.
func (q *removals) queue(a *Action, work func() error, fin func(error)) {
	r := &removal{finish: fin, action: a}
	if work != nil {
		r.done = make(chan error, 1)
		go func() { r.done <- work() }()
	}
	q.pending = append(q.pending, r)
	q.finish(q.parallel - 1)
}

// removeOne queues the removal of one target: in a dry run only its
// action; a target in which the last look found a process goes back; an
// entry without a directory of its own is pruned; a directory is renamed
// to its deleting name and deleted (deleteRenamed).
func (c *cleaner) removeOne(q *removals, t *Target, live map[string][]worktree.Proc) {
	w := t.W
	a := c.removeAction(t)
	if c.opts.DryRun {
		if t.Kind == kindRemove {
			a.Bytes, _ = worktree.DiskUsage(w.Path)
		}
		q.queue(a, nil, func(error) { c.add(a) })
		return
	}
	if procs := live[t.aside]; len(procs) > 0 {
		q.queue(nil, nil, func(error) { c.keepLive(t, procs) })
		return
	}
	removed := func(err error) { c.recordRemoved(t, a, err) }
	prune := func() error { return worktree.PruneEntryAt(c.repo.CommonDir, w.Path, w.AdminDir) }
	if t.Kind != kindRemove {
		q.queue(a, prune, removed)
		return
	}
	gone := w.Path + deletingSuffix
	if err := os.Rename(t.aside, gone); err != nil {
		q.queue(a, nil, func(error) { removed(err) })
		return
	}
	t.aside = ""
	q.queue(a, func() error { return deleteRenamed(gone, a, prune) }, func(err error) { c.recordDeleted(t, a, err) })
}

// removeAction is the action that reports a target's removal: a removed
// directory with the ignored files that go unsaved (regenerated ones, and
// with --drop-ignored those past the budget), or an entry pruned.
func (c *cleaner) removeAction(t *Target) *Action {
	w := t.W
	a := &Action{Op: OpRemoveWorktree, Task: w.TaskID(), Path: w.Path}
	switch t.Kind {
	case kindMissing:
		a.Op, a.Reason = OpPruneWorktree, "directory was missing; its HEAD, index and admin entry are saved (if it was moved, `git worktree repair <new path>` would have kept it; --restore brings the saved state back)"
	case kindBroken:
		a.Op, a.Reason = OpPruneWorktree, "its admin entry is damaged ("+w.Error+"); only the entry goes, "+w.Path+" is not touched"
	default:
		plan := t.dryIgnored
		if t.snap != nil {
			plan = &t.snap.IgnoredPlan
		}
		if plan != nil {
			a.Ignored = append(a.Ignored, plan.Regenerated...)
			if c.opts.DropIgnored {
				a.Ignored = append(a.Ignored, plan.TooBig...)
			}
		} else {
			a.Ignored = w.Ignored
		}
	}
	return a
}

// keepLive puts back a target in which a process started working during
// the clean, and says so with the processes' ids.
func (c *cleaner) keepLive(t *Target, procs []worktree.Proc) {
	c.putBack(t)
	s := c.skip(t, "a process started working in it during the clean: "+describeProcs(procs)+"; its save is kept")
	for _, p := range procs {
		s.Pids = append(s.Pids, p.PID)
	}
}

// deleteRenamed deletes a directory renamed to its deleting name, gone,
// and prunes its entry (the worker's part). What the directory took is
// read into a before it is deleted: recordDeleted reads it after the
// worker is done.
func deleteRenamed(gone string, a *Action, prune func() error) error {
	a.Bytes, _ = worktree.DiskUsage(gone)
	if err := os.RemoveAll(gone); err != nil {
		return &deleteError{gone, err}
	}
	return prune()
}

// recordDeleted records the deletion of a renamed directory: one that could
// not be deleted keeps its entry's mark, so that a rerun finishes the
// deletion (saved and recorded); otherwise as recordRemoved.
func (c *cleaner) recordDeleted(t *Target, a *Action, err error) {
	var de *deleteError
	if errors.As(err, &de) {
		t.locked = false
		c.skip(t, "cannot delete "+de.path+": "+shortErr(de.err)+"; its save is recorded; rerun git taskclean to finish")
		return
	}
	c.recordRemoved(t, a, err)
}

// recordRemoved records a target's removal, or keeps it (its save stays)
// when err says it could not be removed.
func (c *cleaner) recordRemoved(t *Target, a *Action, err error) {
	if err != nil {
		c.skip(t, "cannot remove it: "+shortErr(err)+" (its save is kept; rerun git taskclean)")
		return
	}
	t.done, t.locked = true, false
	a.Done = true
	c.add(a)
	c.steps.step()
}

// deleteError is a directory renamed for deletion that could not be
// deleted.
type deleteError struct {
	path string
	err  error
}

func (e *deleteError) Error() string { return "delete " + e.path + ": " + e.err.Error() }

// deleteBranches deletes the selected branches, each only if it still
// points where it was read, and never one whose worktree ended up staying.
func (c *cleaner) deleteBranches(brs []BranchTarget, targets []*Target, wantTask map[string]bool) error {
	kept := map[string]string{}
	for _, t := range targets {
		if (!t.done && !c.opts.DryRun || t.skip != nil) && t.W.Branch != "" {
			kept[t.W.Branch] = t.W.Path
		}
		if !t.done && !c.opts.DryRun || t.skip != nil {
			// Aliases its HEAD goes through: deleting one would leave it
			// on a branch that does not exist.
			for _, a := range t.aliases {
				kept[a] = t.W.Path
			}
		}
	}
	var dels []gitcmd.RefUpdate
	var acts []*Action
	var deleted []BranchTarget // acts[i] deletes deleted[i]
	deleting := map[string]bool{}
	for _, bt := range brs {
		if _, ok := kept[bt.B.Name]; !ok {
			deleting[bt.B.Ref] = true
		}
	}
	for _, bt := range brs {
		if p, ok := kept[bt.B.Name]; ok {
			c.add(&Action{Op: OpSkipBranch, Task: bt.Task, Branch: bt.B.Name,
				Commit: bt.B.OID, Reason: "checked out in " + p + ", which stays"})
			continue
		}
		// The update names the branch itself (no-deref): an alias goes,
		// never the branch it points to. git checks the value the alias
		// resolves to, not that it is still the alias saved: its file is
		// read again (the transaction cannot check it).
		if was := c.aliasTargets[bt.B.Name]; was != "" && !c.opts.DryRun && worktree.SymrefTarget(c.repo.CommonDir, bt.B.Ref) != was {
			c.add(&Action{Op: OpSkipBranch, Task: bt.Task, Branch: bt.B.Name, Commit: bt.B.OID,
				Reason: "it was saved as a symbolic ref to " + was + " and is no longer that; left as it is"})
			continue
		}
		dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: bt.B.Ref, Old: bt.B.OID})
		a := &Action{Op: OpDeleteBranch, Task: bt.Task, Branch: bt.B.Name, Commit: bt.B.OID}
		switch {
		case bt.B.Symref != "" && deleting[bt.B.Symref]:
			a.Reason = "a symbolic ref to " + bt.B.Symref + ", which this clean deletes too: each is deleted and saved as itself"
		case bt.B.Symref != "":
			a.Reason = "a symbolic ref to " + bt.B.Symref + ": only the alias is deleted, " + bt.B.Symref + " stays"
		}
		acts = append(acts, c.add(a))
		deleted = append(deleted, bt)
	}
	c.noteDanglingAliases(deleted, acts)
	if len(dels) == 0 || c.opts.DryRun {
		return nil
	}
	var tasks []string
	for _, bt := range deleted {
		tasks = append(tasks, bt.Task)
	}
	stay := claimsStay(c.st, tasks, wantTask, strings.Repeat("0", len(dels[0].Old)), c.dropped)
	if err := c.transaction(append(dels, stay...)); err != nil {
		for _, a := range acts {
			a.Op, a.Reason = OpSkipBranch, "not deleted"
		}
		why := "a branch moved since it was read?"
		if len(stay) > 0 {
			why = "a branch moved since it was read, or a task standing on one was claimed meanwhile?"
		}
		return fmt.Errorf("delete branches (none deleted; %s): %s", why, gitcmd.OneLine(err))
	}
	for _, a := range acts {
		a.Done = true
	}
	c.steps.step()
	return nil
}

// dropClaims saves and drops the selected claims, one compare-and-swap
// each where the claim lives (this repository, or the remote it was read
// from), before any worktree is touched. A claim that changed meanwhile
// (renewed by its holder), or that cannot be dropped, stays, and so do the
// worktrees of its task unless they were named (--task, --all).
func (c *cleaner) dropClaims(sel *Selection, wantTask map[string]bool) {
	if c.names == nil {
		c.names = newNamer()
	}
	if c.dropped == nil {
		c.dropped = map[string]bool{}
	}
	// Copies of the remote's claims that it no longer holds go too: they
	// are copies, and kept they would hold their tasks here for ever.
	for _, cl := range c.st.StaleCopies {
		a := c.add(&Action{Op: OpDropClaim, Task: cl.Task, Ref: cl.Ref, Commit: cl.Commit,
			Reason: "this repository's copy of a claim " + cl.Remote + " no longer holds"})
		if c.opts.DryRun {
			continue
		}
		var dels []gitcmd.RefUpdate
		for _, r := range cl.AllRefs() {
			dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: r, Old: cl.Commit})
		}
		if err := c.repo.UpdateRefs(c.ctx, dels); err != nil {
			a.Op, a.Reason = OpSkipClaim, "cannot drop this repository's copy: "+gitcmd.OneLine(err)
			continue
		}
		a.Done = true
	}
	for _, cl := range sel.Claims {
		reason := "task complete"
		switch {
		case c.opts.All:
			reason = "--all"
		case wantsClaim(wantTask, cl.Task):
			reason = "--task"
		case cl.Expired:
			reason = "expired " + ui.When(cl.Expires)
		}
		where := ""
		if cl.Remote != "" {
			where = " on " + cl.Remote
		}
		name := ""
		if !c.opts.NoBackup {
			name = c.names.name(c.prefix+string(SavedClaim)+"/", cl.Task)
		}
		save := func(done bool) {
			if name != "" {
				c.add(&Action{Op: OpSaveClaim, Task: cl.Task, Commit: cl.Commit, Ref: name, Reason: "held by " + cl.Holder, Done: done})
			}
			c.add(&Action{Op: OpDropClaim, Task: cl.Task, Ref: cl.Ref, Commit: cl.Commit,
				Reason: reason + "; held by " + cl.Holder + where, Done: done})
		}
		if c.opts.DryRun {
			save(false)
			continue
		}
		var warns []string
		err := claims.Drop(c.ctx, c.repo, cl, name, c.st.ReadFrom, func(msg string) { warns = append(warns, msg) })
		if err == nil {
			for _, r := range cl.AllRefs() {
				c.dropped[r] = true
			}
			save(true)
			for _, w := range warns {
				c.add(&Action{Op: OpSkipClaim, Task: cl.Task, Ref: cl.Ref, Reason: w})
			}
			c.steps.step()
			continue
		}
		why := "cannot drop it: " + gitcmd.OneLine(err)
		says := why + "; it stays"
		var alias *claims.AliasError
		switch {
		case errors.Is(err, claims.ErrTaken):
			why = "it changed meanwhile (renewed by its holder, or taken over)"
			says = why + "; it stays"
		case errors.As(err, &alias):
			says = err.Error() // says that it stays, and how to remove it
		}
		c.add(&Action{Op: OpSkipClaim, Task: cl.Task, Ref: cl.Ref, Commit: cl.Commit, Reason: says})
		if c.opts.All || wantsClaim(wantTask, cl.Task) {
			continue
		}
		for _, t := range sel.Targets {
			if claims.Key(t.W.Task) == cl.Task {
				c.skip(t, "the claim of task "+cl.Task+" could not be dropped ("+why+"): its holder may be working in it")
			}
		}
	}
}

// claimedMeanwhile puts back the targets whose task someone claimed after
// the clean read the claims. Read once the worktrees are aside: a claim
// made after this finds no worktree to work in.
func (c *cleaner) claimedMeanwhile(targets []*Target, wantTask map[string]bool) {
	if c.opts.DryRun || c.opts.All || len(targets) == 0 {
		return
	}
	now := time.Now()
	held, err := claims.Read(c.ctx, c.repo, c.opts.Run, now)
	if err == nil && c.st.Remote != "" {
		var v *claims.View
		if v, err = claims.ReadRemote(c.ctx, c.repo, nil, c.st.Remote, c.st.ReadFrom, c.opts.Run, now); err == nil {
			held = claims.Merge(held, v.Claims, c.st.Remote)
		}
	}
	for _, t := range targets {
		if t.skip != nil || wantTask[t.W.Task] {
			continue
		}
		why := ""
		switch cl := held[claims.Key(t.W.Task)]; {
		case err != nil:
			why = "the claims could not be read again before removing it: " + gitcmd.OneLine(err)
		case cl != nil && !cl.Expired:
			// Live now: claimed since the clean read the claims (a task
			// claimed then had no stale worktree, or its drop failed).
			why = "task " + t.W.Task + " was claimed by " + cl.Holder + " while the clean ran"
		default:
			continue
		}
		c.putBack(t)
		c.skip(t, why+": it stays")
	}
}
