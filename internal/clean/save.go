package clean

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// saveAll saves every target that was stopped, proves each save against
// the worktree's files, and returns the ref updates that record the saves
// (with those of the branches and claims that go, when sel is given). Its
// error is for what stops every save (the commit writer died): the clean
// then stops, and every worktree aside goes back. It is the steps "save
// from the stopped directory" and "prove the save against the directory"
// of docs/DESIGN.md, "No loss: how the clean removes".
func (c *cleaner) saveAll(targets []*Target, sel *Selection) ([]gitcmd.RefUpdate, error) {
	if c.names == nil {
		c.names = newNamer()
	}
	var saves []gitcmd.RefUpdate
	if sel != nil && c.res.Resumed != "" {
		// Link this clean to the interrupted one it follows, so that --undo
		// restores both and --expire-backups keeps both while this is young.
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: c.prefix + "continues/" + c.res.Resumed, New: c.st.Report.Base.Commit})
	}
	var work []*Target
	for _, t := range targets {
		if t.skip == nil && !c.opts.NoBackup && !c.opts.DryRun {
			work = append(work, t)
		}
	}
	done, err := c.saveProveAll(work)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if t.skip != nil || c.opts.NoBackup {
			continue
		}
		refs, err := c.takeSave(t, done[t])
		if err != nil {
			return nil, err
		}
		saves = append(saves, refs...)
	}
	if sel == nil {
		return saves, nil
	}
	bsaves, err := c.branchSaves(sel)
	if err != nil {
		return nil, err
	}
	saves = append(saves, bsaves...)
	if c.opts.NoBackup {
		return saves, nil
	}
	saves = append(saves, c.reflogSaves(sel)...)
	// Claims were saved as they were dropped, before any worktree.
	return saves, nil
}

// takeSave adds the actions of one target's save and returns the ref
// updates that record it. In a dry run r is nil and the actions say what
// the save would hold; a save that failed or that the proof does not hold
// puts the worktree back and keeps it (see docs/DESIGN.md, "No loss: how
// the clean removes"). Its error is the commit writer's, which stops
// every save.
func (c *cleaner) takeSave(t *Target, r *saved) ([]gitcmd.RefUpdate, error) {
	w := t.W
	// One name for every save of this worktree (worktree/, ignored/,
	// raw/, admin/, index/), so that a restore pairs them without guessing.
	name := strings.TrimPrefix(c.names.name(c.prefix+string(SavedWorktree)+"/", filepath.Base(w.Path)), c.prefix+string(SavedWorktree)+"/")
	a := &Action{Op: OpSaveWorktree, Task: w.TaskID(), Path: w.Path, Staged: w.Staged, Unstaged: w.Unstaged, Untracked: w.Untracked,
		Ref: c.prefix + string(SavedWorktree) + "/" + name}
	if c.opts.DryRun {
		c.planSave(t, a, name)
		return nil, nil
	}
	if r.err != nil {
		c.putBack(t)
		c.skip(t, "cannot save it: "+gitcmd.OneLine(r.err))
		if werr := c.shared.Err(); werr != nil {
			return nil, fmt.Errorf("save %s: %w; nothing of this round was removed", w.Path, werr)
		}
		return nil, nil
	}
	if r.unproven != "" {
		c.putBack(t)
		c.skip(t, r.unproven)
		return nil, nil
	}
	t.snap, t.admin, t.ok = r.snap, r.admin, true
	return c.savedRefs(t, a, name), nil
}

// planSave adds, in a dry run, the actions of what a target's save would
// hold, as the state read it: its work a, and the ignored files a save
// would keep.
func (c *cleaner) planSave(t *Target, a *Action, name string) {
	w := t.W
	t.ok = true
	a.Command = c.restoreCommand(w.Path)
	c.add(a)
	if t.Kind == kindRemove {
		plan := worktree.PlanIgnored(w.Path, w.Ignored, c.opts.Budget)
		t.dryIgnored = &plan
		if len(plan.Save) > 0 {
			c.add(&Action{Op: OpSaveIgnored, Task: w.TaskID(), Path: w.Path, Ref: c.prefix + string(SavedIgnored) + "/" + name, Ignored: plan.Save})
		}
	}
}

