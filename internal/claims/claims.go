// Package claims lets several resumers of one run take different tasks.
//
// A claim is the ref refs/taskclaims/<run>/<task id> pointing at a small
// commit that names the holder. Taking a task is a ref update that expects
// the ref to be absent (or, to take over an expired claim, to be exactly the
// expired commit): git applies such a compare-and-swap under the ref's lock,
// so of several racers exactly one wins. On a remote the same update is a
// push with --force-with-lease=<ref>:<expected>, which the receiving git
// checks under the same lock. No server of ours is involved.
//
// A claim taken through a remote lives there: the remote's ref is the
// claim, read with ls-remote each time it matters; the repository keeps a
// copy (its commit says which remote it lives on) only so that a report
// without the remote can show it.
//
// docs/DESIGN.md, "Claims: several resumers, several machines", gives the
// protocol's decisions and their reasons.
package claims

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/version"
)

// Root is where claims live.
const Root = "refs/taskclaims/"

// Claim is one held task.
type Claim struct {
	// Task is the task's dotted id (Key): "2-1" and "2.1" are one task,
	// so one claim, whichever way a plan spells it.
	Task string `json:"task"`
	// Ref is the claim's ref: its dotted spelling when that is one of
	// Refs.
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Refs are every ref that holds this claim, each at Commit: the
	// task's dotted and dashed spellings for a claim of this version,
	// the plan's spelling alone for one an older version took. A renew,
	// a release or a drop moves them all together.
	Refs []string `json:"-"`
	// Rivals are other claims of the same task under another spelling,
	// at another commit: two older versions, each keyed by its own plan's
	// spelling, both took the task. The report says so; the task is free
	// only when every one of them has expired.
	Rivals []*Claim `json:"-"`
	Holder string   `json:"holder"`
	// Version is the git-taskresume that wrote the claim ("" before
	// versions were recorded).
	Version string    `json:"version,omitempty"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
	Expired bool      `json:"expired"`
	// Remote is where the claim lives: the remote it was taken through,
	// "" for this repository.
	Remote string `json:"remote,omitempty"`
	// Cached: only this repository's copy of a remote's claim was read,
	// not the remote (the claim may have changed there since).
	Cached bool `json:"cached,omitempty"`
	// Alias is the ref a remote's claim ref points to when it is a
	// symbolic ref there. A push to it would reach the target (a branch),
	// so it is held, never taken over, renewed, released or dropped: the
	// remote's owner deletes it. A claim of this repository that is an
	// alias is replaced or deleted as itself (no-deref) and has none.
	Alias string `json:"alias,omitempty"`
}

// AliasError refuses to push to a remote's claim ref that is a symbolic
// ref: receive-pack writes through it, to its target. Undone is set when a
// push (to a dangling alias, which ls-remote does not list) had written
// the claim commit Undone to the target, and that write was deleted again.
type AliasError struct {
	Claim  *Claim
	Undone string
}

func (e *AliasError) Error() string {
	c := e.Claim
	if e.Undone != "" {
		did := ", which did not exist there (ls-remote lists no dangling symbolic ref): the claim pushed to it created it at " + e.Undone + ", deleted again"
		if c.Commit != "" {
			did = ": the claim pushed to it moved it to " + e.Undone + ", put back at " + c.Commit
		}
		return fmt.Sprintf("%s on %s is a symbolic ref to %s%s; the alias stays and holds its task (delete it on %s: git symbolic-ref --delete %s)",
			c.Ref, c.Remote, c.Alias, did, c.Remote, c.Ref)
	}
	return fmt.Sprintf("%s on %s is a symbolic ref to %s, not a claim: a push to it would change %s there; it stays (delete it on %s: git symbolic-ref --delete %s)",
		c.Ref, c.Remote, c.Alias, c.Alias, c.Remote, c.Ref)
}

// Key is the id a task's claim is known by: its dotted spelling
// (plan.CanonicalID). A claim must belong to the task, not to the way one
// copy of the plan writes its id: two resumers whose plans spell it "2-1"
// and "2.1" must see one claim.
func Key(id string) string { return plan.CanonicalID(id) }

// Ref is the claim ref of a task: under its dotted id.
func Ref(run, id string) string { return Root + run + "/" + Key(id) }

// RefsOf are the refs a claim of id is written under: the dotted spelling
// first, then the dashed one when the id has one. Earlier versions wrote
// a claim under the plan's spelling only and read only that one, so a
// claim written under both is seen by them too, and taking both in one
// transaction, each expected absent, is the compare-and-swap on the task.
func RefsOf(run, id string) []string {
	dotted := Ref(run, id)
	dashed := Root + run + "/" + plan.DashedID(Key(id))
	if dashed == dotted {
		return []string{dotted}
	}
	return []string{dotted, dashed}
}

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

// ValidHolder checks a holder name given with --as. The name is written as
// one line of the claim's commit: a line break would let one holder write
// another's name (and then renew or release that one's claim).
func ValidHolder(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("--as: the holder name is empty")
	}
	if len(name) > 200 {
		return fmt.Errorf("--as: the holder name is %d bytes long; keep it under 200", len(name))
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("--as %q: a holder name cannot hold control characters or invalid UTF-8", name)
		}
	}
	return nil
}

// Read returns the run's claims as this repository holds them, by task id:
// its own claims, and its copies of claims that live on a remote (Cached).
func Read(ctx context.Context, repo *gitcmd.Repo, run string, now time.Time) (map[string]*Claim, error) {
	refs, err := repo.SavedRefs(ctx, Root+run+"/")
	if err != nil {
		return nil, fmt.Errorf("read claims: %w", err)
	}
	return FromRefs(refs, run, now), nil
}

// FromRefs reads the claims of run from its claim refs (Root+run+"/"),
// listed with their bodies by the caller.
func FromRefs(refs []gitcmd.SavedRef, run string, now time.Time) map[string]*Claim {
	var read []*Claim
	for _, r := range refs {
		c := parse(r.Body)
		c.Task = strings.TrimPrefix(r.Name, Root+run+"/")
		c.Ref, c.Commit = r.Name, r.OID
		c.Cached = c.Remote != ""
		c.Expired = expired(c, now)
		read = append(read, c)
	}
	return byTask(read)
}

// byTask gathers the claims read one per ref into one per task (Key):
// refs of one task at one commit are one claim (Refs); another commit
// under another spelling is a rival. The claim that holds the task is
// the one a taker must respect first: a symbolic ref on a remote (it
// holds its task for good), else a live claim, the earliest taken (the
// first of two racing older versions), else an expired one.
func byTask(read []*Claim) map[string]*Claim {
	sort.Slice(read, func(i, j int) bool { return read[i].Ref < read[j].Ref })
	groups := map[string][]*Claim{}
	var order []string
	for _, c := range read {
		key := Key(c.Task)
		c.Task = key
		same := false
		for _, g := range groups[key] {
			if g.Commit == c.Commit && g.Alias == c.Alias {
				g.Refs = append(g.Refs, c.Ref)
				same = true
				break
			}
		}
		if !same {
			if groups[key] == nil {
				order = append(order, key)
			}
			c.Refs = []string{c.Ref}
			groups[key] = append(groups[key], c)
		}
	}
	res := map[string]*Claim{}
	for _, key := range order {
		g := groups[key]
		for _, c := range g {
			// The dotted ref names the claim when it holds it.
			for _, r := range c.Refs {
				if strings.HasSuffix(r, "/"+key) {
					c.Ref = r
				}
			}
		}
		sort.SliceStable(g, func(i, j int) bool { return holdsFirst(g[i], g[j]) })
		first := g[0]
		first.Rivals = g[1:]
		res[key] = first
	}
	return res
}

func holdsFirst(a, b *Claim) bool {
	if (a.Alias != "") != (b.Alias != "") {
		return a.Alias != ""
	}
	if a.Expired != b.Expired {
		return !a.Expired
	}
	return a.Since.Before(b.Since)
}

// AllRefs are the refs that hold c: Refs, or Ref for a claim made by hand.
func (c *Claim) AllRefs() []string {
	if len(c.Refs) == 0 {
		return []string{c.Ref}
	}
	return c.Refs
}

// WithRivals is c and its rivals: every claim of c's task, each moved and
// dropped as itself.
func (c *Claim) WithRivals() []*Claim { return append([]*Claim{c}, c.Rivals...) }

// LiveRivals are the rivals of c that have not expired, by another
// holder: a task two resumers hold at once.
func (c *Claim) LiveRivals() []*Claim {
	var out []*Claim
	for _, r := range c.Rivals {
		if !r.Expired && (r.Holder != c.Holder || r.Alias != "") {
			out = append(out, r)
		}
	}
	return out
}

// expired: past its expiry, or without a readable one (a ref someone else
// wrote there, a commit of another tool): such a claim must not hold its
// task for ever, so it may be taken over.
func expired(c *Claim, now time.Time) bool {
	return c.Expires.IsZero() || !now.Before(c.Expires)
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
		case "remote":
			c.Remote = v
		case "version":
			c.Version = v
		}
	}
	return c
}

// Make writes the commit that records a claim (not yet any ref). remote
// names where the claim will live ("" for this repository).
func Make(ctx context.Context, repo *gitcmd.Repo, run, id, holder, remote string, ttl time.Duration, now time.Time) (string, error) {
	w := repo.Runner
	w.Write = true
	out, err := w.RunInput(ctx, []byte{}, "hash-object", "-t", "tree", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("claim %s: %w", id, err)
	}
	host, _ := os.Hostname()
	msg := fmt.Sprintf("claim %s task %s\n\nholder %s\nhost %s\npid %d\nsince %s\nexpires %s\n",
		run, Key(id), holder, host, os.Getpid(), now.UTC().Format(time.RFC3339Nano), now.Add(ttl).UTC().Format(time.RFC3339Nano))
	if remote != "" {
		msg += "remote " + remote + "\n"
	}
	// Which binary handed the task out: a team whose repository requires
	// a newer one sees the straggler (the report's claim_old_version).
	msg += "version " + version.Get().Version + "\n"
	env := []string{"GIT_AUTHOR_NAME=git-taskresume", "GIT_AUTHOR_EMAIL=git-taskresume@localhost",
		"GIT_COMMITTER_NAME=git-taskresume", "GIT_COMMITTER_EMAIL=git-taskresume@localhost"}
	out, err = w.RunEnv(ctx, env, nil, "commit-tree", strings.TrimSpace(string(out)), "-m", msg)
	if err != nil {
		return "", fmt.Errorf("claim %s: %w", id, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ErrTaken means another resumer changed the claim first: the place where
// it lives holds a value that is neither the expected one nor ours.
var ErrTaken = errors.New("claim taken by another resumer")

// Merge is the run's claims as a resumer reading remote sees them: the
// remote's claims as they are now, this repository's own claims (a task
// claimed here without the remote is held all the same), and copies of
// other remotes' claims. Copies of remote's claims are dropped: the remote
// was read. Where two claims hold one task, a live one is kept.
func Merge(local, onRemote map[string]*Claim, remote string) map[string]*Claim {
	res := map[string]*Claim{}
	for id, c := range onRemote {
		res[id] = c
	}
	for id, c := range local {
		if c.Remote == remote {
			continue
		}
		if cur := res[id]; cur == nil || cur.Expired && !c.Expired {
			res[id] = c
		}
	}
	return res
}

// StaleCopies are this repository's copies of remote's claims that the
// remote no longer holds as copied (dropped, released or renewed there).
func StaleCopies(local, onRemote map[string]*Claim, remote string) []*Claim {
	var out []*Claim
	for id, c := range local {
		if c.Remote == remote && (onRemote[id] == nil || onRemote[id].Commit != c.Commit) {
			out = append(out, c)
		}
	}
	return out
}

// Conflicts are the tasks held live both by a claim of this repository
// only and by another holder's claim on remote: a claim taken without the
// remote that the remote's resumers cannot see.
func Conflicts(local, onRemote map[string]*Claim, remote string) []string {
	var out []string
	for id, c := range local {
		if r := onRemote[id]; c.Remote == "" && !c.Expired && r != nil && !r.Expired && r.Holder != c.Holder {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
