package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
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
func (st *State) interruptions(ctx context.Context, repo *gitcmd.Repo, wts []*Worktree, saves []savedWorktree, stashes []stashEntry, m branches.Match) map[string]interruption {
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
	hashLen := 20
	if len(st.Report.Base.Commit) == 64 {
		hashLen = 32
	}
	for _, w := range wts {
		// The repository's own checkout is the user's or the
		// orchestrator's, like the shared worktree: what lies there
		// untracked (logs, notes) says nothing of a task's attempt.
		if w.Main || w.Shared || w.Missing || w.Broken {
			continue
		}
		if w.Unreadable || w.Symlink || w.Error != "" {
			// What it holds cannot be read: whether its attempt finished
			// is unknown, and unknown is not done.
			if _, ok := tip[w.Branch]; ok && !w.Detached {
				if _, seen := out[w.Branch]; !seen {
					out[w.Branch] = interruption{why: fmt.Sprintf("worktree %s cannot be read (%s): whether its attempt finished is unknown", w.Path, w.Error), path: w.Path}
				}
			}
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
			if len(names) == 0 && w.Task != "" && w.Head != "" && (w.Unreachable > 0 || w.Staged+w.Unstaged+w.Untracked > 0) {
				// The task's worktree went on past its branch, detached:
				// one question to git for the task's branches below HEAD.
				var pats []string
				for n, id := range taskOf {
					if id == w.Task && tip[n] != "" {
						pats = append(pats, "refs/heads/"+n)
					}
				}
				if len(pats) > 0 && repo != nil {
					sort.Strings(pats)
					args := append([]string{"for-each-ref", "--format=%(refname:lstrip=2)", "--merged", w.Head, "--end-of-options"}, pats...)
					if out, err := repo.Run(ctx, args...); err == nil {
						names = strings.Fields(string(out))
					}
				}
			}
		}
		for _, n := range names {
			onWorktree[n] = true
		}
		dirty := w.Staged+w.Unstaged+w.Untracked > 0
		hidden := 0
		if !dirty && len(names) > 0 && w.AdminDir != "" {
			// Edits git status does not show (assume-unchanged,
			// skip-worktree) are still the attempt's leftovers.
			hidden = worktree.HiddenEdits(w.Path, w.AdminDir, hashLen)
		}
		if !dirty && hidden == 0 && (op == "" || op == "bisect") {
			continue
		}
		why := ""
		switch {
		case op != "" && op != "bisect":
			why = fmt.Sprintf("a %s stopped in worktree %s", op, w.Path)
		case dirty:
			why = fmt.Sprintf("worktree %s holds uncommitted changes (%d staged, %d unstaged, %d untracked)", w.Path, w.Staged, w.Unstaged, w.Untracked)
		default:
			why = fmt.Sprintf("worktree %s holds %s its index hides (assume-unchanged or skip-worktree)", w.Path, ui.Plural(hidden, "edit"))
		}
		for _, n := range names {
			if _, ok := tip[n]; ok {
				if _, seen := out[n]; !seen {
					out[n] = interruption{why: why, path: w.Path}
				}
			}
		}
	}
	// A stash made on a task branch at its present tip: the attempt put
	// its changes aside and stopped (newest stash first).
	for _, sh := range stashes {
		for _, n := range atTip[sh.parent] {
			if _, seen := out[n]; !seen && taskOf[n] != "" {
				out[n] = interruption{why: fmt.Sprintf("stash@{%d} holds uncommitted changes made on it (%s); see them with git stash show -p stash@{%d}, drop them with git stash drop stash@{%d}",
					sh.n, sh.msg, sh.n, sh.n)}
			}
		}
	}
	done := map[string]bool{}
	for _, s := range saves {
		// The branch the save names, or (detached, or renamed since) the
		// task's branches at the saved HEAD.
		names := []string{s.branch}
		if s.branch == "" || tip[s.branch] == "" {
			names = nil
			for _, n := range atTip[s.head] {
				if taskOf[n] != "" && (taskOf[n] == s.task || s.task == "" && s.branch != "") {
					names = append(names, n)
				}
			}
		}
		for _, n := range names {
			// The newest save of the branch at its present tip decides:
			// an older save of the same commit still says it was left
			// unfinished, whatever was saved at other commits since.
			if done[n] || onWorktree[n] || tip[n] != s.head {
				continue
			}
			done[n] = true
			if s.work {
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

// stashEntry is one entry of the stash: stash@{n}, the commit it was made
// on, and its message.
type stashEntry struct {
	n           int
	parent, msg string
}

// readStashes reads the stash's reflog as a file (stash@{0} is its last
// line) and each entry's first parent through the object reader: no git
// process. Without a reader, or a stash, there are none.
func readStashes(commonDir string, objs *gitcmd.Objects) ([]stashEntry, error) {
	if objs == nil {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(commonDir, "logs", "refs", "stash"))
	if err != nil {
		return nil, nil
	}
	var entries []reflogEntry
	for _, line := range strings.Split(string(data), "\n") {
		if e, ok := parseReflogLine(line); ok {
			entries = append(entries, e)
		}
	}
	var out []stashEntry
	for i := len(entries) - 1; i >= 0; i-- {
		c, ok, err := objs.Commit(entries[i].new)
		if err != nil {
			return nil, err
		}
		if ok && len(c.Parents) > 0 {
			out = append(out, stashEntry{n: len(entries) - 1 - i, parent: c.Parents[0], msg: entries[i].msg})
		}
	}
	return out, nil
}