// savedRefs adds the actions of a target's proven save (its work a, its
// ignored files, the raw bytes of files git converts, its admin entry's
// state) and returns a ref update for each.
func (c *cleaner) savedRefs(t *Target, a *Action, name string) []gitcmd.RefUpdate {
	w, snap := t.W, t.snap
	var saves []gitcmd.RefUpdate
	if snap.Commit != "" {
		a.Staged, a.Unstaged, a.Untracked, a.Commit = snap.Staged, snap.Unstaged, snap.Untracked, snap.Commit
		a.Command = c.restoreCommand(w.Path)
		c.add(a)
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: snap.Commit})
	}
	if snap.Ignored != "" {
		ia := c.add(&Action{Op: OpSaveIgnored, Task: w.TaskID(), Path: w.Path, Commit: snap.Ignored,
			Ref: c.prefix + string(SavedIgnored) + "/" + name, Ignored: snap.IgnoredPlan.Save})
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: ia.Ref, New: ia.Commit})
	}
	if snap.Raw != "" {
		ra := c.add(&Action{Op: OpSaveRaw, Task: w.TaskID(), Path: w.Path, Commit: snap.Raw,
			Ref: c.prefix + string(SavedRaw) + "/" + name, Reason: fmt.Sprintf("%s git may convert (filter, line endings, ident), as they are on disk", ui.Plural(len(snap.RawPaths), "file"))})
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: ra.Ref, New: ra.Commit})
	}
	if snap.Stages != "" {
		xa := c.add(&Action{Op: OpSaveIndex, Task: w.TaskID(), Path: w.Path, Commit: snap.Stages,
			Ref:    c.prefix + string(SavedIndex) + "/" + name,
			Reason: fmt.Sprintf("conflict stages (base, ours, theirs) of %s", ui.Plural(snap.Conflicts, "unmerged path"))})
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: xa.Ref, New: xa.Commit})
	}
	if t.admin != "" {
		aa := c.add(&Action{Op: OpSaveAdmin, Task: w.TaskID(), Path: w.Path, Commit: t.admin,
			Ref: c.prefix + string(SavedAdmin) + "/" + name, Reason: adminWhat(t)})
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: aa.Ref, New: aa.Commit})
	}
	return saves
}

// branchSaves adds the saves of the branches the clean deletes and returns
// their ref updates. A deleted branch's tip is recorded even with
// --no-backup: it is one ref, --undo can put the branch back, and the
// report needs it to know that the commits another branch still holds were
// discarded.
func (c *cleaner) branchSaves(sel *Selection) ([]gitcmd.RefUpdate, error) {
	var saves []gitcmd.RefUpdate
	for _, bt := range sel.Branches {
		if bt.B.Symref != "" {
			u, err := c.aliasSave(bt)
			if err != nil {
				return nil, err
			}
			if u != nil {
				saves = append(saves, *u)
			}
			continue
		}
		// A branch name is a valid ref name already: saved as it is, so
		// --undo brings it back under the same name.
		a := c.add(&Action{Op: OpSaveBranch, Task: bt.Task, Branch: bt.B.Name, Commit: bt.B.OID,
			Ref: c.prefix + string(SavedBranch) + "/" + bt.B.Name})
		a.Command = "git branch " + ui.ShellQuote(bt.B.Name) + " " + bt.B.OID
		saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: bt.B.OID})
	}
	return saves, nil
}

// The fields of an alias save's message.
const (
	aliasTargetField = "target"
	aliasTipField    = "tip"
)

