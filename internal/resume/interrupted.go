package resume

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// interruption is why a task branch's last attempt stopped mid-way, and
// where.
type interruption struct {
	why, path string
}

// interruptions finds the task branches whose attempt stopped mid-way: a
// worktree on the branch (or detached at its tip or past it, or at copies
// of its commits a restack left behind, or rebasing it) holds
// uncommitted changes or a stopped operation; or a clean saved such a
// worktree and removed it, and the branch has not moved since and no
// worktree has it checked out now (what a worktree holds now is newer
// than any save).
func (st *State) interruptions(ctx context.Context, repo *gitcmd.Repo, wts []*Worktree, saves []savedWorktree, stashes []stashEntry, m branches.Match, cf *copyFinder) map[string]interruption {
	f := &interruptFinder{ctx: ctx, repo: repo, taskOf: map[string]string{}, atTip: map[string][]string{},
		tip: map[string]string{}, out: map[string]interruption{}, onWorktree: map[string]bool{}, hashLen: 20, copies: cf}
	for id, bs := range m.ByTask {
		for _, b := range bs {
			f.taskOf[b.Name] = id
		}
	}
	for _, b := range st.TaskBranches {
		if b.Remote == "" {
			f.atTip[b.OID] = append(f.atTip[b.OID], b.Name)
			f.tip[b.Name] = b.OID
		}
	}
	if len(st.Report.Base.Commit) == 64 {
		f.hashLen = 32
	}
	for _, w := range wts {
		f.inWorktree(w)
	}
	f.inStash(stashes)
	f.inSaves(saves, st.Report.RunID)
	return f.out
}

// interruptFinder is one search for interrupted task branches.
type interruptFinder struct {
	ctx  context.Context
	repo *gitcmd.Repo
	// taskOf names each task branch's task. A detached worktree speaks
	// for a branch at its HEAD only when it is that branch's task's
	// worktree: a crashed agent of the next task starts detached at the
	// tip of the one before.
	taskOf map[string]string
	atTip  map[string][]string // the local task branches at each commit
	tip    map[string]string   // each local task branch's tip
	out    map[string]interruption
	// onWorktree are the branches a worktree has now: what it holds is
	// newer than any save.
	onWorktree map[string]bool
	hashLen    int // the repository's object id length in bytes
	// copies tells a task's worktree detached at copies of its branch's
	// own commits (a restack moved the branch, not the worktree); nil
	// reads nothing.
	copies *copyFinder
}

// inWorktree looks at what worktree w holds: changes left uncommitted, an
// operation stopped, or edits its index hides.
func (f *interruptFinder) inWorktree(w *Worktree) {
	// The repository's own checkout is the user's or the
	// orchestrator's, like the shared worktree: what lies there
	// untracked (logs, notes) says nothing of a task's attempt.
	if w.Main || w.Shared || w.Missing || w.Broken {
		return
	}
	if w.Unreadable || w.Symlink || w.Error != "" {
		// What it holds cannot be read: whether its attempt finished
		// is unknown, and unknown is not done.
		if _, ok := f.tip[w.Branch]; ok && !w.Detached {
			if _, seen := f.out[w.Branch]; !seen {
				f.out[w.Branch] = interruption{why: fmt.Sprintf("worktree %s cannot be read (%s): whether its attempt finished is unknown", w.Path, w.Error), path: w.Path}
			}
		}
		return
	}
	op, opBranch := "", ""
	if w.AdminDir != "" {
		op, opBranch = worktree.InProgress(w.AdminDir)
	}
	dirty := w.Staged+w.Unstaged+w.Untracked > 0
	names := f.branchesOf(w, op, opBranch, dirty || op != "" && op != "bisect")
	for _, n := range names {
		f.onWorktree[n] = true
	}
	hidden := 0
	if !dirty && len(names) > 0 && w.AdminDir != "" {
		// Edits git status does not show (assume-unchanged,
		// skip-worktree) are still the attempt's leftovers.
		hidden = worktree.HiddenEdits(w.Path, w.AdminDir, f.hashLen)
	}
	if !dirty && hidden == 0 && (op == "" || op == "bisect") {
		return
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
		if _, ok := f.tip[n]; ok {
			if _, seen := f.out[n]; !seen {
				f.out[n] = interruption{why: why, path: w.Path}
			}
		}
	}
}

