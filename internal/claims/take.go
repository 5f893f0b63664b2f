package claims

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/version"
)

// ErrNoneFree means every runnable task is held by someone else.
var ErrNoneFree = errors.New("no runnable task is free")

// ErrChanged means a branch that made a runnable task's dependencies done
// moved or went (a clean forced its task to run again) after the run was
// read: nothing was claimed on that reading.
var ErrChanged = errors.New("the run changed while claiming: a branch a runnable task depends on moved or was deleted")

// Request is one resumer's attempt to take, renew or release a task.
type Request struct {
	Run string
	// Remote is where a new claim is taken: "" for this repository only.
	Remote string
	// ReadFrom is where the remote's claims are read back from: its push
	// URL when that differs from its fetch URL; "" for Remote itself.
	ReadFrom string
	Holder   string
	TTL      time.Duration
	Now      time.Time
	Runnable []string          // in plan order
	Held     map[string]*Claim // the claims as just read (Merge)
	// Named is true when the holder gave its name (--as): only then is a
	// task it already holds its own to take again (a default name is
	// unique to one process).
	Named bool
	// NotDone are the tasks not complete: a named holder's live claim of
	// one of them is returned again, runnable or not (its agent may be
	// working in the task's worktree, which makes it not runnable).
	NotDone map[string]bool
	// Warn receives what went wrong without undoing the claim: a local
	// copy of a remote's claim that could not be written.
	Warn func(string)
	// Verify gives, for a task id as Runnable spells it, the refs a claim
	// of that task checks in its own transaction (this repository's
	// claims only): the branches that make its dependencies done, at the
	// commits read (resume.State.DoneBy). Asked only for the tasks tried;
	// nil checks nothing.
	Verify func(id string) []gitcmd.RefUpdate
}

func (r Request) warn(msg string) {
	if r.Warn != nil {
		r.Warn(msg)
	}
}

// Take claims the first runnable task nobody holds, taking over an expired
// claim the same way (expecting exactly the expired commit). A task the
// named holder already has is returned again, with again set: one name is
// one holder, so a retry is harmless, and two resumers sharing a name share
// its tasks.
func Take(ctx context.Context, repo *gitcmd.Repo, req Request) (claim *Claim, again bool, err error) {
	if req.Remote == "" {
		for _, c := range req.Held {
			if c.Cached {
				return nil, false, fmt.Errorf("the claims of run %s live on %s (this repository holds copies of them): claim with --remote %s, or git config taskresume.remote %s",
					req.Run, c.Remote, c.Remote, c.Remote)
			}
		}
	}
	if req.Named {
		for _, id := range slices.Sorted(maps.Keys(req.Held)) {
			c := req.Held[id]
			if c.Holder == req.Holder && !c.Expired && req.NotDone[id] && c.Remote == req.Remote && !c.Cached {
				return c, true, nil
			}
		}
	}
	changed := false
	for _, id := range req.Runnable {
		key := Key(id)
		// Taken over where the new claim goes: expect what is there,
		// under every spelling (an older version's claim, or two).
		was := map[string]string{}
		if c := req.Held[key]; c != nil {
			if !c.Expired {
				continue
			}
			for _, c := range c.WithRivals() {
				if req.Remote == "" || c.Remote == req.Remote && !c.Cached {
					for _, r := range c.Refs {
						was[r] = c.Commit
					}
				}
			}
		}
		var changes []change
		for _, r := range RefsOf(req.Run, key) {
			changes = append(changes, change{ref: r, old: was[r]})
		}
		oid, err := Make(ctx, repo, req.Run, key, req.Holder, req.Remote, req.TTL, req.Now)
		if err != nil {
			return nil, false, err
		}
		var verify []gitcmd.RefUpdate
		if req.Remote == "" && req.Verify != nil {
			verify = req.Verify(id)
		}
		if err := set(ctx, repo, req.where(), changes, oid, verify, req.warn); err != nil {
			if errors.Is(err, ErrTaken) {
				continue // someone else won this one: try the next task
			}
			if errors.Is(err, ErrChanged) {
				changed = true
				continue
			}
			var alias *AliasError
			if errors.As(err, &alias) {
				// Held by the alias, as if it had been listed: say so (the
				// report cannot, while it dangles) and try the next task.
				req.warn(fmt.Sprintf("task %s is not free: %s", id, err))
				continue
			}
			return nil, false, err
		}
		host, _ := os.Hostname()
		c := &Claim{Task: key, Ref: Ref(req.Run, key), Commit: oid, Holder: req.Holder, Host: host, PID: os.Getpid(),
			Since: req.Now.UTC(), Expires: req.Now.Add(req.TTL).UTC(), Remote: req.Remote, Version: version.Get().Version}
		for _, ch := range changes {
			c.Refs = append(c.Refs, ch.ref)
		}
		return c, false, nil
	}
	if changed {
		return nil, false, ErrChanged
	}
	return nil, false, ErrNoneFree
}

