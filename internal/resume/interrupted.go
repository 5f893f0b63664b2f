package resume

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/worktree"
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
		// A save of HEAD alone is the HEAD commit itself (no save message);
		// a save of work is a commit whose further parents are the index
		// and the untracked files (or, on an unborn branch, none at all).
		s.work = parents > 1 || s.head == "" && s.path != ""
		saves = append(saves, s)
	}
	if objs != nil {
		for _, r := range wtRefs {
			obj, err := objs.Get(r.OID)
			if err != nil {
				return nil, nil, err
			}
			header, msg, _ := strings.Cut(string(obj.Data), "\n\n")
			_, body, _ := strings.Cut(msg, "\n\n")
			add(r.Name, body, strings.Count(header, "\nparent ")+boolInt(strings.HasPrefix(header, "parent ")))
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// interruption is why a task branch's last attempt stopped mid-way, and
// where.
type interruption struct {
	why, path string
}

// interruptions finds the task branches whose attempt stopped mid-way: a
// worktree on the branch (or detached at its tip, or rebasing it) holds
// uncommitted changes or a stopped operation; or a clean saved such a
// worktree and removed it, and the branch has not moved since and no
// worktree has it checked out now (what a worktree holds now is newer
// than any save).
func (st *State) interruptions(wts []*Worktree, saves []savedWorktree, m branches.Match) map[string]interruption {
	// A detached worktree speaks for a branch at its HEAD only when it is
	// that branch's task's worktree: a crashed agent of the next task
	// starts detached at the tip of the one before.
	taskOf := map[string]string{}
	for id, bs := range m.ByTask {
		for _, b := range bs {
			taskOf[b.Name] = id
		}
	}
	out := map[string]interruption{}
	atTip := map[string][]string{}
	tip := map[string]string{}
	for _, b := range st.TaskBranches {
		if b.Remote == "" {
			atTip[b.OID] = append(atTip[b.OID], b.Name)
			tip[b.Name] = b.OID
		}
	}
	onWorktree := map[string]bool{}
	for _, w := range wts {
		// The repository's own checkout is the user's or the
		// orchestrator's, like the shared worktree: what lies there
		// untracked (logs, notes) says nothing of a task's attempt.
		if w.Main || w.Shared || w.Missing || w.Broken || w.Unreadable || w.Symlink || w.Error != "" {
			continue
		}
		var names []string
		op, opBranch := "", ""
		if w.AdminDir != "" {
			op, opBranch = worktree.InProgress(w.AdminDir)
		}
		switch {
		case opBranch != "" && (op == "rebase" || op == "bisect"):
			names = []string{opBranch}
		case !w.Detached:
			names = []string{w.Branch}
		default:
			for _, n := range atTip[w.Head] {
				if taskOf[n] != "" && taskOf[n] == w.Task {
					names = append(names, n)
				}
			}
		}
		for _, n := range names {
			onWorktree[n] = true
		}
		dirty := w.Staged+w.Unstaged+w.Untracked > 0
		if !dirty && (op == "" || op == "bisect") {
			continue
		}
		why := ""
		if op != "" && op != "bisect" {
			why = fmt.Sprintf("a %s stopped in worktree %s", op, w.Path)
		} else {
			why = fmt.Sprintf("worktree %s holds uncommitted changes (%d staged, %d unstaged, %d untracked)", w.Path, w.Staged, w.Unstaged, w.Untracked)
		}
		for _, n := range names {
			if _, ok := tip[n]; ok {
				if _, seen := out[n]; !seen {
					out[n] = interruption{why: why, path: w.Path}
				}
			}
		}
	}
	done := map[string]bool{}
	for _, s := range saves {
		names := []string{s.branch}
		if s.branch == "" {
			names = nil
			for _, n := range atTip[s.head] {
				if taskOf[n] != "" && taskOf[n] == s.task {
					names = append(names, n)
				}
			}
		}
		for _, n := range names {
			if done[n] || onWorktree[n] || tip[n] == "" {
				continue
			}
			done[n] = true // the newest save of the branch decides
			if s.work && tip[n] == s.head {
				what := s.task
				if what == "" {
					what = ShellQuote(s.path)
				}
				out[n] = interruption{why: fmt.Sprintf("git taskclean saved its worktree %s with uncommitted changes (%s) and the branch has not moved since; restore it with: git taskclean --run %s --restore %s",
					s.path, s.stamp, st.Report.RunID, what)}
			}
		}
	}
	return out
}
