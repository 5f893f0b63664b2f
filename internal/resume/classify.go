package resume

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

func (st *State) hasRunWorktree(wts []*worktree.Worktree, run string) bool {
	for _, w := range wts {
		if st.belongsToRun(w, run) {
			return true
		}
	}
	return false
}

// belongsToRun: a worktree on a branch is the run of that branch; only a
// detached HEAD (no branch to go by) is the run's when its directory,
// inside the worktree folder, carries the run's name. A directory of that
// name elsewhere, or one checked out on another run's branch, is somebody
// else's.
func (st *State) belongsToRun(w *worktree.Worktree, run string) bool {
	if br := w.BranchShort(); br != "" {
		return strings.HasPrefix(br, branches.TaskPrefix(run)) || br == branches.MainBranch(run)
	}
	name := w.Name()
	return (strings.HasPrefix(name, branches.TaskPrefix(run)) || name == branches.MainBranch(run)) && st.inWorktreeDir(w.Path)
}

// WorktreeName is the directory name of a task's worktree.
func WorktreeName(run, id string) string { return branches.TaskPrefix(run) + plan.DashedID(id) }

// inWorktreeDir reports whether path's parent is the configured worktree
// folder. A relative setting is relative to the top of the main worktree,
// where orchestrators make the folder: a folder of that name elsewhere
// (inside a task's files, under a subdirectory) is not the run's. A bare
// repository has no main worktree to be relative to, so there any folder
// of that name matches: its worktrees live wherever the user put them.
func (st *State) inWorktreeDir(path string) bool {
	parent := filepath.Clean(filepath.Dir(path))
	dir := filepath.Clean(st.WorktreeDir)
	if !filepath.IsAbs(dir) {
		top, ok := st.mainTop()
		if !ok {
			return parent == dir || strings.HasSuffix(parent, string(filepath.Separator)+dir)
		}
		dir = filepath.Join(top, dir)
	}
	// git may list a path through a symbolic link (a temporary directory
	// under /var on macOS, /tmp linked elsewhere) and the setting name its
	// target, or the other way round.
	return parent == dir || canonical(parent) == canonical(dir)
}

// hasWorktreeFolder reports whether the worktree folder is one place: an
// absolute setting, or a relative one below the main worktree's top.
func (st *State) hasWorktreeFolder() bool {
	if filepath.IsAbs(st.WorktreeDir) {
		return true
	}
	_, ok := st.mainTop()
	return ok
}

// mainTop is the top of the main worktree; ok is false in a bare
// repository, which has none. The worktree list names it (its first entry);
// without a list, a non-bare repository's common directory is the main
// worktree's .git.
func (st *State) mainTop() (top string, ok bool) {
	for _, w := range st.AllWorktrees {
		if w.Main {
			return w.Path, !w.Bare
		}
	}
	if st.Repo != nil && !st.Repo.Bare && filepath.Base(st.Repo.CommonDir) == ".git" {
		return filepath.Dir(st.Repo.CommonDir), true
	}
	return "", false
}

// isShared reports whether w is the run's shared worktree: the directory
// <run>-main in the worktree folder whatever it has checked out (sequential
// tasks leave it on their branches, some orchestrators create it detached),
// or any linked worktree on branch <run>-main. It is the orchestrator's
// workspace and holds the plan, never a task's worktree.
func (st *State) isShared(w *worktree.Worktree, run string) bool {
	if w.Main || w.Bare {
		return false
	}
	main := branches.MainBranch(run)
	return w.BranchShort() == main || w.Name() == main && st.inWorktreeDir(w.Path)
}

// classifyWorktrees picks the run's worktrees out of all of them, assigns each
// to a task, and reads what each holds.
func (st *State) classifyWorktrees(ctx context.Context, wts []*worktree.Worktree, m branches.Match, read bool) []*Worktree {
	run := st.Report.RunID
	branchTask := map[string]string{}
	for id, bs := range m.ByTask {
		for _, b := range bs {
			branchTask[b.Name] = id
		}
	}
	nameTask := map[string]string{}
	if st.Plan != nil {
		for _, t := range st.Plan.Tasks() {
			nameTask[WorktreeName(run, t.ID)] = t.ID
		}
	}
	current := canonical(st.Repo.TopLevel)
	var admins map[string]string // read whole only when a worktree cannot say
	adminDirs := func() map[string]string {
		if admins == nil {
			admins = worktree.AdminDirs(st.Repo.CommonDir)
		}
		return admins
	}

	var out []*Worktree
	var live []string
	var detached []string
	for _, w := range wts {
		if w.Bare || !st.belongsToRun(w, run) {
			continue
		}
		rw := st.runWorktree(w, current, adminDirs)
		st.assignTask(w, rw, branchTask, nameTask)
		st.Worktrees = append(st.Worktrees, w)
		out = append(out, rw)
		if !rw.Missing && !rw.Broken && !rw.Unreadable && !rw.Symlink {
			live = append(live, w.Path)
		}
		// A missing directory's HEAD still holds commits that removing its
		// admin entry would orphan.
		if w.Detached && w.HEAD != "" {
			detached = append(detached, w.HEAD)
		}
	}

	if !read {
		live, detached = nil, nil
	}
	if st.opts.NoStatus {
		live = st.decidingOnly(out, live, branchTask)
	}
	st.readWorktrees(ctx, out, live, detached)
	return out
}