// branchesOf names the task branches worktree w works on: the branch a
// rebase or bisect stopped on, the branch it has checked out, or, detached,
// its task's branches at its HEAD or below it, else those whose own
// commits it holds copies of (a restack left it there). left says that it
// holds changes or a stopped operation: only then may finding the copies
// start a process.
func (f *interruptFinder) branchesOf(w *Worktree, op, opBranch string, left bool) []string {
	switch {
	case opBranch != "" && (op == "rebase" || op == "bisect"):
		return []string{opBranch}
	case !w.Detached:
		return []string{w.Branch}
	}
	var names []string
	for _, n := range f.atTip[w.Head] {
		if f.taskOf[n] != "" && f.taskOf[n] == w.Task {
			names = append(names, n)
		}
	}
	if len(names) == 0 && w.Task != "" && w.Head != "" && (w.Unreachable > 0 || w.Staged+w.Unstaged+w.Untracked > 0) {
		// The task's worktree went on past its branch, detached:
		// one question to git for the task's branches below HEAD.
		var pats []string
		for n, id := range f.taskOf {
			if id == w.Task && f.tip[n] != "" {
				pats = append(pats, "refs/heads/"+n)
			}
		}
		if len(pats) > 0 && f.repo != nil {
			sort.Strings(pats)
			args := append([]string{"for-each-ref", "--format=%(refname:lstrip=2)", "--merged", w.Head, "--end-of-options"}, pats...)
			if out, err := f.repo.Run(f.ctx, args...); err == nil {
				names = strings.Fields(string(out))
			}
		}
	}
	if len(names) == 0 && w.Task != "" && w.Head != "" && (w.Unreachable > 0 || left) {
		names = f.copiedTo(w.Task, w.Head, left)
	}
	return names
}

// copiedTo names task's local branches whose own commits head holds
// copies of (docs/DESIGN.md, "Attempts that stopped mid-way:
// interrupted": a restack does not move a worktree). slow allows a
// process where what the reader gives cannot decide.
func (f *interruptFinder) copiedTo(task, head string, slow bool) []string {
	if f.copies == nil {
		return nil
	}
	var names []string
	for n, id := range f.taskOf {
		if id == task && f.tip[n] != "" && f.tip[n] != head {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var on []string
	for _, n := range names {
		if f.copies.onCopies(head, f.tip[n], slow) {
			on = append(on, n)
		}
	}
	return on
}

// inStash: a stash made on a task branch at its present tip: the attempt
// put its changes aside and stopped (newest stash first).
func (f *interruptFinder) inStash(stashes []stashEntry) {
	for _, sh := range stashes {
		for _, n := range f.atTip[sh.parent] {
			if _, seen := f.out[n]; !seen && f.taskOf[n] != "" {
				f.out[n] = interruption{why: fmt.Sprintf("stash@{%d} holds uncommitted changes made on it (%s); see them with git stash show -p stash@{%d}, drop them with git stash drop stash@{%d}",
					sh.n, sh.msg, sh.n, sh.n)}
			}
		}
	}
}

// inSaves looks at the worktrees a clean of run saved with uncommitted
// work, newest first.
func (f *interruptFinder) inSaves(saves []savedWorktree, run string) {
	done := map[string]bool{}
	for _, s := range saves {
		// The branch the save names, or (detached, or renamed since) the
		// task's branches at the saved HEAD.
		names := []string{s.branch}
		if s.branch == "" || f.tip[s.branch] == "" {
			names = nil
			for _, n := range f.atTip[s.head] {
				if f.taskOf[n] != "" && (f.taskOf[n] == s.task || s.task == "" && s.branch != "") {
					names = append(names, n)
				}
			}
		}
		// A save of work at copies of its branch's own commits (the
		// branch restacked since) is at the branch still: the saved
		// branch, else the task's branches.
		copied := map[string]bool{}
		if s.work && s.task != "" && !f.anyAt(names, s.head) {
			for _, n := range f.copiedTo(s.task, s.head, true) {
				if n == s.branch || len(names) == 0 {
					copied[n] = true
				}
			}
			if len(names) == 0 {
				names = sortedSet(copied)
			}
		}
		for _, n := range names {
			// The newest save of the branch at its present tip decides:
			// an older save of the same commit still says it was left
			// unfinished, whatever was saved at other commits since.
			if done[n] || f.onWorktree[n] || f.tip[n] != s.head && !copied[n] {
				continue
			}
			done[n] = true
			if s.work {
				// --from names this save's clean: --restore alone takes
				// the newest save of the task, which a later clean of it
				// (at other commits) would make another one. The path,
				// when the task is missing or that clean saved another
				// worktree of the task too.
				what := s.task
				if what == "" || sameTaskSaved(saves, s) {
					what = ui.ShellQuote(s.path)
				}
				since := "and the branch has not moved since"
				if copied[n] {
					since = fmt.Sprintf("at copies of the commits its branch %s adds (restacked since)", n)
				}
				f.out[n] = interruption{why: fmt.Sprintf("git taskclean saved its worktree %s with uncommitted changes (%s) %s; restore it with: git taskclean --run %s --restore %s --from %s",
					s.path, s.stamp, since, run, what, s.stamp)}
			}
		}
	}
}

// sameTaskSaved says whether the clean that made save s also saved another
// worktree of its task (at another path): the task then names either.
func sameTaskSaved(saves []savedWorktree, s savedWorktree) bool {
	for _, o := range saves {
		if o.stamp == s.stamp && o.task == s.task && o.path != s.path {
			return true
		}
	}
	return false
}

// sortedSet lists the keys of a set, sorted.
func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// anyAt says whether one of the branches names is at commit oid.
func (f *interruptFinder) anyAt(names []string, oid string) bool {
	for _, n := range names {
		if f.tip[n] == oid {
			return true
		}
	}
	return false
}