// aliasSave adds the save of a branch that is a symbolic ref (an alias,
// <run>-main -> refs/heads/main) and returns its ref update (none in a dry
// run). Saved as a branch, --undo would bring the alias back as a plain
// branch that no longer follows its target: the save is a commit of its
// own (the tip's tree, the tip as its parent, so the tip stays reachable)
// whose message names the ref the alias points to, and --undo makes the
// alias again with git symbolic-ref. One commit-tree process per alias:
// only a clean that deletes one pays it.
func (c *cleaner) aliasSave(bt BranchTarget) (*gitcmd.RefUpdate, error) {
	// The ref the alias names itself (what git symbolic-ref wrote), not
	// the end of a chain as %(symref) gives it.
	target := worktree.SymrefTarget(c.repo.CommonDir, bt.B.Ref)
	if c.aliasTargets == nil {
		c.aliasTargets = map[string]string{}
	}
	c.aliasTargets[bt.B.Name] = target
	if target == "" {
		target = bt.B.Symref
	}
	a := c.add(&Action{Op: OpSaveBranch, Task: bt.Task, Branch: bt.B.Name, Commit: bt.B.OID,
		Ref:    c.prefix + string(SavedAlias) + "/" + bt.B.Name,
		Reason: "a symbolic ref to " + target + ", saved as one: only the alias is deleted"})
	a.Command = "git symbolic-ref " + ui.ShellQuote(bt.B.Ref) + " " + ui.ShellQuote(target)
	if c.opts.DryRun {
		return nil, nil
	}
	msg := fmt.Sprintf("taskclean %s: alias %s\n\nalias %s\n%s %s\n%s %s\n",
		c.opts.Run, bt.B.Name, bt.B.Ref, aliasTargetField, target, aliasTipField, bt.B.OID)
	out, err := c.repo.RunEnv(c.ctx, worktree.Identity, nil, "commit-tree", bt.B.OID+"^{tree}", "-p", bt.B.OID, "-m", msg)
	if err != nil {
		return nil, fmt.Errorf("save the alias %s: %w", bt.B.Name, err)
	}
	return &gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: strings.TrimSpace(string(out))}, nil
}

// reflogSaves adds the saves of the commits only a deleted branch's reflog
// names (a task branch reset past its work), read before anything changed,
// and returns their ref updates.
func (c *cleaner) reflogSaves(sel *Selection) []gitcmd.RefUpdate {
	task := map[string]string{}
	for _, bt := range sel.Branches {
		task[bt.B.Name] = bt.Task
	}
	var saves []gitcmd.RefUpdate
	for _, name := range sortedNames(c.lost) {
		for k, tip := range c.lost[name].Tips {
			a := c.add(&Action{Op: OpSaveReflog, Task: task[name], Branch: name, Commit: tip,
				Ref:    fmt.Sprintf("%s%s/%s/%d", c.prefix, SavedReflog, name, k),
				Reason: fmt.Sprintf("%s only the branch's reflog holds", ui.Plural(c.lost[name].Count, "commit"))})
			a.Command = "git log " + tip
			saves = append(saves, gitcmd.RefUpdate{Op: "create", Ref: a.Ref, New: tip})
		}
	}
	return saves
}

func adminWhat(t *Target) string {
	if t.Op != "" {
		return "admin entry with a " + t.Op + " in progress"
	}
	return "admin entry: per-worktree refs and reflog commits no branch holds"
}

// saved is what saving and proving one target gave.
type saved struct {
	snap  *worktree.Snapshot
	admin string
	err   error
	// unproven says why the proof keeps the worktree ("" when it holds).
	unproven string
}

// workers is how many of n jobs run at once: two a core, at most 8. A save
// is a few short git processes one after the other with file reads
// between them, so one job a core leaves the cores idle while a process
// starts or a file is read (measured on 2 cores, the clean of 50
// worktrees: 1.68 x plain removal with 2 at once, 1.52 with 4, the same
// with 8, median of 7 rounds each); past 8, the disk sets the pace.
func workers(n int) int {
	return max(1, min(2*runtime.NumCPU(), 8, n))
}