func (r Request) where() place { return place{name: r.Remote, read: r.ReadFrom} }

// NotHolderError refuses to renew or release somebody else's claim.
type NotHolderError struct{ Task, Holder, Caller string }

func (e *NotHolderError) Error() string {
	return fmt.Sprintf("task %s is claimed by %s, not %s: only the holder can renew or release it (if %s held it, the claim expired and was taken over)", e.Task, e.Holder, e.Caller, e.Caller)
}

// mine is the holder's claim of id, where it lives.
func mine(req Request, id, verb string) (*Claim, error) {
	c := req.Held[Key(id)]
	if c == nil {
		return nil, fmt.Errorf("task %s is not claimed: nothing to %s (the claim was released, or dropped by a clean after it expired, or never taken)", id, verb)
	}
	for _, r := range c.Rivals {
		if c.Holder != req.Holder && r.Holder == req.Holder && r.Alias == "" {
			c = r // the holder's own claim under the other spelling
		}
	}
	if c.Alias != "" {
		return nil, &AliasError{Claim: c}
	}
	if c.Holder != req.Holder {
		return nil, &NotHolderError{Task: id, Holder: c.Holder, Caller: req.Holder}
	}
	if c.Cached {
		return nil, fmt.Errorf("task %s is claimed on %s: %s it with --remote %s", id, c.Remote, verb, c.Remote)
	}
	return c, nil
}

// lost words a compare-and-swap lost by the holder itself.
func lost(id string, err error) error {
	return fmt.Errorf("task %s: the claim is no longer yours (taken over, or dropped after it expired): %s", id, strings.TrimPrefix(err.Error(), ErrTaken.Error()+": "))
}

// Renew extends the holder's claim: an update that expects the holder's own
// last value, so a claim taken over or dropped meanwhile is not silently
// reclaimed.
func Renew(ctx context.Context, repo *gitcmd.Repo, req Request, id string) error {
	c, err := mine(req, id, "renew")
	if err != nil {
		return err
	}
	oid, err := Make(ctx, repo, req.Run, id, req.Holder, c.Remote, req.TTL, req.Now)
	if err != nil {
		return err
	}
	// The claim's refs move from its commit; a spelling it lacks (an
	// older version wrote one) is added, expected absent, unless a rival
	// holds it.
	held := map[string]bool{}
	for _, r := range c.Rivals {
		for _, ref := range r.Refs {
			held[ref] = true
		}
	}
	var changes []change
	for _, ref := range RefsOf(req.Run, id) {
		if !slices.Contains(c.Refs, ref) && !held[ref] {
			changes = append(changes, change{ref: ref})
		}
	}
	changes = append(c.changes(), changes...)
	if err := set(ctx, repo, place{c.Remote, req.ReadFrom}, changes, oid, nil, req.warn); err != nil {
		if errors.Is(err, ErrTaken) {
			return lost(id, err)
		}
		return err
	}
	return nil
}

