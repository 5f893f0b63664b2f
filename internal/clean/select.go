package clean

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Observed is what the selection needs to know beyond the run's state:
// facts read from the file system and /proc, gathered by observe so that
// Select itself is a pure function, tested on hand-built states.
type Observed struct {
	// Live lists, per worktree path, the processes working in it.
	Live map[string][]worktree.Proc
	// InProgress is the operation (rebase, am, merge, ...) under way in each
	// worktree, the run's or not, by path, with the branch it will update.
	InProgress map[string]Operation
	// Modules lists submodule repositories kept in a worktree's admin entry.
	Modules map[string][]string
	// Nested lists repositories embedded in a worktree's files.
	Nested map[string][]string
	// Inner lists, per worktree of the run, the run's other worktrees
	// whose directories are inside its own (an orchestrator working in the
	// shared worktree makes task worktrees there). They are not in Nested.
	Inner map[string][]string
	// RemovesInWaves is set by a caller that stops, saves and removes
	// Selection.Waves one after the other: only then can a worktree holding
	// others of the run go in the same clean, after them. Otherwise it
	// stays, and a rerun takes it once they are gone.
	RemovesInWaves bool
	// LastChange is each worktree's newest change (only with --older-than).
	LastChange map[string]time.Time
	// Protected are directories no removal may touch: the git directories,
	// the current directory and every worktree (by canonical path).
	Protected []string
	// Branches maps each worktree's path to the branch it has checked out,
	// for every worktree of the repository.
	Branches map[string]string
	// Held lists, per worktree path, branches an operation there will
	// update besides the one it names first: a bisect's starting branch
	// under another operation, a `rebase --update-refs` list.
	Held map[string][]Operation
	// Foreign says why a worktree's .git does not lead to its own admin
	// entry (rewritten to name another repository, replaced by a
	// repository): git run there would read and write somewhere else.
	Foreign map[string]string
	// HeadAliases lists, per worktree path, the branches its HEAD goes
	// through that are symbolic refs (HEAD -> <run>-main -> main gives
	// <run>-main), short names: Branches holds only where the chain ends,
	// as git's worktree list does. Read only when a branch of the run is a
	// symbolic ref.
	HeadAliases map[string][]string
	// Bare is the path of the repository's bare entry in the worktree
	// list, when it has one: no worktree, yet its HEAD (the common
	// directory's) names a branch, held in Branches and HeadAliases under
	// this path as a worktree's is. Freeing it takes another command.
	Bare string
}

// Operation is an operation stopped in a worktree.
type Operation struct{ Op, Branch string }

// Target is a worktree the clean saves and removes.
type Target struct {
	W *resume.Worktree
	// Kind: remove (its directory goes), missing (only the entry is left
	// to drop), broken (a damaged entry: only the entry goes).
	Kind string
	// Op is an operation under way in it, saved with its admin state.
	Op string
	// Inner are the targets inside its directory: they are removed before
	// it (see Waves), and it stays if one of them does.
	Inner []*Target

	// aliases are the branches its HEAD goes through that are symbolic
	// refs (Observed.HeadAliases): if it stays, they stay.
	aliases []string

	aside  string // where the directory was renamed to
	locked bool   // the clean wrote the entry's lock
	since  time.Time
	snap   *worktree.Snapshot
	admin  string // commit keeping the admin entry's state
	ok     bool   // saved (or nothing to save) and proven
	skip   *Action
	tmp    string
	done   bool
	// dryIgnored is what a dry run expects of the ignored files.
	dryIgnored *worktree.IgnoredPlan
}

// BranchTarget is a branch the clean deletes.
type BranchTarget struct {
	B    branches.Branch
	Task string
}

// Selection is what a clean acts on.
type Selection struct {
	Targets  []*Target
	Skips    []*Action
	Branches []BranchTarget
	Claims   []*claims.Claim
}

// The kinds of target.
const (
	kindRemove  = "remove"
	kindMissing = "missing"
	kindBroken  = "broken"
)

