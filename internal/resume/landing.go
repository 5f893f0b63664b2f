package resume

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// defaultBranches are the branches other runs share, other than the base:
// the remote's HEAD, main, master, and origin's main and master (a fresh
// clone, or a remote added by hand, may have no origin/HEAD while an agent
// synced with origin/main). Names and commits, deduplicated by commit.
func defaultBranches(refs map[string]gitcmd.Ref, base BaseRef) (names, oids []string) {
	seen := map[string]bool{base.Commit: true}
	add := func(name, oid string) {
		if oid != "" && !seen[oid] && name != base.Ref {
			seen[oid] = true
			names, oids = append(names, name), append(oids, oid)
		}
	}
	if r, ok := refs["refs/remotes/origin/HEAD"]; ok && r.Symref != "" {
		add(strings.TrimPrefix(r.Symref, "refs/remotes/"), r.OID)
	}
	for _, ref := range []string{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"} {
		if r, ok := refs[ref]; ok && r.Type == "commit" {
			add(strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/remotes/"), r.OID)
		}
	}
	return names, oids
}

// runStart finds where the run started, which bounds every search for
// landing evidence: the commit that added the plan, when the base's tip
// has the plan (so the search for it stops at the run's own start, never
// walking the whole history); else the oldest merge-base of the run's tips
// and worktree HEADs with the base. why says, when there is no start, why
// landing evidence cannot be searched.
func runStart(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, planPath string, base string, heads []string) (start, why string, fromPlan bool, err error) {
	if planPath != "" {
		has := false
		if objs != nil {
			o, err := objs.Get(base + ":" + planPath)
			if err != nil {
				return "", "", false, err
			}
			has = o.Type == "blob"
		} else {
			_, err := repo.Run(ctx, "cat-file", "-e", "--end-of-options", base+":"+planPath)
			has = err == nil
		}
		if has && objs != nil {
			// The base's tip added the plan itself (a <run>-main that
			// holds nothing else yet): no walk needed to find it.
			c, ok, err := objs.Commit(base)
			if err != nil {
				return "", "", false, err
			}
			added := ok
			for _, parent := range c.Parents {
				o, err := objs.Get(parent + ":" + planPath)
				if err != nil {
					return "", "", false, err
				}
				added = added && o.Type != "blob"
			}
			if added {
				return base, "", true, nil
			}
		}
		if has {
			added, err := repo.AddedIn(ctx, base, planPath)
			if err != nil {
				return "", "", false, err
			}
			if added != "" {
				return added, "", true, nil
			}
		}
	}
	var revs []string
	seen := map[string]bool{base: true}
	for _, h := range heads {
		if h != "" && !seen[h] {
			seen[h] = true
			revs = append(revs, h)
		}
	}
	if len(revs) == 0 {
		return "", "the base's history does not hold the plan and the run has no branch or worktree to date its start by, so landed work cannot be searched for", false, nil
	}
	// The oldest merge-base of each tip with the base is the common
	// ancestor of all of them with it.
	mb, err := repo.MergeBaseAll(ctx, append([]string{base}, revs...))
	if err != nil {
		return "", "", false, err
	}
	if mb == "" {
		return "", "the run's branches share no history with the base, so landed work cannot be searched for", false, nil
	}
	return mb, "", false, nil
}

// madeBeforePlan names the branches made before the commit that added the
// plan: they do not hold that commit, and the plan they hold (if any) is
// neither the one it added nor the base's. A branch that holds a rebased
// copy of the run's history holds the same plan, and stays the run's. nil
// when the question was not asked (the start is not the plan's commit, or
// the plan was given by --plan).
func madeBeforePlan(objs *gitcmd.Objects, bs []branches.Branch, holding map[string]bool, planPath, start, base string) (map[string]bool, error) {
	if holding == nil || objs == nil || planPath == "" {
		return nil, nil
	}
	blob := func(rev string) (string, error) {
		o, err := objs.Get(rev + ":" + planPath)
		if err != nil || o.Type != "blob" {
			return "", err
		}
		return o.OID, nil
	}
	known := map[string]bool{}
	for _, rev := range []string{start, base} {
		id, err := blob(rev)
		if err != nil {
			return nil, err
		}
		if id != "" {
			known[id] = true
		}
	}
	before := map[string]bool{}
	for _, b := range bs {
		if holding[b.Ref] {
			continue
		}
		id, err := blob(b.OID)
		if err != nil {
			return nil, err
		}
		if !known[id] || id == "" {
			before[b.Name] = true
		}
	}
	return before, nil
}

// checkShallowLog refuses a search for landed work that reached a shallow
// boundary: beyond it git pretends there is no history, and evidence would
// be missed.
func checkShallowLog(repo *gitcmd.Repo, start string, logs ...[]gitcmd.LogEntry) error {
	boundary := shallowBoundary(repo)
	cut := boundary[start]
	for _, l := range logs {
		for _, c := range l {
			cut = cut || boundary[c.OID]
		}
	}
	if cut {
		return inputErr("this clone is shallow and the history since the run started is cut off: fetch more (git fetch --unshallow; in CI, fetch-depth: 0)")
	}
	return nil
}

func landingText(l *branches.Landing) string {
	where := "the base"
	if l.Ref == "default" {
		where = "the default branch"
	}
	switch l.How {
	case "merge":
		return fmt.Sprintf("merged into %s by %s", where, Short(l.Commit))
	case "squash":
		return fmt.Sprintf("squashed into %s as %s", where, Short(l.Commit))
	}
	return fmt.Sprintf("its commits reached %s (%s)", where, Short(l.Commit))
}