// Release drops the holder's claim, again only if it is still theirs.
func Release(ctx context.Context, repo *gitcmd.Repo, req Request, id string) error {
	c, err := mine(req, id, "release")
	if err != nil {
		return err
	}
	if err := set(ctx, repo, place{c.Remote, req.ReadFrom}, c.changes(), "", nil, req.warn); err != nil {
		if errors.Is(err, ErrTaken) {
			return lost(id, err)
		}
		return err
	}
	return nil
}

// Drop deletes a claim where it lives, only if it is still c.Commit, and
// records it under save (a ref of this repository) in the same step: for a
// claim of this repository one atomic transaction; for a remote's, the
// leased push first, then the record. ErrTaken means the claim changed
// meanwhile (its holder renewed it): it stays, and so must its worktree.
func Drop(ctx context.Context, repo *gitcmd.Repo, c *Claim, save, readFrom string, warn func(string)) error {
	if c.Cached {
		return fmt.Errorf("the claim lives on %s, which was not read (pass --remote %s)", c.Remote, c.Remote)
	}
	if c.Alias != "" {
		return &AliasError{Claim: c}
	}
	var extra []gitcmd.RefUpdate
	if save != "" {
		extra = append(extra, gitcmd.RefUpdate{Op: "create", Ref: save, New: c.Commit})
	}
	return set(ctx, repo, place{c.Remote, readFrom}, c.changes(), "", extra, warn)
}

// change is one ref that set moves, from old ("" for absent).
type change struct{ ref, old string }

// changes move every ref of c from its commit.
func (c *Claim) changes() []change {
	refs := c.AllRefs()
	out := make([]change, len(refs))
	for i, r := range refs {
		out[i] = change{ref: r, old: c.Commit}
	}
	return out
}

// place is where a claim lives: a remote's name (git pushes to its push
// URL) and where to read it back from ("" for the name), or this
// repository (name "").
type place struct{ name, read string }

func (p place) readFrom() string {
	if p.read != "" {
		return p.read
	}
	return p.name
}