// Select decides what a clean saves and removes. It refuses (an input
// error: nothing has changed) to delete a branch that a worktree which stays
// has checked out or is rebasing: git would be left with a worktree on a
// branch that no longer exists. It is the step "select without side
// effects" of docs/DESIGN.md, "No loss: how the clean removes": the
// worktrees first, then the branches, then the claims.
func Select(st *resume.State, opts Options, obs Observed, wantTask map[string]bool) (*Selection, error) {
	sel := &Selection{}
	cands, staying := sel.worktreeCandidates(st, opts, obs, wantTask)
	sel.Targets = nestTargets(cands, obs, staying, func(t *Target, why string) { sel.skipWorktree(t.W, why, obs) })
	brs := branchesToDelete(st, opts, wantTask)
	holders := branchHolders(obs, sel.Targets, staying)
	if err := sel.takeBranches(brs, holders); err != nil {
		return nil, err
	}
	sel.Claims = claimsToDrop(st, opts, wantTask)
	return sel, nil
}

// worktreeCandidates goes through the run's worktrees: those the options
// select and nothing keeps are the candidate targets (before nestTargets
// weighs worktrees inside others); the others are skipped, with their
// reason, and returned in staying (path -> why it stays). A worktree the
// clean cannot fully see is never a candidate, whatever the flags (see
// docs/DESIGN.md, "No loss: how the clean removes").
func (sel *Selection) worktreeCandidates(st *resume.State, opts Options, obs Observed, wantTask map[string]bool) ([]*Target, map[string]string) {
	done := doneTasks(st)
	staying := map[string]string{} // path -> why it stays
	var cands []*Target
	for _, w := range st.Report.Worktrees {
		if !worktreeSelected(w, opts, wantTask, done) {
			staying[w.Path] = "not selected"
			continue
		}
		if skip := keepReason(st, w, opts, obs, opts.All || wantTask[w.Task]); skip != "" {
			sel.skipWorktree(w, skip, obs)
			staying[w.Path] = skip
			continue
		}
		t := &Target{W: w, Kind: kindRemove, Op: obs.InProgress[w.Path].Op, aliases: obs.HeadAliases[w.Path]}
		switch {
		case w.Missing:
			t.Kind = kindMissing
		case w.Broken:
			t.Kind = kindBroken
		}
		cands = append(cands, t)
	}
	return cands, staying
}

// doneTasks lists the tasks of the run that are done.
func doneTasks(st *resume.State) map[string]bool {
	done := map[string]bool{}
	for _, s := range st.States {
		if s.Status.Done() {
			done[s.Task.ID] = true
		}
	}
	return done
}

// worktreeSelected says whether the options take worktree w: --all takes
// every one, --task those of the tasks named, and otherwise the stale ones
// (and with --completed those of finished tasks).
func worktreeSelected(w *resume.Worktree, opts Options, wantTask, done map[string]bool) bool {
	switch {
	case opts.All:
		return true
	case w.Shared:
		// The orchestrator's workspace, holding the plan: the next
		// resume needs it, whichever task's branch it has checked out
		// (a --task naming that task is refused by branchHolders, as for
		// any branch a staying worktree holds). Only the whole run takes it.
		return false
	case len(wantTask) > 0:
		return wantTask[w.Task]
	case w.Outside:
		// Put outside the worktree folder by hand (a review checkout):
		// taken only when its task is named, never as stale.
		return false
	default:
		return w.Stale || w.StaleLocked || (opts.Completed && done[w.Task])
	}
}

// keepReason says why a selected worktree must stay, or "": skipReason,
// or, for a worktree whose task was not named, a live claim of its task.
func keepReason(st *resume.State, w *resume.Worktree, opts Options, obs Observed, named bool) string {
	skip := skipReason(w, opts, obs, named)
	if cl := st.ClaimOf(w.Task); skip == "" && !named && cl != nil && (!cl.Expired || cl.Cached) {
		// --completed, or a stale worktree of a task claimed anew: a
		// live claim says its holder may still be at work.
		skip = "task " + w.Task + " is claimed by " + cl.Holder + "; --task " + w.TaskID() + " takes it all the same"
	}
	return skip
}

// branchesToDelete lists the branches the options name: every branch of
// the run with --all, else the branches (duplicates included) of the tasks
// named.
func branchesToDelete(st *resume.State, opts Options, wantTask map[string]bool) []BranchTarget {
	var brs []BranchTarget
	if opts.All {
		for _, b := range st.TaskBranches {
			brs = append(brs, BranchTarget{B: b, Task: taskOfBranch(st, b.Name)})
		}
		if st.MainBranch != nil {
			brs = append(brs, BranchTarget{B: *st.MainBranch})
		}
		return withCopies(st, brs)
	}
	for _, s := range st.States {
		if !wantTask[s.Task.ID] {
			continue
		}
		if s.Branch != nil {
			brs = append(brs, BranchTarget{B: *s.Branch, Task: s.Task.ID})
		}
		for _, b := range s.Duplicates {
			brs = append(brs, BranchTarget{B: b, Task: s.Task.ID})
		}
	}
	return withCopies(st, brs)
}

