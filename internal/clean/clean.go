// Package clean is the git-taskclean workflow: choose what of a run to
// remove, save it under refs/taskclean/<run>/<stamp>/, then remove it, and
// undo that on request. Saving always comes first; a crash between the two
// leaves both the work and its backup, and the next clean finishes the job.
package clean

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// BackupRoot is where saved work lives.
const BackupRoot = "refs/taskclean/"

// Options are the command's flags.
type Options struct {
	Run           string
	Tasks         []string
	All           bool
	Completed     bool
	DryRun        bool
	NoBackup      bool
	OlderThan     time.Duration
	PlanPath      string
	Base          string
	Cwd           string
	Now           time.Time
	ExpireBackups time.Duration
	Remote        string
}

// Action is one thing the clean did (or, in a dry run, would do).
type Action struct {
	// Op: save_worktree, save_branch, remove_worktree, prune_worktree,
	// delete_branch, skip_worktree, skip_branch, restore_branch,
	// restore_worktree, expire_backup.
	Op        string   `json:"action"`
	Task      string   `json:"task,omitempty"`
	Path      string   `json:"path,omitempty"`
	Branch    string   `json:"branch,omitempty"`
	Ref       string   `json:"ref,omitempty"`
	Commit    string   `json:"commit,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Staged    int      `json:"staged,omitempty"`
	Unstaged  int      `json:"unstaged,omitempty"`
	Untracked int      `json:"untracked,omitempty"`
	Ignored   []string `json:"ignored,omitempty"`
	// Command brings saved work back.
	Command string `json:"command,omitempty"`
	Done    bool   `json:"done"`
}

// Result is the JSON document of git-taskclean.
type Result struct {
	RunID   string    `json:"run_id"`
	DryRun  bool      `json:"dry_run"`
	Stamp   string    `json:"stamp,omitempty"`
	Backup  string    `json:"backup_prefix,omitempty"`
	Actions []*Action `json:"actions"`
	// Resumed is the stamp of an interrupted clean this one finished.
	Resumed string         `json:"resumed,omitempty"`
	Report  *resume.Report `json:"report,omitempty"`
}

// crashAfter is the test seam of the crash-safety tests: with
// GIT_TASKCLEAN_CRASH_AFTER=k the process dies right after its k-th change
// to the repository, as a kill would leave it (no deferred cleanup runs).
type stepper struct{ n, limit int }

func newStepper() *stepper {
	k, _ := strconv.Atoi(os.Getenv("GIT_TASKCLEAN_CRASH_AFTER"))
	return &stepper{limit: k}
}

func (s *stepper) step() {
	s.n++
	if s.limit > 0 && s.n >= s.limit {
		os.Exit(99)
	}
}

// Stamp names one clean; it sorts by time.
func Stamp(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

func parseStamp(s string) (time.Time, bool) {
	t, err := time.Parse("20060102T150405.000000000Z", s)
	return t, err == nil
}

type target struct {
	// savedAt is when its save began: anything newer was not saved.
	savedAt time.Time
	wt      *resume.Worktree
	dirty   bool
	save    bool
	ignored []string
	snap    *worktree.Snapshot
	action  *Action
}

func gatherOpts(opts Options, light bool) resume.Options {
	return resume.Options{Run: opts.Run, PlanPath: opts.PlanPath, Base: opts.Base, Cwd: opts.Cwd,
		Remote: opts.Remote, Light: light, Ignored: true}
}

func checkTasks(st *resume.State, opts Options) (map[string]bool, error) {
	want := map[string]bool{}
	for _, id := range opts.Tasks {
		if st.Plan == nil || st.Plan.Task(id) == nil {
			return nil, &resume.InputError{Msg: fmt.Sprintf("--task %s: no such task in the plan of run %s", id, opts.Run)}
		}
		want[id] = true
	}
	return want, nil
}

// Run performs a clean (or its dry run). A real clean takes the run's lock
// before it reads the state it acts on, so two cleans never act on the same
// facts; bad input is refused before the lock, so it changes nothing.
func Run(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	pre, err := resume.Gather(ctx, repo, gatherOpts(opts, true))
	if err != nil {
		return nil, err
	}
	if _, err := checkTasks(pre, opts); err != nil {
		return nil, err
	}
	var lock *Lock
	if !opts.DryRun {
		if lock, err = Acquire(repo.CommonDir, opts.Run); err != nil {
			return nil, err
		}
	}
	res, st, err := act(ctx, repo, opts, lock)
	if lock != nil {
		if err == nil {
			lock.Finish()
		}
		// Marks the lock idle, so an interrupted clean's stamp is only
		// reused by the clean that comes right after it.
		if rerr := lock.Release(); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return nil, err
	}
	res.Report = st.Report
	if changed(res) {
		if after, err := resume.Gather(ctx, repo, gatherOpts(opts, false)); err == nil {
			res.Report = after.Report
		}
	}
	return res, nil
}

// changed reports whether the clean changed the run (its report must be
// read again) rather than only saving or skipping.
func changed(res *Result) bool {
	for _, a := range res.Actions {
		if a.Done && !strings.HasPrefix(a.Op, "save_") {
			return true
		}
	}
	return false
}

func act(ctx context.Context, repo *gitcmd.Repo, opts Options, lock *Lock) (res *Result, st *resume.State, err error) {
	// What a worktree held is judged at this instant: anything newer in it
	// keeps it from removal.
	readAt := time.Now()
	st, err = resume.Gather(ctx, repo, gatherOpts(opts, false))
	if err != nil {
		return nil, nil, err
	}
	res = &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}}
	wantTask, err := checkTasks(st, opts)
	if err != nil {
		return nil, nil, err
	}
	done := map[string]bool{}
	for _, s := range st.States {
		if s.Status.Done() {
			done[s.Task.ID] = true
		}
	}

	// Worktrees.
	var targets []*target
	keepBranch := map[string]string{} // branch -> path of a worktree we leave in place
	for _, w := range st.Report.Worktrees {
		selected := false
		switch {
		case opts.All:
			selected = true
		case len(wantTask) > 0:
			selected = wantTask[w.Task]
		default:
			selected = w.Stale || w.StaleLocked || (opts.Completed && done[w.Task])
		}
		if !selected {
			if w.Branch != "" {
				keepBranch[w.Branch] = w.Path
			}
			continue
		}
		skip := ""
		switch {
		case w.Current:
			skip = "it is the worktree this command runs in"
		case w.Locked:
			skip = "locked (" + w.LockText() + "); unlock it with git worktree unlock to clean it"
		case w.Error != "" && !w.Broken:
			skip = w.Error
		}
		if skip == "" && !w.Missing && !w.Broken {
			if nested := worktree.NestedRepos(w.Path); len(nested) > 0 {
				skip = "holds embedded repositories that cannot be saved: " + strings.Join(nested, ", ")
			}
		}
		if skip == "" && opts.OlderThan > 0 && !w.Missing {
			if t := worktree.LastChange(w.Path); opts.Now.Sub(t) < opts.OlderThan {
				skip = fmt.Sprintf("changed %s ago (--older-than %s)", opts.Now.Sub(t).Round(time.Second), opts.OlderThan)
			}
		}
		if skip != "" {
			res.Actions = append(res.Actions, &Action{Op: "skip_worktree", Task: w.TaskID(), Path: w.Path, Reason: skip})
			if w.Branch != "" {
				keepBranch[w.Branch] = w.Path
			}
			continue
		}
		t := &target{wt: w, dirty: w.Staged+w.Unstaged+w.Untracked > 0}
		t.save = !opts.NoBackup && (t.dirty || w.Unreachable > 0)
		if !w.Missing && !w.Broken {
			t.ignored = w.Ignored
		}
		targets = append(targets, t)
	}

	// Branches.
	type brTarget struct {
		b    branches.Branch
		task string
	}
	var brs []brTarget
	if opts.All {
		for _, b := range st.TaskBranches {
			brs = append(brs, brTarget{b: b, task: taskOfBranch(st, b.Name)})
		}
		if st.MainBranch != nil {
			brs = append(brs, brTarget{b: *st.MainBranch})
		}
	} else {
		for _, s := range st.States {
			if !wantTask[s.Task.ID] {
				continue
			}
			if s.Branch != nil {
				brs = append(brs, brTarget{b: *s.Branch, task: s.Task.ID})
			}
			for _, b := range s.Branches {
				brs = append(brs, brTarget{b: b, task: s.Task.ID})
			}
		}
	}
	var delBranches []brTarget
	for _, bt := range brs {
		if bt.b.Remote != "" {
			res.Actions = append(res.Actions, &Action{Op: "skip_branch", Task: bt.task, Branch: bt.b.Remote + "/" + bt.b.Name,
				Commit: bt.b.OID, Reason: "a remote-tracking branch; git taskclean never deletes remote branches"})
			continue
		}
		if p, ok := keepBranch[bt.b.Name]; ok {
			res.Actions = append(res.Actions, &Action{Op: "skip_branch", Task: bt.task, Branch: bt.b.Name,
				Commit: bt.b.OID, Reason: "checked out in " + p + ", which stays"})
			continue
		}
		delBranches = append(delBranches, bt)
	}

	// Claims: a finished task no longer needs one, an expired one is dead;
	// --all drops every claim of the run.
	var dropClaims []*claims.Claim
	for _, id := range sortedKeys(st.Claims) {
		c := st.Claims[id]
		if opts.All || done[id] || c.Expired || wantTask[id] {
			dropClaims = append(dropClaims, c)
		}
	}

	if len(targets) == 0 && len(delBranches) == 0 && len(dropClaims) == 0 {
		// Nothing left of any interrupted clean either: the lock goes idle.
		return res, st, nil
	}

	stamp := Stamp(opts.Now)
	if lock != nil {
		// Always a new stamp, so a stamp's date is when its saves were made
		// (what --expire-backups goes by); the interrupted clean is linked.
		if lock.Interrupted != "" && lock.Interrupted != stamp {
			res.Resumed = lock.Interrupted
		}
		if err := lock.Start(stamp); err != nil {
			return nil, nil, err
		}
	}
	res.Stamp = stamp
	prefix := BackupRoot + opts.Run + "/" + stamp + "/"
	res.Backup = prefix
	steps := newStepper()

	// 1. Save: build every snapshot, then record them all in one atomic
	// ref transaction. Until that transaction, nothing has been removed.
	names := newNamer()
	var saves []gitcmd.RefUpdate
	if res.Resumed != "" {
		// Link this clean to the interrupted one it follows, so that --undo
		// restores both and --expire-backups keeps both while this is young.
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: prefix + "continues/" + res.Resumed, New: st.Report.Base.Commit})
	}
	for _, t := range targets {
		w := t.wt
		if !t.save {
			continue
		}
		a := &Action{Op: "save_worktree", Task: w.TaskID(), Path: w.Path, Staged: w.Staged, Unstaged: w.Unstaged, Untracked: w.Untracked}
		a.Ref = names.name(prefix+"worktree/", filepath.Base(w.Path))
		if !opts.DryRun {
			msg := fmt.Sprintf("taskclean %s: worktree %s\n\npath %s\nhead %s\n", opts.Run, filepath.Base(w.Path), strconv.Quote(w.Path), w.Head)
			t.savedAt = time.Now()
			untracked := w.UntrackedFiles
			if untracked == nil {
				untracked = []string{} // status saw none: no need to list them again
			}
			snap, err := worktree.Save(ctx, repo, w.Path, w.Head, repo.CommonDir, t.dirty && !w.Missing && !w.Broken, msg, untracked)
			if err != nil {
				// What cannot be saved is not removed; the rest goes on.
				a.Op, a.Reason, a.Ref = "skip_worktree", "cannot save it: "+gitcmd.OneLine(err), ""
				res.Actions = append(res.Actions, a)
				t.action = a
				if w.Branch != "" {
					keepBranch[w.Branch] = w.Path
				}
				continue
			}
			if len(snap.Unsaved) > 0 {
				// Work we cannot save must not be removed.
				a.Op = "skip_worktree"
				a.Reason = "holds embedded repositories that cannot be saved: " + strings.Join(snap.Unsaved, ", ")
				a.Ref = ""
				res.Actions = append(res.Actions, a)
				t.action = a
				if w.Branch != "" {
					keepBranch[w.Branch] = w.Path
				}
				continue
			}
			t.snap = snap
			a.Commit = snap.Commit
			saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: snap.Commit})
		}
		a.Command = restoreCommand(w.Path, a.Ref, t.dirty && !w.Missing && !w.Broken)
		t.action = a
		res.Actions = append(res.Actions, a)
	}
	for _, bt := range delBranches {
		if opts.NoBackup {
			continue
		}
		// A branch name is a valid ref name already: saved as it is, so
		// --undo brings it back under the same name.
		a := &Action{Op: "save_branch", Task: bt.task, Branch: bt.b.Name, Commit: bt.b.OID,
			Ref: prefix + "branch/" + bt.b.Name}
		a.Command = "git branch " + resume.ShellQuote(bt.b.Name) + " " + bt.b.OID
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: bt.b.OID})
		res.Actions = append(res.Actions, a)
	}
	for _, c := range dropClaims {
		if opts.NoBackup {
			continue
		}
		a := &Action{Op: "save_claim", Task: c.Task, Commit: c.Commit, Ref: names.name(prefix+"claim/", c.Task),
			Reason: "held by " + c.Holder}
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: c.Commit})
		res.Actions = append(res.Actions, a)
	}
	if !opts.DryRun && len(saves) > 0 {
		if err := repo.UpdateRefs(ctx, saves); err != nil {
			return nil, nil, fmt.Errorf("save to %s: %w", prefix, err)
		}
		steps.step()
	}
	for _, a := range res.Actions {
		if strings.HasPrefix(a.Op, "save_") {
			a.Done = !opts.DryRun
		}
	}

	// 2. Remove worktrees, each only after its save is recorded.
	for _, t := range targets {
		w := t.wt
		if t.action != nil && t.action.Op == "skip_worktree" {
			continue
		}
		op := "remove_worktree"
		reason := ""
		switch {
		case w.Missing:
			op, reason = "prune_worktree", "directory was missing"
		case w.Broken:
			op, reason = "prune_worktree", "its admin entry is damaged ("+w.Error+"); only the entry goes, "+w.Path+" is not touched"
		}
		a := &Action{Op: op, Task: w.TaskID(), Path: w.Path, Reason: reason, Ignored: t.ignored}
		res.Actions = append(res.Actions, a)
		if opts.DryRun {
			continue
		}
		// Force only what was saved (or what the user chose not to save);
		// otherwise git re-checks that the worktree is still clean.
		force := t.snap != nil && t.snap.Stash || opts.NoBackup
		changedErr := func() {
			a.Op, a.Reason = "skip_worktree", "it changed while it was being saved or read; left in place (any save is kept; rerun git taskclean)"
			if w.Branch != "" {
				keepBranch[w.Branch] = w.Path
			}
		}
		var err error
		if !w.Missing && !w.Broken {
			// Only what was seen (and saved) may go: the directory is
			// renamed aside, checked for anything newer than the save (or,
			// when nothing needed saving, than the status read), and only
			// then deleted, here, rather than by `git worktree remove`,
			// which would delete whatever is there by then.
			since := readAt
			if t.snap != nil {
				since = t.savedAt
			}
			err = worktree.RemoveSaved(repo.CommonDir, w.Path, since)
			if errors.Is(err, worktree.ErrChanged) {
				changedErr()
				continue
			}
			if err == nil {
				a.Done = true
				steps.step()
				continue
			}
			// The rename failed (another file system): check, then git.
			if worktree.LastChange(w.Path).After(since) {
				changedErr()
				continue
			}
		}
		if w.Broken {
			// git refuses to remove an entry it cannot validate; drop the
			// entry itself and never the place it names.
			err = worktree.PruneEntry(repo.CommonDir, w.Path)
		} else if err = worktree.Remove(ctx, repo, w.Path, force); err != nil && w.Missing {
			err = worktree.PruneEntry(repo.CommonDir, w.Path)
		}
		if err != nil {
			a.Op, a.Reason = "skip_worktree", gitcmd.OneLine(err)+" (it changed since it was read? rerun git taskclean)"
			if w.Branch != "" {
				keepBranch[w.Branch] = w.Path
			}
			continue
		}
		a.Done = true
		steps.step()
	}

	// 3. Delete branches, each only if it still points where it was read,
	// and never one whose worktree ended up staying.
	kept := delBranches[:0]
	for _, bt := range delBranches {
		if p, ok := keepBranch[bt.b.Name]; ok {
			res.Actions = append(res.Actions, &Action{Op: "skip_branch", Task: bt.task, Branch: bt.b.Name,
				Commit: bt.b.OID, Reason: "checked out in " + p + ", which stays"})
			continue
		}
		kept = append(kept, bt)
	}
	delBranches = kept
	if len(delBranches) > 0 {
		var dels []gitcmd.RefUpdate
		for _, bt := range delBranches {
			dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: bt.b.Ref, Old: bt.b.OID})
			res.Actions = append(res.Actions, &Action{Op: "delete_branch", Task: bt.task, Branch: bt.b.Name, Commit: bt.b.OID})
		}
		if !opts.DryRun {
			if err := repo.UpdateRefs(ctx, dels); err != nil {
				return nil, nil, fmt.Errorf("delete branches (nothing deleted; a branch moved since it was read?): %w", err)
			}
			for _, a := range res.Actions {
				if a.Op == "delete_branch" {
					a.Done = true
				}
			}
			steps.step()
		}
	}
	// 4. Drop claims, in a transaction of their own: a claim renewed
	// meanwhile makes it fail without holding back the branch deletions.
	if len(dropClaims) > 0 {
		var dels []gitcmd.RefUpdate
		for _, c := range dropClaims {
			reason := "task complete"
			switch {
			case opts.All:
				reason = "--all"
			case wantTask[c.Task]:
				reason = "--task"
			case c.Expired:
				reason = "expired " + c.Expires.Format(time.RFC3339)
			}
			dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: c.Ref, Old: c.Commit})
			res.Actions = append(res.Actions, &Action{Op: "drop_claim", Task: c.Task, Ref: c.Ref, Commit: c.Commit,
				Reason: reason + "; held by " + c.Holder})
		}
		if !opts.DryRun {
			if err := repo.UpdateRefs(ctx, dels); err == nil {
				for _, a := range res.Actions {
					if a.Op == "drop_claim" {
						a.Done = true
					}
				}
				steps.step()
			} else {
				res.Actions = append(res.Actions, &Action{Op: "skip_claim", Reason: "a claim changed meanwhile (renewed?); rerun to drop the rest: " + gitcmd.OneLine(err)})
			}
		}
	}
	return res, st, nil
}

func sortedKeys(m map[string]*claims.Claim) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func taskOfBranch(st *resume.State, name string) string {
	for _, s := range st.States {
		if s.Branch != nil && s.Branch.Name == name {
			return s.Task.ID
		}
		for _, b := range s.Branches {
			if b.Name == name {
				return s.Task.ID
			}
		}
	}
	return ""
}

// namer turns names into unique, valid backup ref names.
type namer struct{ used map[string]bool }

func newNamer() *namer { return &namer{used: map[string]bool{}} }

var refUnsafe = regexp.MustCompile(`[^A-Za-z0-9._/-]+`)

func (n *namer) name(prefix, name string) string {
	clean := refUnsafe.ReplaceAllString(name, "-")
	clean = strings.Trim(clean, "./-")
	for strings.Contains(clean, "..") {
		clean = strings.ReplaceAll(clean, "..", ".")
	}
	clean = strings.TrimSuffix(clean, ".lock")
	if clean == "" {
		clean = "unnamed"
	}
	ref := prefix + clean
	if plumbing.ReferenceName(ref).Validate() != nil {
		ref = prefix + "unnamed"
	}
	base := ref
	for i := 2; n.used[ref]; i++ {
		ref = fmt.Sprintf("%s-%d", base, i)
	}
	n.used[ref] = true
	return ref
}

// restoreCommand is the one command that brings a saved worktree back.
func restoreCommand(path, ref string, stash bool) string {
	add := fmt.Sprintf("git worktree add --detach %s %s^1", resume.ShellQuote(path), ref)
	if !stash {
		return add
	}
	return fmt.Sprintf("%s && git -C %s stash apply --index %s", add, resume.ShellQuote(path), ref)
}

// Undo restores the branches the last clean of the run deleted and tells how
// to bring back each saved worktree.
func Undo(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	if err := validRun(opts.Run); err != nil {
		return nil, err
	}
	saved, err := repo.SavedRefs(ctx, BackupRoot+opts.Run+"/")
	if err != nil {
		return nil, err
	}
	stamps := stampsOf(saved, opts.Run)
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}}
	if len(stamps) == 0 {
		return nil, &resume.InputError{Msg: fmt.Sprintf("nothing to undo: no clean of run %s saved anything under %s%s/", opts.Run, BackupRoot, opts.Run)}
	}
	last := stamps[len(stamps)-1]
	res.Stamp = last
	res.Backup = BackupRoot + opts.Run + "/" + last + "/"
	// The last clean, and the interrupted cleans it continued.
	chain := map[string]bool{}
	for s := last; s != "" && !chain[s]; {
		chain[s] = true
		next := ""
		for _, r := range saved {
			if c, ok := strings.CutPrefix(r.Name, BackupRoot+opts.Run+"/"+s+"/continues/"); ok {
				next = c
			}
		}
		s = next
	}
	inChain := func(ref string) (string, bool) {
		st := stampOf(ref, opts.Run)
		return BackupRoot + opts.Run + "/" + st + "/", chain[st]
	}
	var names []string
	for _, r := range saved {
		if prefix, ok := inChain(r.Name); ok && strings.HasPrefix(r.Name, prefix+"branch/") {
			names = append(names, "refs/heads/"+r.Name[len(prefix+"branch/"):])
		}
	}
	existing := map[string]string{}
	if len(names) > 0 {
		refs, err := repo.Refs(ctx, names...)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			existing[r.Name] = r.OID
		}
	}
	var lock *Lock
	if !opts.DryRun {
		lock, err = Acquire(repo.CommonDir, opts.Run)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
	}
	var creates []gitcmd.RefUpdate
	restoring := map[string]bool{}
	// Newest stamp first, so a branch saved twice comes back at its latest tip.
	sort.SliceStable(saved, func(i, j int) bool { return stampOf(saved[i].Name, opts.Run) > stampOf(saved[j].Name, opts.Run) })
	for _, r := range saved {
		prefix, ok := inChain(r.Name)
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(r.Name, prefix+"branch/"):
			name := r.Name[len(prefix+"branch/"):]
			a := &Action{Op: "restore_branch", Branch: name, Commit: r.OID, Ref: r.Name}
			switch cur, ok := existing["refs/heads/"+name]; {
			case ok && cur == r.OID:
				a.Op, a.Reason, a.Done = "skip_branch", "already restored", true
			case ok:
				a.Op, a.Reason = "skip_branch", fmt.Sprintf("branch exists at %s; the saved tip is %s (git branch -f %s %s to take it)", resume.Short(cur), resume.Short(r.OID), resume.ShellQuote(name), r.OID)
			case restoring[name]:
				continue // an older save of a branch already being restored
			default:
				restoring[name] = true
				creates = append(creates, gitcmd.RefUpdate{Op: "create", Ref: "refs/heads/" + name, New: r.OID})
			}
			res.Actions = append(res.Actions, a)
		case strings.HasPrefix(r.Name, prefix+"worktree/"):
			path := bodyField(r.Body, "path")
			if p, err := strconv.Unquote(path); err == nil {
				path = p
			}
			a := &Action{Op: "restore_worktree", Path: path, Ref: r.Name, Commit: r.OID,
				Command: restoreCommand(path, r.Name, len(r.Parents) > 1)}
			res.Actions = append(res.Actions, a)
		}
	}
	if !opts.DryRun && len(creates) > 0 {
		if err := repo.UpdateRefs(ctx, creates); err != nil {
			return nil, fmt.Errorf("restore branches: %w", err)
		}
		for _, a := range res.Actions {
			if a.Op == "restore_branch" {
				a.Done = true
			}
		}
	}
	return res, nil
}

// Expire deletes the run's saved states older than opts.ExpireBackups.
func Expire(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	if err := validRun(opts.Run); err != nil {
		return nil, err
	}
	saved, err := repo.SavedRefs(ctx, BackupRoot+opts.Run+"/")
	if err != nil {
		return nil, err
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}}
	// A stamp stays while it is young, or while a young clean continues it.
	keep := map[string]bool{}
	for _, s := range stampsOf(saved, opts.Run) {
		if t, _ := parseStamp(s); opts.Now.Sub(t) < opts.ExpireBackups {
			keep[s] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, r := range saved {
			from := stampOf(r.Name, opts.Run)
			if c, ok := strings.CutPrefix(r.Name, BackupRoot+opts.Run+"/"+from+"/continues/"); ok && keep[from] && !keep[c] {
				keep[c], changed = true, true
			}
		}
	}
	var dels []gitcmd.RefUpdate
	for _, r := range saved {
		stamp := stampOf(r.Name, opts.Run)
		if _, ok := parseStamp(stamp); !ok || keep[stamp] {
			continue
		}
		dels = append(dels, gitcmd.RefUpdate{Op: "delete", Ref: r.Name, Old: r.OID})
		res.Actions = append(res.Actions, &Action{Op: "expire_backup", Ref: r.Name, Commit: r.OID, Done: !opts.DryRun})
	}
	if !opts.DryRun && len(dels) > 0 {
		lock, err := Acquire(repo.CommonDir, opts.Run)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
		if err := repo.UpdateRefs(ctx, dels); err != nil {
			return nil, fmt.Errorf("expire backups: %w", err)
		}
	}
	return res, nil
}

func validRun(run string) error {
	_, err := resume.ValidRun(run)
	return err
}

func stampOf(ref, run string) string {
	rest := strings.TrimPrefix(ref, BackupRoot+run+"/")
	s, _, _ := strings.Cut(rest, "/")
	return s
}

func stampsOf(saved []gitcmd.SavedRef, run string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range saved {
		s := stampOf(r.Name, run)
		if _, ok := parseStamp(s); ok && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func bodyField(body, key string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			return v
		}
	}
	return ""
}