// set moves each ref of changes from its old value to newOID ("" for
// absent) where the claim lives, all or none: this repository (remote "")
// in one ref transaction, or remote in one atomic push. Only a failed
// update after which a ref holds a third value is ErrTaken; one after
// which every ref still holds its old value (a lock held for a moment by a
// racer that then failed) is tried again, twice; any other failure is
// git's own. extra ref updates of this repository go with it: in the same
// transaction locally, after the push for a remote.
func set(ctx context.Context, repo *gitcmd.Repo, at place, changes []change, newOID string, extra []gitcmd.RefUpdate, warn func(string)) error {
	remote := at.name
	refs := make([]string, len(changes))
	for i, ch := range changes {
		refs[i] = ch.ref
	}
	for try := 0; ; try++ {
		var err error
		if remote == "" {
			var us []gitcmd.RefUpdate
			for _, ch := range changes {
				u := gitcmd.RefUpdate{Ref: ch.ref, New: newOID, Old: ch.old, Op: "update"}
				switch {
				case ch.old == "":
					u.Op = "create"
				case newOID == "":
					u.Op = "delete"
				}
				us = append(us, u)
			}
			err = repo.UpdateRefs(ctx, append(us, extra...))
		} else {
			err = push(ctx, repo, remote, changes, newOID)
		}
		if err == nil {
			var created []string
			for _, ch := range changes {
				if ch.old == "" {
					created = append(created, ch.ref)
				}
			}
			if remote != "" && len(created) > 0 {
				// ls-remote lists no symbolic ref whose target is missing,
				// so a dangling alias read as absent, and receive-pack
				// writes through it: the push may have created its target.
				// Reading the claim back tells: the ref is listed now, as
				// the alias it is. One ls-remote, only after a remote
				// create (a takeover or renew expected a value that was
				// listed as a plain ref; a delete leaves nothing to read).
				cur, aliases, rerr := current(ctx, repo, at, created)
				if rerr != nil {
					// Not told a claim from a write through an alias: not
					// handed out as one (a named holder's retry reads it).
					return fmt.Errorf("%s was pushed to %s, but reading it back (a claim, or a symbolic ref written through?) failed: %s; try again", strings.Join(created, " and "), remote, gitcmd.OneLine(rerr))
				}
				if len(aliases) > 0 {
					return wroteThroughAny(ctx, repo, at, changes, aliases, cur, newOID)
				}
			}
			break
		}
		if err := checked(ctx, repo, at, extra); err != nil {
			return err
		}
		cur, aliases, rerr := current(ctx, repo, at, refs)
		if rerr != nil {
			return fmt.Errorf("%s (and reading %s back: %s)", err, strings.Join(refs, " and "), gitcmd.OneLine(rerr))
		}
		if len(aliases) > 0 {
			// A symbolic ref now: trying again would write through it,
			// and a value read through it is its target's, not a claim.
			return wroteThroughAny(ctx, repo, at, changes, aliases, cur, newOID)
		}
		all := newOID != ""
		for _, r := range refs {
			all = all && cur[r] == newOID
		}
		if all {
			break // it went through; the failure came after
		}
		for _, ch := range changes {
			if c := cur[ch.ref]; c != ch.old {
				now := "absent"
				if c != "" {
					now = "at " + c
				}
				return fmt.Errorf("%w: %s is %s", ErrTaken, ch.ref, now)
			}
		}
		if try == 2 {
			return err
		}
		time.Sleep(time.Duration(try+1) * 30 * time.Millisecond)
	}
	if remote == "" {
		return nil
	}
	// The remote holds the claim now: this repository's copy is a cache,
	// and failing to write it changes nothing of the claim. A copy is
	// deleted only while it is the one just replaced: a newer copy (another
	// resumer here claimed meanwhile) stays.
	if len(extra) > 0 {
		if err := repo.UpdateRefs(ctx, extra); err != nil && warn != nil {
			warn(fmt.Sprintf("%s is set on %s, but its record here was not written: %s", refs[0], remote, gitcmd.OneLine(err)))
		}
	}
	w := repo.Runner
	w.Write = true
	for _, ch := range changes {
		if newOID == "" {
			// Failing means absent already, or another copy: not ours to delete.
			_ = repo.UpdateRefs(ctx, []gitcmd.RefUpdate{{Op: "delete", Ref: ch.ref, Old: ch.old}})
			continue
		}
		// --no-deref: a copy that is a symbolic ref (to a branch, say) is
		// replaced, never the ref it points to moved.
		if _, err := w.Run(ctx, "update-ref", "--no-deref", "--end-of-options", ch.ref, newOID); err != nil && warn != nil {
			warn(fmt.Sprintf("%s is set on %s, but this repository's copy was not written: %s", ch.ref, remote, gitcmd.OneLine(err)))
		}
	}
	return nil
}

// checked is ErrChanged when a ref that extra verifies (a dependency's
// branch, in this repository's transaction) is no longer at the value
// verified: the reading the update was made on is gone, and trying again
// cannot help. One read for all of them.
func checked(ctx context.Context, repo *gitcmd.Repo, at place, extra []gitcmd.RefUpdate) error {
	var refs []string
	for _, u := range extra {
		if u.Op == "verify" {
			refs = append(refs, u.Ref)
		}
	}
	if at.name != "" || len(refs) == 0 {
		return nil
	}
	now, _, err := current(ctx, repo, at, refs)
	if err != nil {
		return nil // the update's own failure is said
	}
	for _, u := range extra {
		absent := now[u.Ref] == "" && strings.Trim(u.Old, "0") == ""
		if u.Op == "verify" && now[u.Ref] != u.Old && !absent {
			return fmt.Errorf("%w (%s)", ErrChanged, u.Ref)
		}
	}
	return nil
}

