package resume

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// resolveBase applies the base order: --base, taskresume.base, the run's
// own branch <run>-main (local; else a remote's copy: --remote's, origin's,
// or the one remote that has it), then the local main, master, and only
// then origin/HEAD, origin/main, origin/master. Local branches come before
// origin/HEAD so that the answer does not flip with whether a clone has
// origin/HEAD set; the remote's default branch is still searched for landed
// work. None existing is an error, never a silent zero.
//
// With a remote (its branches where its fetch refspecs put them), a local <run>-main that is
// behind the remote's copy gives way to it (the run went on elsewhere),
// and the report says so.
func resolveBase(ctx context.Context, repo *gitcmd.Repo, opts Options, cfg map[string]string, all map[string]gitcmd.Ref, run, remote string, rs remoteSet) (BaseRef, []Problem, error) {
	for _, c := range []struct {
		rev    string
		source BaseSource
	}{{opts.Base, BaseFromFlag}, {cfg["taskresume.base"], BaseFromConfig}} {
		if c.rev == "" {
			continue
		}
		oid, err := repo.ResolveCommit(ctx, c.rev)
		if err != nil {
			what := "--base"
			if c.source == BaseFromConfig {
				what = "git config taskresume.base"
			}
			return BaseRef{}, nil, exit.BadInput("base %q (from %s) is not a commit in this repository: pass an existing branch", c.rev, what)
		}
		why := "given with --base"
		if c.source == BaseFromConfig {
			why = "set by git config taskresume.base"
		}
		return BaseRef{Ref: c.rev, Commit: oid, Source: c.source, Why: why}, nil, nil
	}
	mb := branches.MainBranch(run)
	commit := func(name string) (gitcmd.Ref, bool) {
		r, ok := all[name]
		return r, ok && r.Type == "commit"
	}
	// The remote copies of <run>-main, the chosen remote's first.
	var copies []string
	if remote != "" {
		// Where the remote's fetch refspec puts its branches.
		if ref := rs.trackingRef(remote, mb); ref != "" {
			if _, ok := commit(ref); ok {
				copies = append(copies, strings.TrimPrefix(ref, "refs/remotes/"))
			}
		}
	} else {
		// Any readable remote's copy, fetched where its refspec says: a
		// ref no fetch updates is never read.
		var names []string
		for name := range all {
			if _, b, _, _ := rs.attribute(name); b == mb && rs.copyOf(name) {
				if _, ok := commit(name); ok {
					names = append(names, strings.TrimPrefix(name, "refs/remotes/"))
				}
			}
		}
		sort.Slice(names, func(i, j int) bool {
			oi, oj := strings.HasPrefix(names[i], "origin/"), strings.HasPrefix(names[j], "origin/")
			if oi != oj {
				return oi
			}
			return names[i] < names[j]
		})
		copies = names
	}
	if r, ok := commit("refs/heads/" + mb); ok {
		base := BaseRef{Ref: mb, Commit: r.OID, Source: BaseRunMain, Why: "the run's own branch"}
		if remote == "" || len(copies) == 0 {
			return base, nil, nil
		}
		rc, _ := commit("refs/remotes/" + copies[0])
		if rc.OID == r.OID {
			return base, nil, nil
		}
		ahead, behind, err := repo.AheadBehind(ctx, r.OID, rc.OID)
		if err != nil {
			return BaseRef{}, nil, err
		}
		switch {
		case ahead == 0:
			return BaseRef{Ref: copies[0], Commit: rc.OID, Source: BaseRunMain, Why: fmt.Sprintf("the run's own branch on %s: the local %s is behind it", remote, mb)},
				[]Problem{{Kind: ProblemBaseBehind, Message: fmt.Sprintf("local %s is %s behind %s: read %s (update it: git branch -f %s %s, when nothing checks it out)",
					mb, ui.Plural(behind, "commit"), copies[0], copies[0], mb, copies[0])}}, nil
		case behind > 0:
			return base, []Problem{{Kind: ProblemBaseDiverged, Message: fmt.Sprintf("local %s and %s have diverged (%d and %s of their own): read the local one; work that landed only on %s is not seen",
				mb, copies[0], ahead, ui.Plural(behind, "commit"), copies[0])}}, nil
		}
		return base, nil, nil
	}
	if len(copies) > 0 {
		rc, _ := commit("refs/remotes/" + copies[0])
		return BaseRef{Ref: copies[0], Commit: rc.OID, Source: BaseRunMain, Why: "the run's own branch, from the remote (there is no local " + mb + ")"}, nil, nil
	}
	for _, b := range []struct {
		name   string
		source BaseSource
	}{{"main", BaseMain}, {"master", BaseMaster}} {
		if r, ok := commit("refs/heads/" + b.name); ok {
			return BaseRef{Ref: b.name, Commit: r.OID, Source: b.source, Why: "there is no " + mb + " branch"}, nil, nil
		}
	}
	if r, ok := all["refs/remotes/origin/HEAD"]; ok && r.Symref != "" && r.OID != "" {
		return BaseRef{Ref: strings.TrimPrefix(r.Symref, "refs/remotes/"), Commit: r.OID, Source: BaseOriginHead,
			Why: "there is no " + mb + ", main or master branch: origin's default branch"}, nil, nil
	}
	for _, b := range []struct {
		name   string
		source BaseSource
	}{{"origin/main", BaseOriginMain}, {"origin/master", BaseOriginMaster}} {
		if r, ok := commit("refs/remotes/" + b.name); ok {
			return BaseRef{Ref: b.name, Commit: r.OID, Source: b.source,
				Why: "there is no " + mb + ", main or master branch"}, nil, nil
		}
	}
	return BaseRef{}, nil, exit.BadInput("no base branch for run %s: none of %s, main, master, origin/HEAD, origin/main, origin/master exists (pass --base REF or set git config taskresume.base)", run, mb)
}

// runOwnBase reports whether the base is the run's own branch <run>-main
// (however it was chosen, from any remote): its commits are the run's, read
// as leniently as its task branches.
func runOwnBase(base BaseRef, run string) bool {
	mb := branches.MainBranch(run)
	return base.Source == BaseRunMain || base.Ref == mb || strings.HasSuffix(base.Ref, "/"+mb)
}
