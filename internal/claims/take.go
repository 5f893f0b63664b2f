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
	for _, id := range req.Runnable {
		old := ""
		if c := req.Held[id]; c != nil {
			if !c.Expired {
				continue
			}
			// Taken over where the new claim goes: expect what is there.
			if req.Remote == "" || c.Remote == req.Remote && !c.Cached {
				old = c.Commit
			}
		}
		oid, err := Make(ctx, repo, req.Run, id, req.Holder, req.Remote, req.TTL, req.Now)
		if err != nil {
			return nil, false, err
		}
		if err := set(ctx, repo, req.where(), Ref(req.Run, id), oid, old, nil, req.warn); err != nil {
			if errors.Is(err, ErrTaken) {
				continue // someone else won this one: try the next task
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
		return &Claim{Task: id, Ref: Ref(req.Run, id), Commit: oid, Holder: req.Holder, Host: host, PID: os.Getpid(),
			Since: req.Now.UTC(), Expires: req.Now.Add(req.TTL).UTC(), Remote: req.Remote, Version: version.Get().Version}, false, nil
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
	c := req.Held[id]
	if c == nil {
		return nil, fmt.Errorf("task %s is not claimed: nothing to %s (the claim was released, or dropped by a clean after it expired, or never taken)", id, verb)
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
	if err := set(ctx, repo, place{c.Remote, req.ReadFrom}, c.Ref, oid, c.Commit, nil, req.warn); err != nil {
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
	if err := set(ctx, repo, place{c.Remote, req.ReadFrom}, c.Ref, "", c.Commit, nil, req.warn); err != nil {
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
	return set(ctx, repo, place{c.Remote, readFrom}, c.Ref, "", c.Commit, extra, warn)
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

// set moves ref from old to newOID ("" for absent) where the claim lives:
// this repository (remote "") or remote. Only a failed update after which
// the ref holds a third value is ErrTaken; one after which it still holds
// old (a lock held for a moment by a racer that then failed) is tried
// again, twice; any other failure is git's own. extra ref updates of this
// repository go with it: in the same transaction locally, after the push
// for a remote.
func set(ctx context.Context, repo *gitcmd.Repo, at place, ref, newOID, old string, extra []gitcmd.RefUpdate, warn func(string)) error {
	remote := at.name
	for try := 0; ; try++ {
		var err error
		if remote == "" {
			u := gitcmd.RefUpdate{Ref: ref, New: newOID, Old: old, Op: "update"}
			switch {
			case old == "":
				u.Op = "create"
			case newOID == "":
				u.Op = "delete"
			}
			err = repo.UpdateRefs(ctx, append([]gitcmd.RefUpdate{u}, extra...))
		} else {
			err = push(ctx, repo, remote, ref, newOID, old)
		}
		if err == nil {
			if remote != "" && old == "" {
				// ls-remote lists no symbolic ref whose target is missing,
				// so a dangling alias read as absent, and receive-pack
				// writes through it: the push may have created its target.
				// Reading the claim back tells: the ref is listed now, as
				// the alias it is. One ls-remote, only after a remote
				// create (a takeover or renew expected a value that was
				// listed as a plain ref; a delete leaves nothing to read).
				cur, alias, rerr := current(ctx, repo, at, ref)
				if rerr != nil {
					// Not told a claim from a write through an alias: not
					// handed out as one (a named holder's retry reads it).
					return fmt.Errorf("%s was pushed to %s, but reading it back (a claim, or a symbolic ref written through?) failed: %s; try again", ref, remote, gitcmd.OneLine(rerr))
				}
				if alias != "" {
					return wroteThrough(ctx, repo, at, ref, alias, cur, newOID, old)
				}
			}
			break
		}
		cur, alias, rerr := current(ctx, repo, at, ref)
		if rerr != nil {
			return fmt.Errorf("%s (and reading %s back: %s)", err, ref, gitcmd.OneLine(rerr))
		}
		if alias != "" {
			// A symbolic ref now: trying again would write through it,
			// and a value read through it is its target's, not a claim.
			return wroteThrough(ctx, repo, at, ref, alias, cur, newOID, old)
		}
		if cur == newOID && newOID != "" {
			break // it went through; the failure came after
		}
		if cur != old {
			now := "absent"
			if cur != "" {
				now = "at " + cur
			}
			return fmt.Errorf("%w: %s is %s", ErrTaken, ref, now)
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
			warn(fmt.Sprintf("%s is set on %s, but its record here was not written: %s", ref, remote, gitcmd.OneLine(err)))
		}
	}
	w := repo.Runner
	w.Write = true
	if newOID == "" {
		// Failing means absent already, or another copy: not ours to delete.
		_ = repo.UpdateRefs(ctx, []gitcmd.RefUpdate{{Op: "delete", Ref: ref, Old: old}})
		return nil
	}
	// --no-deref: a copy that is a symbolic ref (to a branch, say) is
	// replaced, never the ref it points to moved.
	if _, err := w.Run(ctx, "update-ref", "--no-deref", "--end-of-options", ref, newOID); err != nil && warn != nil {
		warn(fmt.Sprintf("%s is set on %s, but this repository's copy was not written: %s", ref, remote, gitcmd.OneLine(err)))
	}
	return nil
}

// current is ref's value where the claim lives ("" when absent), and on a
// remote the ref it points to when it is a symbolic ref there (its value
// is then its target's). This repository's refs are written no-deref: a
// symbolic ref here is replaced or deleted as itself.
func current(ctx context.Context, repo *gitcmd.Repo, at place, ref string) (oid, alias string, err error) {
	if at.name != "" {
		refs, aliases, err := lsRemote(ctx, repo, at.readFrom(), ref)
		return refs[ref], aliases[ref], err
	}
	out, err := repo.Run(ctx, "for-each-ref", "--format=%(objectname)", "--end-of-options", ref)
	return strings.TrimSpace(string(out)), "", err
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
	if err := push(ctx, repo, at.name, target, old, newOID); err != nil {
		// Moved since (undone, or set by someone else) is not our write
		// any more: only a target still at newOID is left to the user.
		if now, _, rerr := current(ctx, repo, at, target); rerr != nil || now == newOID {
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

// push sets ref on remote to newOID ("" deletes) only if it is at old
// there ("" for absent): one push with a lease, checked by the receiving
// git under the ref's lock. The client's pre-push hook is not run: a claim
// is bookkeeping, not the user's work.
func push(ctx context.Context, repo *gitcmd.Repo, remote, ref, newOID, old string) error {
	w := repo.Runner
	w.Write = true
	out, err := runRemote(ctx, w, remote, "push", "--quiet", "--porcelain", "--no-verify", "--force-with-lease="+ref+":"+old,
		"--end-of-options", remote, newOID+":"+ref)
	if err == nil {
		return nil
	}
	return fmt.Errorf("push to %s: %s", remote, pushMessage(out, err))
}

// pushMessage is git's own account of a failed push on one line: the ref's
// status from --porcelain ("[remote rejected] (pre-receive hook declined)")
// and what the remote said, else git's error.
func pushMessage(stdout []byte, err error) string {
	var parts []string
	for _, l := range strings.Split(string(stdout), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 && f[0] == "!" {
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
