package claims

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// ReadRemote returns the run's claims as they are on remote now, by task id.
// It writes no ref: resumers racing on one machine must not race on shared
// local refs too. The claims' commits are fetched when this repository does
// not have them yet (objects only).
func ReadRemote(ctx context.Context, repo *gitcmd.Repo, remote, run string, now time.Time) (map[string]*Claim, error) {
	prefix := Root + run + "/"
	refs, err := lsRemote(ctx, repo, remote, prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("read the claims on %s: %s", remote, gitcmd.OneLine(err))
	}
	res := map[string]*Claim{}
	if len(refs) == 0 {
		return res, nil
	}
	var oids []string
	for ref, oid := range refs {
		if strings.HasPrefix(ref, prefix) {
			oids = append(oids, oid)
		}
	}
	bodies, missing, err := commitBodies(ctx, repo, oids)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		w := repo.Runner
		w.Write = true
		// By id first (what protocol v2 servers and forges allow); an
		// older server may only hand out what its refs name.
		args := append([]string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--end-of-options", remote}, missing...)
		if _, err := w.Run(ctx, args...); err != nil {
			if _, err := w.Run(ctx, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--end-of-options", remote, prefix+"*"); err != nil {
				return nil, fmt.Errorf("fetch the claims on %s: %s", remote, gitcmd.OneLine(err))
			}
		}
		more, still, err := commitBodies(ctx, repo, missing)
		if err != nil {
			return nil, err
		}
		if len(still) > 0 {
			return nil, fmt.Errorf("the claims on %s changed while they were read (commit %s not fetched): try again", remote, still[0])
		}
		for k, v := range more {
			bodies[k] = v
		}
	}
	for ref, oid := range refs {
		if !strings.HasPrefix(ref, prefix) {
			continue
		}
		c := parse(bodies[oid])
		c.Task = strings.TrimPrefix(ref, prefix)
		c.Ref, c.Commit, c.Remote, c.Cached = ref, oid, remote, false
		c.Expired = !c.Expires.IsZero() && !now.Before(c.Expires)
		res[c.Task] = c
	}
	return res, nil
}

// lsRemote lists the refs of remote matching patterns: name to id.
func lsRemote(ctx context.Context, repo *gitcmd.Repo, remote string, patterns ...string) (map[string]string, error) {
	args := append([]string{"ls-remote", "--refs", remote}, patterns...)
	out, err := repo.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	res := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		oid, ref, ok := strings.Cut(sc.Text(), "\t")
		if ok {
			res[ref] = oid
		}
	}
	return res, nil
}

// commitBodies reads the messages of commits by id with one cat-file; ids
// this repository lacks are returned as missing.
func commitBodies(ctx context.Context, repo *gitcmd.Repo, oids []string) (map[string]string, []string, error) {
	in := strings.Join(oids, "\n") + "\n"
	out, err := repo.RunInput(ctx, []byte(in), "cat-file", "--batch")
	if err != nil {
		return nil, nil, fmt.Errorf("read claims: %w", err)
	}
	bodies := map[string]string{}
	var missing []string
	r := bufio.NewReader(bytes.NewReader(out))
	for range oids {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("read claims: cat-file: %w", err)
		}
		f := strings.Fields(head)
		if len(f) == 2 && f[1] == "missing" {
			missing = append(missing, f[0])
			continue
		}
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("read claims: cat-file: unexpected %q", head)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, nil, fmt.Errorf("read claims: cat-file: unexpected %q", head)
		}
		buf := make([]byte, size+1) // the object and its newline
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, nil, fmt.Errorf("read claims: cat-file: %w", err)
		}
		msg := string(buf[:size])
		if f[1] == "commit" {
			if _, after, ok := strings.Cut(msg, "\n\n"); ok {
				msg = after
			}
			bodies[f[0]] = msg
		}
	}
	return bodies, missing, nil
}