// current is the value of each of refs where the claim lives (absent refs
// are missing from the map), and on a remote the refs that are symbolic
// refs there, to the ref each points to (its value is then its target's).
// This repository's refs are written no-deref: a symbolic ref here is
// replaced or deleted as itself.
func current(ctx context.Context, repo *gitcmd.Repo, at place, refs []string) (oids, aliases map[string]string, err error) {
	oids, aliases = map[string]string{}, map[string]string{}
	if at.name != "" {
		all, syms, err := lsRemote(ctx, repo, at.readFrom(), refs...)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range refs {
			if oid, ok := all[r]; ok {
				oids[r] = oid
			}
			if t := syms[r]; t != "" {
				aliases[r] = t
			}
		}
		return oids, aliases, nil
	}
	out, err := repo.Run(ctx, append([]string{"for-each-ref", "--format=%(refname) %(objectname)", "--end-of-options"}, refs...)...)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, oid, ok := strings.Cut(l, " "); ok && slices.Contains(refs, name) {
			oids[name] = oid
		}
	}
	return oids, aliases, nil
}

// wroteThroughAny answers refs of a claim found to be symbolic refs on the
// remote after a push of newOID (aliases: ref to target; cur: the refs'
// values now). Each alias is answered by wroteThrough, which undoes a
// write through it; a create of another spelling that the push made as a
// plain ref is deleted again (leased on newOID, so only our own write
// goes): the task is not ours, as if the alias had been listed.
func wroteThroughAny(ctx context.Context, repo *gitcmd.Repo, at place, changes []change, aliases, cur map[string]string, newOID string) error {
	var first error
	for _, ch := range changes {
		target := aliases[ch.ref]
		var err error
		switch {
		case target != "":
			err = wroteThrough(ctx, repo, at, ch.ref, target, cur[ch.ref], newOID, ch.old)
		case newOID != "" && cur[ch.ref] == newOID:
			if perr := push(ctx, repo, at.name, []change{{ref: ch.ref, old: newOID}}, ch.old); perr != nil {
				err = fmt.Errorf("%s on %s holds the claim commit %s that was pushed with a symbolic ref of the same task; undoing it failed (%s); do it on %s: git push --force-with-lease=%s:%s %s %s:%s",
					ch.ref, at.name, newOID, gitcmd.OneLine(perr), at.name, ch.ref, newOID, at.name, ch.old, ch.ref)
			}
		}
		var alias *AliasError
		if err != nil && (first == nil || errors.As(first, &alias) && !errors.As(err, &alias)) {
			first = err // a failed undo says more than an alias
		}
	}
	return first
}

// wroteThrough answers a remote's claim ref found to be a symbolic ref to
// target (cur its value; ls-remote names the last ref of a chain, the one
// written) after a push of newOID to it that expected old: when target is
// at newOID, the push wrote it there. A create finds this when the alias
// was dangling, so unlisted, as the claims were read; an update only when
// the ref became an alias of a ref at old meanwhile. That write is undone
// on target itself (named directly, nothing to write through): deleted,
// or put back at old, leased on newOID so that only our own write goes.
// The claim ref is then what it was, an alias that holds its task: an
// AliasError. Failing to undo is an error of its own, naming the command.
func wroteThrough(ctx context.Context, repo *gitcmd.Repo, at place, ref, target, cur, newOID, old string) error {
	c := &Claim{Ref: ref, Commit: cur, Remote: at.name, Alias: target}
	if newOID == "" || cur != newOID {
		return &AliasError{Claim: c}
	}
	if err := push(ctx, repo, at.name, []change{{ref: target, old: newOID}}, old); err != nil {
		// Moved since (undone, or set by someone else) is not our write
		// any more: only a target still at newOID is left to the user.
		if now, _, rerr := current(ctx, repo, at, []string{target}); rerr != nil || now[target] == newOID {
			undo := "deleting it again"
			if old != "" {
				undo = "putting it back at " + old
			}
			return fmt.Errorf("%s on %s is a symbolic ref to %s: the claim pushed to it set %s there to the claim commit %s, and %s failed (%s); do it on %s: git push --force-with-lease=%s:%s %s %s:%s",
				ref, at.name, target, target, newOID, undo, gitcmd.OneLine(err), at.name, target, newOID, at.name, old, target)
		}
	}
	c.Commit = old
	return &AliasError{Claim: c, Undone: newOID}
}