// withCopies adds, to each branch to delete, its other copy on the remote
// read: a local branch's remote-tracking copy is said as skipped (every
// machine that reads the remote still reads it), and the local branch
// behind a remote copy that counted in its place is deleted with it.
func withCopies(st *resume.State, brs []BranchTarget) []BranchTarget {
	for _, bt := range brs {
		if bt.B.Remote == "" {
			if rc, ok := st.RemoteCopies[bt.B.Name]; ok {
				brs = append(brs, BranchTarget{B: rc, Task: bt.Task})
			}
		} else if lb, ok := st.LocalBehind(bt.B.Name); ok {
			brs = append(brs, BranchTarget{B: lb, Task: bt.Task})
		}
	}
	return brs
}

// branchHolders says who holds each branch among the worktrees that stay
// (every worktree of the repository that is not a target): branch ->
// the text refusing its deletion, which names the way to free it.
func branchHolders(obs Observed, targets []*Target, staying map[string]string) map[string]string {
	targetPath := map[string]bool{}
	for _, t := range targets {
		targetPath[t.W.Path] = true
	}
	holders := map[string]string{} // branch -> refusal text
	for _, p := range holderPaths(obs) {
		if targetPath[p] {
			continue
		}
		why := staying[p]
		if why == "" || why == "not selected" {
			why = "it stays"
		} else {
			why = "it stays: " + why
		}
		if p == obs.Bare {
			// `switch --detach` fails in a bare repository, and its HEAD
			// must name a branch for a clone of it to check one out.
			free := fmt.Sprintf("point it at another branch with: git -C %s symbolic-ref HEAD refs/heads/<branch>", ui.ShellQuote(p))
			if b := obs.Branches[p]; b != "" {
				holders[b] = fmt.Sprintf("branch %s is what the HEAD of the bare repository %s names; %s", b, p, free)
			}
			for _, a := range obs.HeadAliases[p] {
				holders[a] = fmt.Sprintf("branch %s, a symbolic ref, is what the HEAD of the bare repository %s names; %s", a, p, free)
			}
			continue
		}
		if b := obs.Branches[p]; b != "" {
			holders[b] = fmt.Sprintf("branch %s is checked out in %s (%s); free it with: git -C %s switch --detach",
				b, p, why, ui.ShellQuote(p))
		}
		// An alias the HEAD goes through holds as the branch does; the
		// branch an alias points to being checked out holds no alias.
		for _, a := range obs.HeadAliases[p] {
			holders[a] = fmt.Sprintf("branch %s, a symbolic ref, is what the HEAD of %s names (%s); free it with: git -C %s switch --detach",
				a, p, why, ui.ShellQuote(p))
		}
		for _, op := range append([]Operation{obs.InProgress[p]}, obs.Held[p]...) {
			if op.Branch != "" {
				holders[op.Branch] = fmt.Sprintf("branch %s: a %s of it is in progress in %s (%s); finish it, or abort it with: git -C %s %s",
					op.Branch, op.Op, p, why, ui.ShellQuote(p), abortCommand(op.Op))
			}
		}
	}
	return holders
}