// saveProveAll saves and proves the targets, a few at a time. Each
// target's save reads only its own directory and writes only its own
// temporary folder and new objects; what the clean records of them is
// added afterwards, in the targets' order. The error is for the shared
// reads that every save needs.
func (c *cleaner) saveProveAll(targets []*Target) (map[*Target]*saved, error) {
	done := make(map[*Target]*saved, len(targets))
	if len(targets) == 0 {
		return done, nil
	}
	if c.shared == nil {
		// Read once for every save of the clean: the configuration all
		// worktrees share, and the writers (the commit writer's file is in
		// a folder of the clean's own, which a rerun removes after a
		// crash).
		tmp, err := os.MkdirTemp(c.repo.CommonDir, tmpPrefix(c.opts.Run))
		if err != nil {
			return nil, err
		}
		c.sharedTmp = tmp
		c.shared = worktree.OpenShared(c.ctx, c.repo.CommonDir, tmp, c.hashLen, worktree.Identity)
	}
	for _, t := range targets {
		done[t] = &saved{}
	}
	// Counted as each save is proved (or fails), in whichever worker.
	step := c.opts.Progress.Start("Saving worktrees", len(targets))
	defer step.Done()
	next := make(chan *Target)
	var wg sync.WaitGroup
	for i := 0; i < workers(len(targets)); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				r := done[t]
				r.snap, r.admin, r.err = c.saveOne(t)
				if r.err == nil && t.Kind == kindRemove {
					r.unproven = c.prove(t, r.snap)
				}
				step.Add(1, 0)
			}
		}()
	}
	for _, t := range targets {
		next <- t
	}
	close(next)
	wg.Wait()
	return done, nil
}

// saveOne saves a target's work and its admin entry's state.
func (c *cleaner) saveOne(t *Target) (*worktree.Snapshot, string, error) {
	w := t.W
	tmp, err := os.MkdirTemp(c.repo.CommonDir, tmpPrefix(c.opts.Run))
	if err != nil {
		return nil, "", err
	}
	t.tmp = tmp
	branch := ""
	if w.Branch != "" {
		branch = "refs/heads/" + w.Branch
	}
	// version: which binary saved it, as a claim records which handed
	// its task out.
	msg := fmt.Sprintf("taskclean %s: worktree %s\n\npath %s\nhead %s\nbranch %s\ntask %s\nversion %s\n",
		c.opts.Run, filepath.Base(w.Path), strconv.Quote(w.Path), w.Head, branch, w.Task, version.Get().Version)
	in := worktree.SaveInput{AdminDir: w.AdminDir, Head: w.Head, TmpDir: tmp, Msg: msg, Budget: c.opts.Budget,
		HashLen: c.hashLen, Shared: c.shared}
	if t.Kind == kindRemove {
		in.Dir = t.aside
		// Checked again now that writers are stopped: git run in the
		// directory must reach this worktree's entry and nothing else.
		if why := foreignGit(t.aside, w.AdminDir, c.repo.CommonDir); why != "" {
			return nil, "", errors.New(why)
		}
	}
	if w.AdminDir == "" {
		in.AdminDir = tmp // no entry: nothing but HEAD to save
	}
	snap, err := worktree.Save(c.ctx, c.repo, in)
	if err != nil {
		return nil, "", err
	}
	admin := ""
	if w.AdminDir != "" && !w.Main {
		admin, err = c.saveAdmin(t, snap, msg)
		if err != nil {
			return nil, "", err
		}
	}
	return snap, admin, nil
}