// runWorktree is the report's entry for w: where its admin entry is,
// whether it can be used at all, and whether the command runs in it
// (current is the canonical top of the worktree it runs in).
func (st *State) runWorktree(w *worktree.Worktree, current string, adminDirs func() map[string]string) *Worktree {
	rw := &Worktree{Path: w.Path, Head: w.HEAD, Branch: w.BranchShort(), Detached: w.Detached,
		Locked: w.Locked, LockReason: w.LockReason, Main: w.Main}
	if w.Main {
		rw.AdminDir = st.Repo.CommonDir
	} else {
		var ok bool
		if rw.AdminDir, ok = worktree.AdminDirOf(st.Repo.CommonDir, w.Path); !ok {
			rw.AdminDir = adminDirs()[filepath.Clean(w.Path)]
		}
	}
	if fi, err := os.Lstat(w.Path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A symbolic link is never followed, whatever git makes of the
		// place it points to: not missing, not a damaged entry.
		rw.Symlink = true
		rw.Error = "its path is a symbolic link; not followed"
	} else if w.Prunable {
		// git calls a worktree prunable when it cannot use its .git
		// file. Only a directory that is really gone is "missing"; one
		// git cannot read stays as it is; otherwise the admin entry is
		// damaged (it names a place that is not this worktree), and
		// only that entry can go.
		_, statErr := os.Lstat(w.Path)
		_, readErr := os.ReadFile(filepath.Join(w.Path, ".git"))
		switch {
		case errors.Is(statErr, fs.ErrNotExist):
			rw.Missing = true
		case errors.Is(readErr, fs.ErrPermission) || errors.Is(statErr, fs.ErrPermission):
			rw.Error = "cannot read it (permission denied)"
			rw.Unreadable = true
		default:
			rw.Error = "git cannot use it: " + w.PrunableReason
			rw.Broken = true
		}
	}
	// The worktree this command runs in is known by its git directory
	// as well as by its path: a worktree moved by hand is still the
	// current one although git lists it under its old path.
	rw.Current = current != "" && canonical(w.Path) == current ||
		rw.AdminDir != "" && sameFile(rw.AdminDir, st.Repo.GitDir)
	return rw
}

// assignTask says whose worktree rw is: the shared worktree's, a task's
// (by its branch, else by its directory's name), the run's, or an unknown
// task's ("?"); and whether it is outside the worktree folder.
func (st *State) assignTask(w *worktree.Worktree, rw *Worktree, branchTask, nameTask map[string]string) {
	run := st.Report.RunID
	switch {
	case st.isShared(w, run):
		// A sequential task's branch checked out here is where that
		// task ended, not a worktree of the task: removing it would
		// take the orchestrator's workspace.
		rw.Shared, rw.Task = true, ""
	case branchTask[rw.Branch] != "":
		rw.Task = branchTask[rw.Branch]
	case nameTask[w.Name()] != "" && st.inWorktreeDir(w.Path):
		rw.Task = nameTask[w.Name()]
	case w.Name() == branches.MainBranch(run) || rw.Branch == branches.MainBranch(run):
		rw.Task = ""
	default:
		rw.Task = "?"
	}
	// A worktree of the run elsewhere (a review checkout of a task's
	// branch) is the user's placement: reported, removed only when
	// named (--task) or with the whole run (--all). A bare repository
	// with a relative setting has no folder to be outside of: there
	// task worktrees sit beside the repository, and only a directory
	// named for the run's tasks is one the run made.
	if st.hasWorktreeFolder() {
		rw.Outside = !w.Main && !rw.Shared && !st.inWorktreeDir(w.Path)
	} else {
		rw.Outside = !w.Main && !rw.Shared && !strings.HasPrefix(w.Name(), branches.TaskPrefix(run))
	}
}

