package resume

import (
	"context"
	"regexp"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// branchToken finds branch-like words in a merge subject: git's "Merge
// branch 'x'", "Merge remote-tracking branch 'origin/x'", GitHub's "Merge
// pull request #1 from owner/x", GitLab's "Merge branch 'x' into 'main'".
var branchToken = regexp.MustCompile(`[A-Za-z0-9._/-]+`)

// findMerged searches the base's history, back to the commit that added the
// plan, for evidence that tasks landed: a merge commit whose subject names
// the task's branch, or a commit with trailers Run-Id: <run> and
// Task-Id: <id>. It costs two git processes whatever the number of tasks.
func findMerged(ctx context.Context, repo *gitcmd.Repo, p *plan.Plan, run, base, planPath string) (map[string]bool, error) {
	if planPath == "" {
		return nil, nil
	}
	added, err := repo.AddedIn(ctx, base, planPath)
	if err != nil {
		return nil, err
	}
	if added == "" {
		if repo.Shallow {
			return nil, inputErr("this clone is shallow and the commit that added %s is not in it: fetch more (git fetch --unshallow; in CI, fetch-depth: 0)", planPath)
		}
		return nil, nil // the plan is not in the base's history: nothing can have landed there
	}
	if added == base {
		return nil, nil // the base is the commit that added the plan: nothing since
	}
	log, err := repo.Log(ctx, base, added)
	if err != nil {
		return nil, err
	}
	if repo.Shallow {
		// At a shallow boundary git reports the cut commit as the one that
		// "added" the plan, and the search would stop short: refuse.
		boundary := shallowBoundary(repo)
		cut := boundary[added]
		for _, c := range log {
			cut = cut || boundary[c.OID]
		}
		if cut {
			return nil, inputErr("this clone is shallow and the base's history since the plan was added is cut off: fetch more (git fetch --unshallow; in CI, fetch-depth: 0)")
		}
	}
	merged := map[string]bool{}
	var named []branches.Branch
	for _, c := range log {
		for _, r := range c.RunIDs {
			if r != run {
				continue
			}
			for _, id := range c.TaskIDs {
				if t := p.Task(id); t != nil {
					merged[t.ID] = true // the plan's spelling: "1.1" in a trailer is task "1-1"
				}
			}
		}
		if len(c.Parents) < 2 {
			continue
		}
		for _, tok := range branchToken.FindAllString(c.Subject, -1) {
			name := tok[strings.LastIndex(tok, "/")+1:]
			if strings.HasPrefix(name, branches.TaskPrefix(run)) {
				named = append(named, branches.Branch{Name: name})
			}
		}
	}
	for id := range branches.MatchBranches(run, p, named).ByTask {
		merged[id] = true
	}
	return merged, nil
}