// saveAdmin keeps what the admin entry holds beyond HEAD and the index:
// per-worktree refs, commits only its reflogs name, a stopped operation's
// files. A plain entry (HEAD and a reflog of commits branches hold) needs no
// save.
func (c *cleaner) saveAdmin(t *Target, snap *worktree.Snapshot, msg string) (string, error) {
	st, err := worktree.ReadAdmin(t.W.AdminDir, c.hashLen*2)
	if err != nil {
		return "", err
	}
	// A plain entry holds HEAD, its reflog and ORIG_HEAD/FETCH_HEAD (and
	// the clean's own lock mark); anything else (per-worktree refs or
	// config, a sparse-checkout definition, a stopped operation's files)
	// is saved as it is.
	need := st.Op != ""
	for _, f := range st.Files {
		switch f {
		case "HEAD", "ORIG_HEAD", "FETCH_HEAD", "logs/HEAD", "locked":
		default:
			need = true
		}
	}
	if !need {
		// Commits those files name that no branch, tag, remote-tracking
		// ref or the save itself holds.
		var ids []string
		for _, id := range st.IDs {
			if id != t.W.Head {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			r := c.repo.Runner
			out, err := r.RunInput(c.ctx, []byte(strings.Join(ids, "\n")+"\n"), "rev-list", "--ignore-missing", "--max-count=1",
				"--stdin", "--not", "--branches", "--tags", "--remotes", snapTip(snap, t.W.Head))
			// An id rev-list cannot walk (not a commit): saved, to be sure.
			need = err != nil || len(bytes.TrimSpace(out)) > 0
		}
	}
	if !need {
		return "", nil
	}
	skip := map[string]bool{}
	if t.W.Head != "" {
		skip[t.W.Head] = true
	}
	return worktree.SaveAdmin(c.ctx, c.repo, st, skip, "admin entry of "+msg)
}

// prove walks the stopped worktree and checks that every entry is in the
// save (or may go: regenerated trees, ignored files past the budget with
// --drop-ignored), and that every entry of its index, at every stage, is
// in the save too. It returns why the worktree must stay, or "".
func (c *cleaner) prove(t *Target, snap *worktree.Snapshot) string {
	plan := snap.IgnoredPlan
	index := snap.Index
	if t.W.AdminDir == "" {
		index = nil // no entry, no index of its own
	}
	proof, err := worktree.Prove(worktree.ProveInput{Root: t.aside, Indexes: snap.Indexes, HashLen: c.hashLen,
		Drop: plan.Drop(c.opts.DropIgnored), Since: t.since, Raw: snap.RawPaths, Index: index})
	if err != nil {
		return "cannot check its save: " + shortErr(err)
	}
	t.W.Ignored = proof.Dropped
	if len(proof.Unproven) == 0 {
		return ""
	}
	tooBig := map[string]bool{}
	for _, f := range plan.TooBig {
		tooBig[f] = true
	}
	var big, other []string
	for _, u := range proof.Unproven {
		if tooBig[u.Path] {
			big = append(big, u.Path)
		} else {
			other = append(other, u.Path+" ("+u.Why+")")
		}
	}
	if len(other) == 0 {
		return fmt.Sprintf("%s past the save budget (%d KiB a file, %d MiB in all): %s; pass --drop-ignored to let them go",
			ui.Plural(len(big), "ignored file"), c.opts.Budget.PerFile>>10, c.opts.Budget.Total>>20, ui.FirstFew(big))
	}
	return fmt.Sprintf("cannot prove its save holds everything: %s; it stays", ui.FirstFew(append(other, big...)))
}

// tmpPrefix names the temporary folders of a clean of run; a later clean
// of the run (holding its lock) removes those a crash left. "@" cannot be
// in a run id, so run x1's prefix is no prefix of run x1-a's.
func tmpPrefix(run string) string { return "taskclean-tmp-" + run + "@" }

// restoreCommand is the one command that brings a saved worktree back:
// the save of this clean (--from its stamp), which a later clean of the
// same path would otherwise hide. A dry run records nothing under its
// stamp, so its command names no clean.
func (c *cleaner) restoreCommand(path string) string {
	if c.opts.DryRun || c.res.Stamp == "" {
		return restoreCmd(c.opts.Run, path)
	}
	return restoreFromCmd(c.opts.Run, path, c.res.Stamp)
}

func restoreCmd(run, path string) string {
	return "git taskclean --run " + run + " --restore " + ui.ShellQuote(path)
}

// snapTip is what keeps a worktree's HEAD reachable after the clean: its
// save, or HEAD itself when HEAD is a branch and nothing needed saving.
func snapTip(snap *worktree.Snapshot, head string) string {
	if snap.Commit != "" {
		return snap.Commit
	}
	return head
}

func sortedNames(m map[string]resume.LostWork) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