// holderPaths lists, sorted, every worktree that may hold a branch: one
// with a branch checked out, an operation in progress or branches an
// operation will update.
func holderPaths(obs Observed) []string {
	paths := make([]string, 0, len(obs.Branches)+len(obs.InProgress))
	for p := range obs.Branches {
		paths = append(paths, p)
	}
	for p := range obs.InProgress {
		if _, ok := obs.Branches[p]; !ok {
			paths = append(paths, p)
		}
	}
	for p := range obs.Held {
		if _, ok := obs.Branches[p]; !ok {
			if _, ok := obs.InProgress[p]; !ok {
				paths = append(paths, p)
			}
		}
	}
	for p := range obs.HeadAliases {
		_, b := obs.Branches[p]
		_, o := obs.InProgress[p]
		_, h := obs.Held[p]
		if !b && !o && !h {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// takeBranches selects the branches to delete: a remote-tracking branch is
// skipped (never deleted), and a branch a worktree that stays holds refuses
// the whole clean, an input error before anything changed.
func (sel *Selection) takeBranches(brs []BranchTarget, holders map[string]string) error {
	for _, bt := range brs {
		if bt.B.Remote != "" {
			sel.Skips = append(sel.Skips, &Action{Op: OpSkipBranch, Task: bt.Task, Branch: bt.B.Remote + "/" + bt.B.Name,
				Commit: bt.B.OID, Reason: fmt.Sprintf("a remote-tracking branch; git taskclean never deletes remote branches, and every machine that reads %s still reads its work (to delete it there: git push %s --delete %s)",
					bt.B.Remote, bt.B.Remote, bt.B.Name)})
			continue
		}
		if msg, ok := holders[bt.B.Name]; ok {
			return &exit.BadInputError{Msg: "refusing to delete " + msg}
		}
		sel.Branches = append(sel.Branches, bt)
	}
	return nil
}

// claimsToDrop lists, by task, the claims the clean drops: an expired one
// is dead; --task and --all drop their tasks'. A live claim of a finished
// task stays: by the completion rule a task is done at its first commit,
// while its holder may still be working (it releases the claim, or the
// claim expires).
func claimsToDrop(st *resume.State, opts Options, wantTask map[string]bool) []*claims.Claim {
	var out []*claims.Claim
	for _, id := range slices.Sorted(maps.Keys(st.Claims)) {
		// A rival under the task's other spelling (two older versions
		// each took it) is a claim of its own: dropped by the same rule.
		for _, c := range st.Claims[id].WithRivals() {
			if opts.All || c.Expired || wantsClaim(wantTask, id) {
				out = append(out, c)
			}
		}
	}
	return out
}

// wantsClaim says whether the claim of task key (its dotted id) belongs to
// a task the options name, whichever way the plan spells the id.
func wantsClaim(wantTask map[string]bool, key string) bool {
	for id, want := range wantTask {
		if want && claims.Key(id) == key {
			return true
		}
	}
	return false
}

func (sel *Selection) skipWorktree(w *resume.Worktree, reason string, obs Observed) {
	a := &Action{Op: OpSkipWorktree, Task: w.TaskID(), Path: w.Path, Reason: reason}
	for _, p := range obs.Live[w.Path] {
		a.Pids = append(a.Pids, p.PID)
	}
	sel.Skips = append(sel.Skips, a)
}

// nestTargets settles worktrees inside other worktrees of the run. Removing
// the outer one renames its whole directory aside, the inner one with it,
// and its save would hold the inner one's files: so an outer worktree goes
// only when every worktree inside it goes too, before it. It returns the
// targets in the order they are removed, each after those inside it. A
// worktree kept for that reason is passed to skip and marked in staying.
func nestTargets(cands []*Target, obs Observed, staying map[string]string, skip func(*Target, string)) []*Target {
	byPath := map[string]*Target{}
	for _, t := range cands {
		byPath[t.W.Path] = t
	}
	// Keeping one worktree may keep the one around it: repeat until
	// nothing changes.
	for changed := true; changed; {
		changed = false
		for _, t := range cands {
			if byPath[t.W.Path] != t || t.Kind != kindRemove {
				continue // kept already; or no directory of its own to move
			}
			why := ""
			for _, p := range obs.Inner[t.W.Path] {
				switch {
				case byPath[p] == nil:
					why = "holds the worktree " + p + ", which stays"
					if s := staying[p]; s != "" && s != "not selected" {
						why += " (" + s + ")"
					}
					why += "; removing it would take that worktree along"
				case !obs.RemovesInWaves:
					why = "holds the worktree " + p + ", which this clean removes; run it again to remove this one"
				default:
					continue
				}
				break
			}
			if why != "" {
				delete(byPath, t.W.Path)
				staying[t.W.Path] = why
				skip(t, why)
				changed = true
			}
		}
	}
	var out []*Target
	for _, t := range cands {
		if byPath[t.W.Path] != t {
			continue
		}
		t.Inner = nil
		if t.Kind == kindRemove {
			for _, p := range obs.Inner[t.W.Path] {
				t.Inner = append(t.Inner, byPath[p])
			}
		}
		out = append(out, t)
	}
	// Whatever is inside a worktree is inside every worktree around it, so
	// a worktree holds more targets than any worktree inside it: by that
	// count the inner ones come first. The sort is stable: otherwise the
	// order stays the report's.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Inner) < len(out[j].Inner) })
	return out
}

// Waves splits the targets into the groups a clean removes one after the
// other: a worktree's wave comes after the waves of every worktree inside
// it, so each group is stopped, saved and removed with nothing of a later
// group inside it. Without nested worktrees there is one wave.
func (sel *Selection) Waves() [][]*Target {
	level := map[*Target]int{}
	var waves [][]*Target
	for _, t := range sel.Targets { // inner targets come first (nestTargets)
		n := 0
		for _, in := range t.Inner {
			if l, ok := level[in]; ok && l+1 > n {
				n = l + 1
			}
		}
		level[t] = n
		for len(waves) <= n {
			waves = append(waves, nil)
		}
		waves[n] = append(waves[n], t)
	}
	return waves
}

// innerKept names a worktree inside t that an earlier wave left in place
// (skipped; or, in a real clean, not removed), or "": t must then stay too.
func (t *Target) innerKept(dryRun bool) string {
	for _, in := range t.Inner {
		if in.skip != nil || !dryRun && !in.done {
			return in.W.Path
		}
	}
	return ""
}

// skipReason says why a selected worktree must stay, or "".
func skipReason(w *resume.Worktree, opts Options, obs Observed, named bool) string {
	switch {
	case w.Main:
		return "it is the main worktree (the repository's own checkout); never removed"
	case w.Current:
		return "it is the worktree this command runs in"
	case w.Locked:
		return "locked (" + w.LockText() + "); unlock it with git worktree unlock to clean it"
	case w.Error != "" && !w.Broken:
		return w.Error
	}
	if w.Broken {
		return ""
	}
	if !w.Missing {
		if why := obs.Foreign[w.Path]; why != "" {
			return why + "; left alone (repair it with git worktree repair, or move it away)"
		}
		if p := holdsProtected(w.Path, obs.Protected); p != "" {
			return "it holds " + p + ", which no removal may touch"
		}
		if n := obs.Nested[w.Path]; len(n) > 0 {
			return "holds embedded repositories that cannot be saved: " + strings.Join(n, ", ")
		}
	}
	if m := obs.Modules[w.Path]; len(m) > 0 {
		return "its admin entry holds submodule repositories that cannot be saved (" + strings.Join(m, ", ") + "); remove them by hand or keep the worktree"
	}
	if op := obs.InProgress[w.Path]; op.Op != "" && !named {
		return fmt.Sprintf("a %s is in progress in it; finish or abort it, or name the task with --task to save it and remove it anyway", op.Op)
	}
	if opts.OlderThan > 0 && !w.Missing {
		if t, ok := obs.LastChange[w.Path]; ok && opts.Now.Sub(t) < opts.OlderThan {
			return fmt.Sprintf("changed %s ago (--older-than %s)", opts.Now.Sub(t).Round(time.Second), opts.OlderThan)
		}
	}
	if procs := obs.Live[w.Path]; len(procs) > 0 && !opts.IgnoreLive {
		return "in use by " + describeProcs(procs) + "; stop it, or pass --ignore-live to save and remove it anyway"
	}
	return ""
}

func describeProcs(procs []worktree.Proc) string {
	var parts []string
	for i, p := range procs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(procs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("pid %d (%s)", p.PID, p.Command))
	}
	return strings.Join(parts, ", ")
}

// abortCommand is the git command that ends an operation and frees its
// branch.
func abortCommand(op string) string {
	if op == "bisect" {
		return "bisect reset"
	}
	return op + " --abort"
}

// holdsProtected returns the first protected directory at or below path.
func holdsProtected(path string, protected []string) string {
	p := canonical(path)
	for _, q := range protected {
		if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
			return q
		}
	}
	return ""
}

func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// observe reads what Select needs from the file system and /proc.
func observe(st *resume.State, opts Options, repo *gitcmd.Repo, wantTask map[string]bool) Observed {
	obs := Observed{InProgress: map[string]Operation{}, Modules: map[string][]string{},
		Nested: map[string][]string{}, Inner: map[string][]string{}, LastChange: map[string]time.Time{}, Branches: map[string]string{},
		Foreign: map[string]string{}, Held: map[string][]Operation{}, HeadAliases: map[string][]string{}}
	aliases := hasAlias(st)
	admins := worktree.AdminDirs(repo.CommonDir)
	cwd := opts.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	obs.Protected = append(obs.Protected, canonical(repo.CommonDir), canonical(repo.GitDir))
	if cwd != "" {
		obs.Protected = append(obs.Protected, canonical(cwd))
	}
	run := map[string]*resume.Worktree{}
	for _, w := range st.Report.Worktrees {
		run[w.Path] = w
	}
	for _, w := range st.AllWorktrees {
		if w.Bare {
			observeBare(&obs, w.Path, repo.CommonDir)
			continue
		}
		admin := admins[filepath.Clean(w.Path)]
		if w.Main {
			admin = repo.CommonDir
		}
		if admin != "" {
			if op, br := worktree.InProgress(admin); op != "" {
				obs.InProgress[w.Path] = Operation{Op: op, Branch: br}
			}
			if held := heldBranches(admin); len(held) > 0 {
				obs.Held[w.Path] = held
			}
			if aliases {
				if al := headBranchAliases(admin, repo.CommonDir); len(al) > 0 {
					obs.HeadAliases[w.Path] = al
				}
			}
		}
		if w.Branch != "" {
			obs.Branches[w.Path] = w.BranchShort()
		}
		if run[w.Path] == nil {
			obs.Protected = append(obs.Protected, canonical(w.Path))
		}
	}
	// Each path resolved once: the pairs below would resolve each of n
	// paths 2n times.
	canon := map[string]string{}
	for _, w := range st.Report.Worktrees {
		if _, ok := canon[w.Path]; !ok {
			canon[w.Path] = canonical(w.Path)
		}
	}
	// Each worktree is walked whole for repositories inside it (ignored
	// trees included), a few walks at once.
	nested := nestedAll(st.Report.Worktrees)
	var dirs []string
	for _, w := range st.Report.Worktrees {
		// The run's worktrees inside this one: Select removes them first,
		// or keeps this one when one of them stays.
		for _, o := range st.Report.Worktrees {
			if o != w && !o.Missing && strings.HasPrefix(canon[o.Path], canon[w.Path]+string(filepath.Separator)) {
				obs.Inner[w.Path] = append(obs.Inner[w.Path], o.Path)
			}
		}
		if w.AdminDir != "" && !w.Main {
			if fi, err := os.ReadDir(filepath.Join(w.AdminDir, "modules")); err == nil && len(fi) > 0 {
				for _, e := range fi {
					obs.Modules[w.Path] = append(obs.Modules[w.Path], "modules/"+e.Name())
				}
			}
		}
		if w.Missing || w.Broken || w.Error != "" || w.Main || w.Current {
			continue
		}
		if why := foreignGit(w.Path, w.AdminDir, repo.CommonDir); why != "" {
			obs.Foreign[w.Path] = why
		}
		for _, n := range nested[w.Path] {
			// A worktree of the run inside this one is in Inner: Select
			// weighs it against what else the clean removes.
			if !isInner(filepath.Join(w.Path, n), obs.Inner[w.Path]) {
				obs.Nested[w.Path] = append(obs.Nested[w.Path], n)
			}
		}
		if opts.OlderThan > 0 {
			var refFiles []string
			if w.Branch != "" && !w.Detached {
				// The branch's loose ref and reflog: a commit writes them
				// in the common directory, not in the worktree.
				refFiles = []string{filepath.Join(repo.CommonDir, "refs", "heads", filepath.FromSlash(w.Branch)),
					filepath.Join(repo.CommonDir, "logs", "refs", "heads", filepath.FromSlash(w.Branch))}
			}
			obs.LastChange[w.Path] = worktree.LastChange(w.Path, w.AdminDir, refFiles...)
		}
		dirs = append(dirs, w.Path)
	}
	obs.Live, _ = worktree.LiveIn(dirs)
	return obs
}

// observeBare reads the HEAD of a bare repository (at path, its common
// directory commonDir): the branch it ends at and the aliases it goes
// through hold as a worktree's HEAD does (see Observed.Bare). git's
// worktree list names no branch for a bare entry; a file read or two,
// only in a bare repository, and whether or not a branch of the run is an
// alias (its HEAD may name <run>-main itself).
func observeBare(obs *Observed, path, commonDir string) {
	obs.Bare = path
	if b, ok := strings.CutPrefix(worktree.HeadRef(commonDir, commonDir), "refs/heads/"); ok {
		obs.Branches[path] = b
	}
	if al := headBranchAliases(commonDir, commonDir); len(al) > 0 {
		obs.HeadAliases[path] = al
	}
}

// hasAlias says whether a local branch of the run is a symbolic ref: only
// then does observe read where each worktree's HEAD goes (a file read a
// worktree).
func hasAlias(st *resume.State) bool {
	if st.MainBranch != nil && st.MainBranch.Symref != "" && st.MainBranch.Remote == "" {
		return true
	}
	for _, b := range st.TaskBranches {
		if b.Symref != "" && b.Remote == "" {
			return true
		}
	}
	return false
}

// headBranchAliases is worktree.HeadAliases, the branches among them by
// their short names (only a branch is ever deleted).
func headBranchAliases(gitDir, commonDir string) []string {
	var out []string
	for _, r := range worktree.HeadAliases(gitDir, commonDir) {
		if b, ok := strings.CutPrefix(r, "refs/heads/"); ok {
			out = append(out, b)
		}
	}
	return out
}

// nestedAll is worktree.NestedRepos of each worktree observe looks into,
// a few at a time.
func nestedAll(wts []*resume.Worktree) map[string][]string {
	var paths []string
	for _, w := range wts {
		if !(w.Missing || w.Broken || w.Error != "" || w.Main || w.Current) {
			paths = append(paths, w.Path)
		}
	}
	out := make([][]string, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < workers(len(paths)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = worktree.NestedRepos(paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	res := make(map[string][]string, len(paths))
	for i, p := range paths {
		res[p] = out[i]
	}
	return res
}

// isInner reports whether dir is one of the worktrees in inner.
func isInner(dir string, inner []string) bool {
	c := canonical(dir)
	for _, p := range inner {
		if canonical(p) == c {
			return true
		}
	}
	return false
}

func taskOfBranch(st *resume.State, name string) string {
	for _, s := range st.States {
		if s.Branch != nil && s.Branch.Name == name {
			return s.Task.ID
		}
		for _, b := range s.Duplicates {
			if b.Name == name {
				return s.Task.ID
			}
		}
	}
	return ""
}

// foreignGit says why dir's .git does not lead to admin, or admin's
// commondir to this repository, or "": git run there would read and write
// another repository.
func foreignGit(dir, admin, commonDir string) string {
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	switch {
	case err != nil:
		return "its .git file cannot be read (" + shortErr(err) + ")"
	case fi.IsDir():
		return "its .git is a repository of its own, not a link to its admin entry"
	}
	gd, err := worktree.GitDirOf(dir)
	if err != nil {
		return "its .git file is damaged (" + shortErr(err) + ")"
	}
	a, aerr := os.Stat(admin)
	g, gerr := os.Stat(gd)
	if admin == "" || aerr != nil || gerr != nil || !os.SameFile(a, g) {
		return "its .git file names " + gd + ", not its admin entry " + admin
	}
	data, err := os.ReadFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return "its admin entry has no commondir file"
	}
	cd := strings.TrimSpace(string(data))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(admin, cd)
	}
	c, cerr := os.Stat(cd)
	r, rerr := os.Stat(commonDir)
	if cerr != nil || rerr != nil || !os.SameFile(c, r) {
		return "its admin entry's commondir names " + cd + ", not this repository"
	}
	return ""
}

// heldBranches reads the branches an operation stopped in a worktree (its
// private git directory gitDir) will write besides HEAD's: the branch a
// bisect started from (even under a merge or rebase, which InProgress
// names first) and the branches `git rebase --update-refs` will move.
// git itself refuses to delete any of them.
func heldBranches(gitDir string) []Operation {
	var held []Operation
	if data, err := os.ReadFile(filepath.Join(gitDir, "BISECT_START")); err == nil {
		if b := strings.TrimSpace(string(data)); b != "" && !isHex(b) {
			held = append(held, Operation{Op: "bisect", Branch: strings.TrimPrefix(b, "refs/heads/")})
		}
	}
	for _, dir := range []string{"rebase-merge", "rebase-apply"} {
		data, err := os.ReadFile(filepath.Join(gitDir, dir, "update-refs"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if b, ok := strings.CutPrefix(strings.TrimSpace(line), "refs/heads/"); ok {
				held = append(held, Operation{Op: "rebase", Branch: b})
			}
		}
	}
	return held
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return len(s) >= 40
}
