// Package claims lets several resumers of one run take different tasks.
//
// A claim is the ref refs/taskclaims/<run>/<task id> pointing at a small
// commit that names the holder. Taking a task is a ref update that expects
// the ref to be absent (or, to take over an expired claim, to be exactly the
// expired commit): git applies such a compare-and-swap under the ref's lock,
// so of several racers exactly one wins. On a remote the same update is a
// push with --force-with-lease=<ref>:<expected>, which the receiving git
// checks under the same lock. No server of ours is involved.
package claims

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Root is where claims live.
const Root = "refs/taskclaims/"

// Claim is one held task.
type Claim struct {
	Task    string    `json:"task"`
	Ref     string    `json:"ref"`
	Commit  string    `json:"commit"`
	Holder  string    `json:"holder"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
	Expired bool      `json:"expired"`
}

// Ref is the claim ref of a task.
func Ref(run, id string) string { return Root + run + "/" + id }

// DefaultHolder names this resumer when --as is not given: unique to this
// process, so two unnamed claimers never pass for one.
func DefaultHolder() string {
	name := "agent"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s:%d", name, host, os.Getpid())
}

// Read returns the run's claims by task id.
func Read(ctx context.Context, repo *gitcmd.Repo, run string, now time.Time) (map[string]*Claim, error) {
	refs, err := repo.SavedRefs(ctx, Root+run+"/")
	if err != nil {
		return nil, fmt.Errorf("read claims: %w", err)
	}
	res := map[string]*Claim{}
	for _, r := range refs {
		c := parse(r.Body)
		c.Task = strings.TrimPrefix(r.Name, Root+run+"/")
		c.Ref, c.Commit = r.Name, r.OID
		c.Expired = !c.Expires.IsZero() && !now.Before(c.Expires)
		res[c.Task] = c
	}
	return res, nil
}

func parse(body string) *Claim {
	c := &Claim{}
	for _, line := range strings.Split(body, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "holder":
			c.Holder = v
		case "host":
			c.Host = v
		case "pid":
			c.PID, _ = strconv.Atoi(v)
		case "since":
			c.Since, _ = time.Parse(time.RFC3339Nano, v)
		case "expires":
			c.Expires, _ = time.Parse(time.RFC3339Nano, v)
		}
	}
	return c
}

// Make writes the commit that records a claim (not yet any ref).
func Make(ctx context.Context, repo *gitcmd.Repo, run, id, holder string, ttl time.Duration, now time.Time) (string, error) {
	w := repo.Runner
	w.Write = true
	out, err := w.RunInput(ctx, []byte{}, "hash-object", "-t", "tree", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("claim %s: %w", id, err)
	}
	host, _ := os.Hostname()
	msg := fmt.Sprintf("claim %s task %s\n\nholder %s\nhost %s\npid %d\nsince %s\nexpires %s\n",
		run, id, holder, host, os.Getpid(), now.UTC().Format(time.RFC3339Nano), now.Add(ttl).UTC().Format(time.RFC3339Nano))
	env := []string{"GIT_AUTHOR_NAME=git-taskresume", "GIT_AUTHOR_EMAIL=git-taskresume@localhost",
		"GIT_COMMITTER_NAME=git-taskresume", "GIT_COMMITTER_EMAIL=git-taskresume@localhost"}
	out, err = w.RunEnv(ctx, env, nil, "commit-tree", strings.TrimSpace(string(out)), "-m", msg)
	if err != nil {
		return "", fmt.Errorf("claim %s: %w", id, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ErrTaken means another resumer changed the claim first.
var ErrTaken = errors.New("claim taken by another resumer")

// Swap sets ref to newOID if it is still at old ("" for absent); newOID ""
// deletes it. It fails with ErrTaken when the ref moved.
func Swap(ctx context.Context, repo *gitcmd.Repo, ref, newOID, old string) error {
	u := gitcmd.RefUpdate{Ref: ref, New: newOID, Old: old}
	switch {
	case old == "":
		u.Op = "create"
	case newOID == "":
		u.Op = "delete"
	default:
		u.Op = "update"
	}
	if err := repo.UpdateRefs(ctx, []gitcmd.RefUpdate{u}); err != nil {
		return fmt.Errorf("%w (%v)", ErrTaken, err)
	}
	return nil
}

// Fetch copies the remote's claims of run over the local ones: the remote
// is the truth when several machines share it.
func Fetch(ctx context.Context, repo *gitcmd.Repo, remote, run string) error {
	w := repo.Runner
	w.Write = true
	spec := "+" + Root + run + "/*:" + Root + run + "/*"
	if _, err := w.Run(ctx, "fetch", "--quiet", "--no-tags", "--prune", "--end-of-options", remote, spec); err != nil {
		return fmt.Errorf("fetch claims from %s: %w", remote, err)
	}
	return nil
}

// Push sets ref on the remote to newOID ("" deletes) only if it is at old
// there ("" for absent): one push with a lease, checked by the receiving git
// under the ref's lock. The local copy follows on success.
func Push(ctx context.Context, repo *gitcmd.Repo, remote, ref, newOID, old string) error {
	w := repo.Runner
	w.Write = true
	src := newOID
	_, err := w.Run(ctx, "push", "--quiet", "--porcelain", "--force-with-lease="+ref+":"+old,
		"--end-of-options", remote, src+":"+ref)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrTaken, err)
	}
	if newOID == "" {
		_, err = w.Run(ctx, "update-ref", "-d", ref)
	} else {
		_, err = w.Run(ctx, "update-ref", ref, newOID)
	}
	return err
}
