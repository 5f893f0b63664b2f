package claims

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// ErrNoneFree means every runnable task is held by someone else.
var ErrNoneFree = errors.New("no runnable task is free")

// Request is one resumer's attempt to take a task.
type Request struct {
	Run      string
	Remote   string // "" for a claim in the local repository only
	Holder   string
	TTL      time.Duration
	Now      time.Time
	Runnable []string          // in plan order
	Held     map[string]*Claim // the claims as last read
	// Named is true when the holder gave its name (--as): only then is a
	// task it already holds its own to take again (a default name is
	// unique to one process).
	Named bool
}

// Take claims the first runnable task nobody holds, taking over an expired
// claim the same way (expecting exactly the expired commit). A task the
// holder already has is returned again, so a retry is harmless.
func Take(ctx context.Context, repo *gitcmd.Repo, req Request) (string, error) {
	for _, id := range req.Runnable {
		if c := req.Held[id]; req.Named && c != nil && c.Holder == req.Holder && !c.Expired {
			return id, nil
		}
	}
	for _, id := range req.Runnable {
		old := ""
		if c := req.Held[id]; c != nil {
			if !c.Expired {
				continue
			}
			old = c.Commit
		}
		oid, err := Make(ctx, repo, req.Run, id, req.Holder, req.TTL, req.Now)
		if err != nil {
			return "", err
		}
		if err := set(ctx, repo, req.Remote, Ref(req.Run, id), oid, old); err != nil {
			if errors.Is(err, ErrTaken) {
				continue // someone else won this one: try the next task
			}
			return "", err
		}
		return id, nil
	}
	return "", ErrNoneFree
}

// NotHolderError refuses to renew or release somebody else's claim.
type NotHolderError struct{ Task, Holder, Caller string }

func (e *NotHolderError) Error() string {
	return fmt.Sprintf("task %s is claimed by %s, not %s: only the holder can renew or release it (pass --as)", e.Task, e.Holder, e.Caller)
}

// Renew extends the holder's claim: an update that expects the holder's own
// last value, so a claim taken over meanwhile is not silently reclaimed.
func Renew(ctx context.Context, repo *gitcmd.Repo, req Request, id string) error {
	c := req.Held[id]
	if c == nil {
		return fmt.Errorf("task %s is not claimed: nothing to renew", id)
	}
	if c.Holder != req.Holder {
		return &NotHolderError{Task: id, Holder: c.Holder, Caller: req.Holder}
	}
	oid, err := Make(ctx, repo, req.Run, id, req.Holder, req.TTL, req.Now)
	if err != nil {
		return err
	}
	return set(ctx, repo, req.Remote, c.Ref, oid, c.Commit)
}

// Release drops the holder's claim, again only if it is still theirs.
func Release(ctx context.Context, repo *gitcmd.Repo, req Request, id string) error {
	c := req.Held[id]
	if c == nil {
		return fmt.Errorf("task %s is not claimed: nothing to release", id)
	}
	if c.Holder != req.Holder {
		return &NotHolderError{Task: id, Holder: c.Holder, Caller: req.Holder}
	}
	return set(ctx, repo, req.Remote, c.Ref, "", c.Commit)
}

func set(ctx context.Context, repo *gitcmd.Repo, remote, ref, oid, old string) error {
	if remote != "" {
		return Push(ctx, repo, remote, ref, oid, old)
	}
	return Swap(ctx, repo, ref, oid, old)
}
