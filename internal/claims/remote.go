package claims

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/lsrefs"
)

// Timeout bounds every exchange with a remote (listing its refs, fetch,
// push): a remote that hangs must not hang a report or a claimer.
var Timeout = 60 * time.Second

// View is what one listing of the remote's refs tells about a run there.
type View struct {
	// Claims are the remote's claims of the run now, by task id.
	Claims map[string]*Claim
	// Heads are the remote's refs matching the extra patterns asked for
	// (the run's branches), full name to id.
	Heads map[string]string
}

// ReadRemote returns the run's claims as they are on remote now, with the
// remote's refs matching heads (one listing of the remote's refs, asked by
// prefix where the remote can be: package lsrefs). readFrom is where to read: the remote's
// push URL when it differs from its fetch URL, as claims are written there;
// "" for the remote itself. It writes no ref: resumers racing on one
// machine must not race on shared local refs too. The claims' commits are
// fetched when this repository does not have them yet (objects only).
//
// objs, when not nil, is a running object reader to read the claims'
// commits through (the report has one): no process of its own then.
func ReadRemote(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, remote, readFrom, run string, now time.Time, heads ...string) (*View, error) {
	if readFrom == "" {
		readFrom = remote
	}
	prefix := Root + run + "/"
	for try := 0; ; try++ {
		refs, aliases, err := lsRemote(ctx, repo, readFrom, append([]string{prefix + "*"}, heads...)...)
		if err != nil {
			return nil, fmt.Errorf("read the claims on %s: %s", remote, gitcmd.OneLine(err))
		}
		v := &View{Claims: map[string]*Claim{}, Heads: map[string]string{}}
		var read []*Claim
		oids := map[string][]string{} // id to the refs at it
		for ref, oid := range refs {
			if target := aliases[ref]; target != "" && strings.HasPrefix(ref, prefix) {
				// Held, with no holder: nothing of ours may push to it.
				read = append(read, &Claim{Task: strings.TrimPrefix(ref, prefix), Ref: ref, Commit: oid, Remote: remote, Alias: target})
				continue
			}
			if strings.HasPrefix(ref, prefix) {
				oids[oid] = append(oids[oid], ref)
			} else if strings.HasPrefix(ref, "refs/heads/") {
				v.Heads[ref] = oid
			}
		}
		bodies, missing, err := commitBodies(ctx, repo, objs, keys(oids))
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 {
			w := repo.Runner
			w.Write = true
			// By id first (what protocol v2 servers and forges allow); a
			// server that refuses ids gets the claims' names.
			args := append([]string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--end-of-options", readFrom}, missing...)
			if _, err := runRemote(ctx, w, remote, args...); err != nil {
				args = []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--end-of-options", readFrom}
				for _, oid := range missing {
					args = append(args, oids[oid][0])
				}
				if _, err := runRemote(ctx, w, remote, args...); err != nil {
					if try < 2 {
						continue // a claim released meanwhile: list them again
					}
					return nil, fmt.Errorf("fetch the claims on %s: %s", remote, gitcmd.OneLine(err))
				}
			}
			more, still, err := commitBodies(ctx, repo, objs, missing)
			if err != nil {
				return nil, err
			}
			if len(still) > 0 {
				// Fetched by name, a claim that moved meanwhile brings its
				// new commit: read the list again.
				if try < 2 {
					continue
				}
				return nil, fmt.Errorf("the claims on %s kept changing while they were read (commit %s not fetched): try again", remote, still[0])
			}
			for k, b := range more {
				bodies[k] = b
			}
		}
		for oid, at := range oids {
			for _, ref := range at {
				c := parse(bodies[oid])
				c.Task = strings.TrimPrefix(ref, prefix)
				c.Ref, c.Commit, c.Remote, c.Cached = ref, oid, remote, false
				c.Expired = expired(c, now)
				read = append(read, c)
			}
		}
		v.Claims = byTask(read)
		return v, nil
	}
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// runRemote runs a git command that talks to remote, bounded by Timeout.
func runRemote(ctx context.Context, w gitcmd.Runner, remote string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out, err := w.Run(ctx, args...)
	if err != nil && ctx.Err() != nil {
		return out, fmt.Errorf("%s did not answer within %s", remote, Timeout)
	}
	return out, err
}

// lsRemote lists the refs of remote matching patterns, as `git ls-remote
// --refs --symref` names them: name to id, and the symbolic refs among
// them: name to target. Only protocol v2 names every symbolic ref (v0 names
// HEAD alone), so v2 is asked for whatever the configuration says; a server
// older than git 2.18 answers in v0 and its symbolic refs read as plain
// refs (docs/DESIGN.md says so). A remote on a local path or over ssh is
// asked for the refs under the patterns alone (package lsrefs); any other
// is read through ls-remote, which lists them all.
func lsRemote(ctx context.Context, repo *gitcmd.Repo, remote string, patterns ...string) (refs, aliases map[string]string, err error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	res, err := lsrefs.List(ctx, repo, remote, patterns...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("%s did not answer within %s", remote, Timeout)
		}
		return nil, nil, err
	}
	return res.Refs, res.Symrefs, nil
}

// commitBodies reads the messages of commits by id, through objs (a new
// reader when nil); ids this repository lacks are returned as missing.
func commitBodies(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, oids []string) (map[string]string, []string, error) {
	if len(oids) == 0 {
		return map[string]string{}, nil, nil
	}
	if objs == nil {
		var err error
		if objs, err = repo.ObjectReader(ctx); err != nil {
			return nil, nil, fmt.Errorf("read claims: %w", err)
		}
		defer objs.Close()
	}
	bodies := map[string]string{}
	var missing []string
	for _, oid := range oids {
		o, err := objs.Get(oid)
		if err != nil {
			return nil, nil, fmt.Errorf("read claims: %w", err)
		}
		switch o.Type {
		case "":
			missing = append(missing, oid)
		case "commit":
			bodies[oid] = messageOf(string(o.Data))
		}
	}
	return bodies, missing, nil
}

// messageOf is a raw commit's message: what follows its headers.
func messageOf(raw string) string {
	if _, after, ok := strings.Cut(raw, "\n\n"); ok {
		return after
	}
	return ""
}
