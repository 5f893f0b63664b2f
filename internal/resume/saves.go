package resume

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// BackupRoot is where git taskclean saves what it removes:
// refs/taskclean/<run>/<stamp>/{worktree,branch,...}/<name>.
const BackupRoot = "refs/taskclean/"

// SaveField reads one "key value" line of a worktree save's message (path,
// head, branch, task), as git taskclean writes it.
func SaveField(body, key string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			return v
		}
	}
	return ""
}

// savedWorktree is a worktree a clean saved and removed.
type savedWorktree struct {
	stamp, path, head, branch, task string
	// work: the save holds uncommitted changes, not only its HEAD.
	work bool
}

// readSaves picks the run's saves out of the refs read at the start: the
// task branches a clean deleted, and the worktrees it saved. A worktree
// save's message says where it was and what it had checked out; it is read
// through the object reader when one is open, else with one for-each-ref.
func readSaves(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, refs []gitcmd.Ref, run string) ([]branches.Discard, []savedWorktree, error) {
	prefix := BackupRoot + run + "/"
	var discards []branches.Discard
	var wtRefs []gitcmd.Ref
	for _, r := range refs {
		rest, ok := strings.CutPrefix(r.Name, prefix)
		if !ok {
			continue
		}
		stamp, rest, _ := strings.Cut(rest, "/")
		kind, name, _ := strings.Cut(rest, "/")
		switch {
		case kind == "branch" && strings.HasPrefix(name, branches.TaskPrefix(run)) && r.Type == "commit":
			discards = append(discards, branches.Discard{Name: name, OID: r.OID, Stamp: stamp})
		case kind == "worktree" && r.Type == "commit":
			wtRefs = append(wtRefs, r)
		}
	}
	if len(wtRefs) == 0 {
		return discards, nil, nil
	}
	var saves []savedWorktree
	add := func(ref, body string, parents int) {
		rest := strings.TrimPrefix(ref, prefix)
		stamp, _, _ := strings.Cut(rest, "/")
		s := savedWorktree{stamp: stamp, path: SaveField(body, "path"), head: SaveField(body, "head"),
			branch: strings.TrimPrefix(SaveField(body, "branch"), "refs/heads/"), task: SaveField(body, "task")}
		if p, err := strconv.Unquote(s.path); err == nil {
			s.path = p
		}
		s.work = SaveHoldsWork(s.head, parents)
		saves = append(saves, s)
	}
	if objs != nil {
		for _, r := range wtRefs {
			obj, err := objs.Get(r.OID)
			if err != nil {
				return nil, nil, err
			}
			// A commit's header starts with its tree: every parent line
			// follows a newline.
			header, msg, _ := strings.Cut(string(obj.Data), "\n\n")
			_, body, _ := strings.Cut(msg, "\n\n")
			add(r.Name, body, strings.Count(header, "\nparent "))
		}
	} else {
		saved, err := repo.SavedRefs(ctx, prefix)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range saved {
			if rest := strings.TrimPrefix(r.Name, prefix); strings.Contains(rest, "/worktree/") {
				add(r.Name, r.Body, len(r.Parents))
			}
		}
	}
	// Newest first: the latest save of a place is what it last held.
	sort.SliceStable(saves, func(i, j int) bool { return saves[i].stamp > saves[j].stamp })
	return discards, saves, nil
}

// SaveHoldsWork says whether a worktree save holds uncommitted work, from
// its message's head and its parent count: a save of HEAD alone is a commit
// of HEAD's tree with HEAD as its only parent; a save of work has the index
// (and the untracked files) as further parents. On an unborn branch (no
// head) there are only saves of work.
func SaveHoldsWork(head string, parents int) bool {
	return parents > 1 || head == ""
}