// decidingOnly keeps, of the live worktrees, only those whose status
// decides a task: a worktree on a task's branch (or at its tip) with
// uncommitted changes means its attempt was interrupted, so the task is
// not done; so does a task's own worktree detached past its branch, or at
// copies of its branch's commits (a restack left it there).
//
// A worktree on a branch that holds no commit past the run's start (its tip
// is the base, or <run>-main), or detached in a task none of whose branches
// does, decides nothing: an interruption takes from a task only the commits
// its stopped attempt made, and leaves a task done by other work or landed
// done. The clean does not read it here (it reads
// every worktree it takes after stopping it); a worktree the run's agents
// made but never committed in is the common stale one.
func (st *State) decidingOnly(out []*Worktree, live []string, branchTask map[string]string) []string {
	tipTask := map[string]bool{}
	for _, b := range st.TaskBranches {
		tipTask[b.OID] = true
	}
	atStart := map[string]bool{}
	if c := st.Report.Base.Commit; c != "" {
		atStart[c] = true
	}
	if st.MainBranch != nil {
		atStart[st.MainBranch.OID] = true
	}
	// Every copy of the name (a remote's may be ahead and count in the
	// local branch's place) must be at the start.
	branchAtStart := map[string]bool{}
	moved := map[string]bool{}
	for _, b := range st.TaskBranches {
		if atStart[b.OID] {
			branchAtStart[b.Name] = true
		} else {
			moved[b.Name] = true
		}
	}
	for _, b := range st.RemoteCopies {
		if !atStart[b.OID] {
			moved[b.Name] = true
		}
	}
	for n := range moved {
		delete(branchAtStart, n)
	}
	// A detached worktree stands for its own task's branches only.
	taskMoved := map[string]bool{}
	for n := range moved {
		if id := branchTask[n]; id != "" {
			taskMoved[id] = true
		}
	}
	keep := map[string]bool{}
	for _, rw := range out {
		ownTask := rw.Task != "" && rw.Task != "?"
		if !rw.Detached && branchAtStart[rw.Branch] || rw.Detached && ownTask && !taskMoved[rw.Task] {
			continue
		}
		if !rw.Shared && (!rw.Detached && branchTask[rw.Branch] != "" || rw.Detached && (tipTask[rw.Head] || ownTask)) {
			keep[rw.Path] = true
		}
	}
	var some []string
	for _, p := range live {
		if keep[p] {
			some = append(some, p)
		}
	}
	return some
}

// readWorktrees reads what the live worktrees hold (one status each) and
// the commits on detached HEADs that no ref holds (one walk for all), and
// gives each worktree its state.
func (st *State) readWorktrees(ctx context.Context, out []*Worktree, live, detached []string) {
	// The statuses are read a few at once in one call, which tells no
	// count: the line is a title with the number of worktrees.
	var step *progress.Step
	if len(live) > 0 {
		step = st.opts.Progress.Start("Reading "+ui.Plural(len(live), "worktree"), 0)
	}
	statuses, files := worktree.ReadStatusFiles(ctx, live, st.opts.Ignored)
	step.Done()
	unreach := map[string]int{}
	if len(detached) > 0 {
		cs, err := st.Repo.WalkNotOnRefs(ctx, uniq(detached))
		if err == nil {
			unreach = countPerTip(cs, detached)
		}
	}
	for _, rw := range out {
		if s, ok := statuses[rw.Path]; ok {
			rw.Staged, rw.Unstaged, rw.Untracked = s.Staged, s.Unstaged, s.Untracked
			rw.UntrackedFiles, rw.Ignored = files[rw.Path].Untracked, files[rw.Path].Ignored
			if s.Err != nil {
				rw.Error = s.Err.Error()
			}
		}
		if rw.Detached {
			rw.Unreachable = unreach[rw.Head]
		}
		switch {
		case rw.Missing:
			rw.State = WorktreeMissing
		case rw.Locked:
			rw.State = WorktreeLocked
		case rw.Error != "":
			rw.State = WorktreeUnknown
		case rw.Unreachable > 0:
			rw.State = WorktreeDetachedWithCommits
		case rw.Staged+rw.Unstaged+rw.Untracked > 0:
			rw.State = WorktreeDirty
		default:
			rw.State = WorktreeClean
		}
	}
}

// sharedWorkFor says whose uncommitted work the shared worktree holds. A
// sequential task runs inside it and its branch is made only when it ends,
// so work left there by a crash sits on the previous task's branch and
// belongs to the task the run resumes with; otherwise it is the
// orchestrator's own. Either way it is kept: the worktree is never stale.
// Called once the phases, and so the resume point, are built.
func (st *State) sharedWorkFor() {
	rep := st.Report
	for _, w := range rep.Worktrees {
		if !w.Shared || w.Staged+w.Unstaged+w.Untracked == 0 {
			continue
		}
		if r := rep.Resume; r != nil && r.Mode == ModeSequential && len(r.Tasks) > 0 {
			w.WorkFor = r.Tasks[0]
			rep.Problems = append(rep.Problems, Problem{Kind: ProblemSharedWorktreeWork, Task: w.WorkFor,
				Message: fmt.Sprintf("worktree %s holds uncommitted work of task %s (the running task of sequential phase %d); it is kept",
					w.Path, w.WorkFor, r.Phase)})
			continue
		}
		w.WorkFor = ""
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemSharedWorktreeWork,
			Message: fmt.Sprintf("worktree %s holds uncommitted work of the run (no sequential phase is running); it is kept", w.Path)})
	}
}

// countPerTip counts, for each tip, the commits of cs reachable from it.
func countPerTip(cs []gitcmd.Commit, tips []string) map[string]int {
	parents := make(map[string][]string, len(cs))
	for _, c := range cs {
		parents[c.OID] = c.Parents
	}
	res := map[string]int{}
	for _, tip := range tips {
		if _, ok := parents[tip]; !ok {
			continue
		}
		seen := map[string]bool{tip: true}
		stack := []string{tip}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range parents[n] {
				if _, in := parents[p]; in && !seen[p] {
					seen[p] = true
					stack = append(stack, p)
				}
			}
		}
		res[tip] = len(seen)
	}
	return res
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sameFile reports whether a and b name the same directory.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func canonical(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
