package resume

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// defaultBranch is the branch other runs share: the remote's HEAD, else
// main, else master. ok is false when the repository has none of them.
func defaultBranch(refs map[string]gitcmd.Ref) (name, oid string, ok bool) {
	if r, found := refs["refs/remotes/origin/HEAD"]; found && r.Symref != "" && r.OID != "" {
		return strings.TrimPrefix(r.Symref, "refs/remotes/"), r.OID, true
	}
	for _, b := range []string{"main", "master"} {
		if r, found := refs["refs/heads/"+b]; found && r.OID != "" {
			return b, r.OID, true
		}
	}
	return "", "", false
}

// runStart finds where the run started, which bounds every search for
// landing evidence: the commit that added the plan, when the base's tip
// has the plan (so the search for it stops at the run's own start, never
// walking the whole history); else the oldest merge-base of the run's tips
// and worktree HEADs with the base. why says, when there is no start, why
// landing evidence cannot be searched.
func runStart(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, planPath string, base string, heads []string) (start, why string, err error) {
	if planPath != "" {
		has := false
		if objs != nil {
			o, err := objs.Get(base + ":" + planPath)
			if err != nil {
				return "", "", err
			}
			has = o.Type == "blob"
		} else {
			_, err := repo.Run(ctx, "cat-file", "-e", "--end-of-options", base+":"+planPath)
			has = err == nil
		}
		if has {
			added, err := repo.AddedIn(ctx, base, planPath)
			if err != nil {
				return "", "", err
			}
			if added != "" {
				return added, "", nil
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
		return "", "the base's history does not hold the plan and the run has no branch or worktree to date its start by, so landed work cannot be searched for", nil
	}
	// The oldest merge-base of each tip with the base is the common
	// ancestor of all of them with it.
	mb, err := repo.MergeBaseAll(ctx, append([]string{base}, revs...))
	if err != nil {
		return "", "", err
	}
	if mb == "" {
		return "", "the run's branches share no history with the base, so landed work cannot be searched for", nil
	}
	return mb, "", nil
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