// push sets each ref of changes on remote to newOID ("" deletes) only if
// it is at its old value there ("" for absent): one push with a lease per
// ref, checked by the receiving git under the refs' locks, atomic when
// there are several, so that the task's spellings are taken all or none.
// The client's pre-push hook is not run: a claim is bookkeeping, not the
// user's work.
func push(ctx context.Context, repo *gitcmd.Repo, remote string, changes []change, newOID string) error {
	w := repo.Runner
	w.Write = true
	args := []string{"push", "--quiet", "--porcelain", "--no-verify"}
	if len(changes) > 1 {
		args = append(args, "--atomic")
	}
	for _, ch := range changes {
		args = append(args, "--force-with-lease="+ch.ref+":"+ch.old)
	}
	args = append(args, "--end-of-options", remote)
	for _, ch := range changes {
		args = append(args, newOID+":"+ch.ref)
	}
	out, err := runRemote(ctx, w, remote, args...)
	if err == nil {
		return nil
	}
	var ge *gitcmd.Error
	if len(changes) > 1 && errors.As(err, &ge) && strings.Contains(ge.Stderr, "does not support --atomic push") {
		return pushEach(ctx, repo, remote, changes, newOID)
	}
	return fmt.Errorf("push to %s: %s", remote, pushMessage(out, err))
}

// pushEach is push for a remote that refuses atomic pushes: the refs one
// at a time, each leased, in order. When one fails, the ones already moved
// are moved back (each leased on newOID, a commit only this resumer made,
// so only its own write goes) and the failure is returned: a task whose
// other spelling someone holds is not taken, and two racers that each got
// one spelling both give it back. Never two holders, at worst no holder
// for this round.
func pushEach(ctx context.Context, repo *gitcmd.Repo, remote string, changes []change, newOID string) error {
	for i, ch := range changes {
		err := push(ctx, repo, remote, []change{ch}, newOID)
		if err == nil {
			continue
		}
		for _, done := range changes[:i] {
			if uerr := push(ctx, repo, remote, []change{{ref: done.ref, old: newOID}}, done.old); uerr != nil {
				return fmt.Errorf("%s; %s was already set to %s and moving it back failed (%s); do it on %s: git push --force-with-lease=%s:%s %s %s:%s",
					err, done.ref, newOID, gitcmd.OneLine(uerr), remote, done.ref, newOID, remote, done.old, done.ref)
			}
		}
		return err
	}
	return nil
}

// pushMessage is git's own account of a failed push on one line: the ref's
// status from --porcelain ("[remote rejected] (pre-receive hook declined)")
// and what the remote said, else git's error.
func pushMessage(stdout []byte, err error) string {
	var parts []string
	for _, l := range strings.Split(string(stdout), "\n") {
		// One status a ref: an atomic push of a claim's spellings
		// says the same of each.
		if f := strings.Split(l, "\t"); len(f) == 3 && f[0] == "!" && !slices.Contains(parts, f[2]) {
			parts = append(parts, f[2])
		}
	}
	var ge *gitcmd.Error
	if errors.As(err, &ge) {
		for _, l := range strings.Split(ge.Stderr, "\n") {
			if s := strings.TrimSpace(strings.TrimPrefix(l, "remote:")); strings.HasPrefix(l, "remote:") && s != "" {
				parts = append(parts, "remote: "+s)
			}
		}
	}
	if len(parts) == 0 {
		return gitcmd.OneLine(err)
	}
	return strings.Join(parts, "; ")
}
