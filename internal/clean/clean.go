// Package clean is the git-taskclean workflow: choose what of a run to
// remove, save it under refs/taskclean/<run>/<stamp>/, prove the save, then
// remove it, and undo that on request. A clean is a sequence of steps, each
// in a file named after it:
//
//	recover.go  finish or undo what an interrupted clean left (under the lock)
//	select.go   state + options -> what to save, remove and delete (pure)
//	aside.go    stop writers: lock the entry, rename the directory aside
//	save.go     save each worktree and prove every entry is in the save
//	record.go   record every save in one atomic ref transaction
//	remove.go   delete what was saved, then the branches and claims
//
// and undo.go, restore.go, backups.go for getting things back. Why the
// steps come in this order, and what a crash between two of them leaves,
// is docs/DESIGN.md, "No loss: how the clean removes".
package clean

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// BackupRoot is where saved work lives (the report reads it too).
const BackupRoot = resume.BackupRoot

// Options are the command's flags.
type Options struct {
	Run   string
	Tasks []string
	// WithDependents: --task also re-executes every task that depends on
	// or is stacked on a task named (transitively); Only: the tasks named
	// alone, their dependents left standing on the discarded work (they
	// read stale_base). Without either, --task refuses when such
	// dependents have a branch, a worktree or a live claim.
	WithDependents, Only bool
	All                  bool
	Completed            bool
	DryRun               bool
	NoBackup             bool
	OlderThan            time.Duration
	PlanPath             string
	PlanRunID            string // --plan-run-id: the other run id the --plan plan names, read for this run
	Base                 string
	Cwd                  string
	Now                  time.Time
	ExpireBackups        time.Duration
	Remote               string
	// IgnoreLive removes worktrees in which a live process works (after
	// saving them), for an orphaned server the user has looked at.
	IgnoreLive bool
	// DropIgnored lets ignored files past the save budget go unsaved.
	DropIgnored bool
	// Stamp is the clean --undo restores ("" for the last one).
	Stamp string
	// Restore is the task id or path --restore brings back.
	Restore string
	// From is the clean whose save --restore brings back ("" for the most
	// complete, newest of all).
	From string
	// Budget bounds the ignored files saved per worktree.
	Budget worktree.Budget
	// Progress shows the long steps (reading, saving and removing many
	// worktrees) on a terminal; nil shows nothing.
	Progress *progress.Meter
}

// Action is one thing the clean did (or, in a dry run, would do). Its
// fields other than Op and Done are set where they apply to the Op.
type Action struct {
	Op   Op     `json:"action"`
	Task string `json:"task,omitempty"`
	// Path is the worktree's; Branch and Ref the branch deleted or
	// restored and the ref its save is under; Commit what was saved.
	Path   string `json:"path,omitempty"`
	Branch string `json:"branch,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Reason says why a skip kept something, or what a save or a recovery
	// holds, in words.
	Reason string `json:"reason,omitempty"`
	// The changes a saved worktree held, and its ignored files.
	Staged    int      `json:"staged,omitempty"`
	Unstaged  int      `json:"unstaged,omitempty"`
	Untracked int      `json:"untracked,omitempty"`
	Ignored   []string `json:"ignored,omitempty"`
	// Pids are the live processes that keep a worktree.
	Pids []int `json:"pids,omitempty"`
	// Command brings saved work back.
	Command string `json:"command,omitempty"`
	// Bytes is what a removed worktree's directory took on disk (as du
	// counts it), read just before it was deleted (in a dry run, now).
	Bytes int64 `json:"bytes,omitempty"`
	Done  bool  `json:"done"`
}

// Result is the JSON document of git-taskclean.
type Result struct {
	RunID   string    `json:"run_id"`
	DryRun  bool      `json:"dry_run"`
	Stamp   string    `json:"stamp,omitempty"`
	Backup  string    `json:"backup_prefix,omitempty"`
	Actions []*Action `json:"actions"`
	// Resumed is the stamp of an interrupted clean this one finished.
	Resumed string `json:"resumed,omitempty"`
	// FreedBytes sums Bytes over the worktrees removed (in a dry run, the
	// ones that would be): what the clean gave back to the disk, less any
	// file hard-linked from elsewhere.
	FreedBytes int64 `json:"freed_bytes"`
	// Backups lists the saved cleans (--backups).
	Backups []*Backup      `json:"backups,omitempty"`
	Report  *resume.Report `json:"report,omitempty"`
	// Color is git's colour setting for the clean's output (color.taskclean,
	// else color.ui), as the run's state read it.
	Color string `json:"-"`
}

// PartialError is a clean that failed after it changed something: the
// result says what it did, the error what stopped it.
type PartialError struct {
	Result *Result
	Err    error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// stepper is the test seam of the crash-safety tests: with
// GIT_TASKCLEAN_CRASH_AFTER=k the process dies right after its k-th change
// to the repository, as a kill would leave it (no deferred cleanup runs);
// with GIT_TASKCLEAN_CRASH_IN_TXN=k it kills git inside its k-th ref
// transaction, once git holds the locks, and dies.
type stepper struct{ n, limit, txn, txnLimit int }

func newStepper() *stepper {
	k, _ := strconv.Atoi(os.Getenv("GIT_TASKCLEAN_CRASH_AFTER"))
	t, _ := strconv.Atoi(os.Getenv("GIT_TASKCLEAN_CRASH_IN_TXN"))
	return &stepper{limit: k, txnLimit: t}
}

func (s *stepper) step() {
	s.n++
	if s.limit > 0 && s.n >= s.limit {
		os.Exit(99)
	}
}

// inTxn is called while git holds a transaction's locks.
func (s *stepper) inTxn(p *os.Process) {
	s.txn++
	if s.txnLimit > 0 && s.txn >= s.txnLimit {
		p.Kill()
		p.Wait()
		os.Exit(99)
	}
}

// Stamp names one clean; it sorts by time.
func Stamp(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

func parseStamp(s string) (time.Time, bool) {
	t, err := time.Parse("20060102T150405.000000000Z", s)
	return t, err == nil
}

func gatherOpts(opts Options, light bool) resume.Options {
	return resume.Options{Run: opts.Run, PlanPath: opts.PlanPath, PlanRunID: opts.PlanRunID, Base: opts.Base, Cwd: opts.Cwd,
		Remote: opts.Remote, Light: light, Ignored: true, Progress: opts.Progress}
}

// inputOpts reads only what checks the input (the plan, the versions it
// allows, the remotes): enough to refuse before the lock.
func inputOpts(opts Options) resume.Options {
	o := gatherOpts(opts, true)
	o.Input = true
	return o
}

func checkTasks(st *resume.State, opts Options) (map[string]bool, error) {
	// Which worktrees are stale follows from which tasks are done: on a
	// reading that cannot say (remotes that differ, none read), only a
	// clean that names what it removes may go on.
	why := st.Undecided()
	if why == "" {
		why = st.Behind()
	}
	if why != "" && !opts.All && len(opts.Tasks) == 0 {
		return nil, exit.BadInput("cannot tell which worktrees are stale (that follows from which tasks are done): %s; or name what to remove: --task ID, --all", why)
	}
	want := map[string]bool{}
	for _, id := range opts.Tasks {
		if st.Plan == nil {
			return nil, &exit.BadInputError{Msg: "--task " + id + ": " + st.NoPlan()}
		}
		t := st.Plan.Task(id)
		if t == nil {
			return nil, exit.BadInput("--task %s: no such task in the plan of run %s", id, opts.Run)
		}
		want[t.ID] = true // either separator names the task: 1.1 is the plan's 1-1
	}
	if len(want) == 0 || opts.Only {
		return want, nil
	}
	deps, landed := dependents(st, want)
	if len(deps) > 0 && !opts.WithDependents {
		return nil, refuseDependents(opts.Tasks, deps, landed)
	}
	for _, id := range deps {
		want[id] = true
	}
	return want, nil
}

// Run performs a clean (or its dry run). A real clean takes the run's lock
// before it reads the state it acts on, so two cleans never act on the same
// facts; bad input is refused before anything changes. The input is
// checked on a first read before the lock (taking it would create or
// rewrite the lock file), and again on the state read under the lock,
// before leftovers are recovered.
func Run(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	if opts.Budget == (worktree.Budget{}) {
		opts.Budget = worktree.DefaultBudget
	}
	var err error
	// Read before the lock is taken, even when its file exists: a binary
	// the repository does not allow must not even take the lock (it would
	// keep an allowed clean waiting, and rewrite the lock file).
	if !opts.DryRun {
		pre, err := resume.Gather(ctx, repo, inputOpts(opts))
		if err != nil {
			return nil, err
		}
		if err := pre.VersionError(); err != nil {
			return nil, err
		}
		if _, err := checkTasks(pre, opts); err != nil {
			return nil, err
		}
	}
	var lock *Lock
	if !opts.DryRun {
		if lock, err = Acquire(repo.CommonDir, opts.Run); err != nil {
			return nil, err
		}
	}
	c := &cleaner{ctx: ctx, repo: repo, opts: opts, lock: lock, steps: newStepper(),
		res: &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}}}
	err = c.run()
	for _, a := range c.res.Actions {
		if a.Op == OpRemoveWorktree && (a.Done || opts.DryRun) {
			c.res.FreedBytes += a.Bytes
		}
	}
	if lock != nil {
		if err == nil {
			lock.Finish()
		}
		// Marks the lock idle, so an interrupted clean's stamp is only
		// linked by the clean that comes right after it.
		if rerr := lock.Release(); err == nil {
			err = rerr
		}
	}
	if err != nil {
		if c.changed() {
			return nil, &PartialError{Result: c.res, Err: err}
		}
		return nil, err
	}
	res := c.res
	if c.st != nil {
		res.Report = c.st.Report
	}
	if c.changed() {
		if after, err := resume.Gather(ctx, repo, gatherOpts(opts, false)); err == nil {
			res.Report = after.Report
		}
	}
	return res, nil
}

// cleaner carries one clean through its steps.
type cleaner struct {
	// hooked are the worktrees git config taskclean.preRemove ran in;
	// hookFailed says, per worktree, why it stays after its command.
	hooked      map[string]bool
	hookFailed  map[string]string
	hookTimeout time.Duration

	ctx   context.Context
	repo  *gitcmd.Repo
	opts  Options
	lock  *Lock
	steps *stepper
	res   *Result
	st    *resume.State
	// hashLen is 20 or 32: the repository's object format.
	hashLen int
	prefix  string
	// names gives each save of the clean its own ref name, across waves.
	names *namer
	// lost is, per branch to delete, the work only its reflog holds.
	lost map[string]resume.LostWork
	// shared is what every save of the clean reads once, with its writers
	// (opened before the first save, closed when the clean ends);
	// sharedTmp is its folder.
	shared    *worktree.Shared
	sharedTmp string
	// aliasTargets is, per branch to delete that is a symbolic ref, the
	// ref its file named when its save was made.
	aliasTargets map[string]string
	// dropped are the claim refs this clean deleted (dropClaims): the
	// branch deletion expects them absent, not at the values read.
	dropped map[string]bool
}

// changed reports whether the clean changed the run (its report must be
// read again) rather than only saving or skipping.
func (c *cleaner) changed() bool {
	for _, a := range c.res.Actions {
		if a.Done && !a.Op.Saves() {
			return true
		}
	}
	return false
}

func (c *cleaner) add(a *Action) *Action {
	c.res.Actions = append(c.res.Actions, a)
	return a
}

// run drives one clean through its steps (see the package comment): read
// the state and recover what an interrupted clean left, select what to
// act on, take a stamp, drop the claims, then wave by wave stop writers
// (aside), save, record and remove, and last delete the branches.
func (c *cleaner) run() error {
	defer c.closeShared()
	sel, wantTask, err := c.decide()
	if err != nil {
		return err
	}
	c.res.Actions = append(c.res.Actions, sel.Skips...)
	if len(sel.Targets) == 0 && len(sel.Branches) == 0 && len(sel.Claims) == 0 && len(c.st.StaleCopies) == 0 {
		return nil
	}
	if err := c.readLost(sel); err != nil {
		return err
	}
	if err := c.startStamp(); err != nil {
		return err
	}
	// Claims go first, each by compare-and-swap where it lives: a holder
	// that renewed its expired claim meanwhile makes the drop fail, and
	// then its worktree stays. Nothing of a worktree is touched before.
	c.dropClaims(sel, wantTask)
	return c.removeInWaves(sel, wantTask)
}

// closeShared closes what the saves of the clean shared and removes its
// folder: deferred by run, so that it happens on every way out of it.
func (c *cleaner) closeShared() {
	c.shared.Close()
	if c.sharedTmp != "" {
		os.RemoveAll(c.sharedTmp)
	}
}

// decide reads the run's state, recovers what an interrupted clean left
// and selects what the clean acts on, then, when taskclean.preRemove ran
// in worktrees to remove, selects again on the state the commands left.
// Everything before the first change of the clean proper: a step of its
// own because every input error is found here, before anything changes.
func (c *cleaner) decide() (*Selection, map[string]bool, error) {
	// What a worktree held is read again after it is stopped (aside.go):
	// this read only decides what to act on. It is made holding the lock,
	// and it checks the input before anything changes.
	gopts := gatherOpts(c.opts, false)
	gopts.NoStatus = !c.opts.DryRun
	st, err := c.readState(gopts)
	if err != nil {
		return nil, nil, err
	}
	if st, err = c.recoverInterrupted(gopts, st); err != nil {
		return nil, nil, err
	}
	c.st = st
	c.res.Color = st.ColorSetting("taskclean")
	sel, wantTask, err := c.choose(st, true)
	if err != nil || !c.runPreRemove(sel) {
		return sel, wantTask, err
	}
	// The commands may have committed, switched branches, moved tips or
	// removed their worktree: what the clean saves, deletes and keeps is
	// decided on the state they left.
	if st, err = resume.Gather(c.ctx, c.repo, gopts); err != nil {
		return nil, nil, err
	}
	return c.choose(st, false)
}

// readState is the first read of the run's state, with the checks of the
// input that need it (the tasks named, the preRemove timeout).
func (c *cleaner) readState(gopts resume.Options) (*resume.State, error) {
	st, err := resume.Gather(c.ctx, c.repo, gopts)
	if err != nil {
		return nil, err
	}
	// A binary the repository does not allow cleans nothing, not even
	// what an interrupted clean left (recovered next).
	if err := st.VersionError(); err != nil {
		return nil, err
	}
	if _, err := checkTasks(st, c.opts); err != nil {
		return nil, err
	}
	if c.hookTimeout, err = hookTimeout(st); err != nil {
		return nil, err
	}
	return st, nil
}

// recoverInterrupted finishes or undoes what an interrupted clean of the
// run left (not in a dry run) and returns the state to decide on: read
// again when the recovery put back, finished or unlocked something, since
// that is part of what the clean decides on. A step of its own: it is the
// one change allowed before the clean has decided anything.
func (c *cleaner) recoverInterrupted(gopts resume.Options, st *resume.State) (*resume.State, error) {
	if c.opts.DryRun {
		return st, nil
	}
	acts, changed, err := recoverChanged(c.ctx, c.repo, c.opts.Run, c.lock)
	c.res.Actions = append(c.res.Actions, acts...)
	if err != nil {
		return nil, err
	}
	if changed {
		return resume.Gather(c.ctx, c.repo, gopts)
	}
	return st, nil
}

// choose selects, on the state st, what the clean saves, removes and
// deletes, for the tasks named; first says it is the first selection,
// which also learns the repository's object format. It refuses when the
// claims cannot be read: which tasks are held decides which worktrees are
// live work. Run once, and again after the preRemove commands.
func (c *cleaner) choose(st *resume.State, first bool) (*Selection, map[string]bool, error) {
	c.st = st
	if st.ClaimsErr != nil {
		return nil, nil, &exit.BadInputError{Msg: st.ClaimsErr.Error() + "; nothing was changed (a clean must know which tasks are claimed)"}
	}
	if first {
		c.hashLen = 20
		if len(st.Report.Base.Commit) == 64 {
			c.hashLen = 32
		}
	}
	wantTask, err := checkTasks(st, c.opts)
	if err != nil {
		return nil, nil, err
	}
	obs := observe(st, c.opts, c.repo, wantTask)
	obs.RemovesInWaves = true // removeInWaves goes wave by wave
	sel, err := Select(st, c.opts, obs, wantTask)
	if err != nil {
		return nil, nil, err
	}
	return sel, wantTask, nil
}

// readLost reads, for each local branch to delete, the work only its
// reflog still names: deleting a branch deletes its reflog, so that work
// is saved with the branch. Read before anything changes.
func (c *cleaner) readLost(sel *Selection) error {
	if c.opts.NoBackup || len(sel.Branches) == 0 {
		return nil
	}
	tips := map[string]string{}
	for _, bt := range sel.Branches {
		if bt.B.Remote == "" {
			tips[bt.B.Name] = bt.B.OID
		}
	}
	var err error
	if c.lost, err = resume.ReflogLost(c.ctx, c.repo, tips); err != nil {
		return fmt.Errorf("read the reflogs of the branches to delete: %w", err)
	}
	return nil
}

// startStamp names the clean by its stamp, marks it started in the lock
// (linking the interrupted clean it finishes) and sets the prefix its
// saves go under: the first change the clean makes.
func (c *cleaner) startStamp() error {
	stamp := Stamp(c.opts.Now)
	if c.lock != nil {
		// Always a new stamp, so a stamp's date is when its saves were made
		// (what --expire-backups goes by); the interrupted clean is linked.
		if c.lock.Interrupted != "" && c.lock.Interrupted != stamp {
			c.res.Resumed = c.lock.Interrupted
		}
		if err := c.lock.Start(stamp); err != nil {
			return err
		}
	}
	c.res.Stamp = stamp
	c.prefix = BackupRoot + c.opts.Run + "/" + stamp + "/"
	c.res.Backup = c.prefix
	return nil
}

// removeInWaves stops, saves, records and removes the targets wave by
// wave, then deletes the branches. A worktree inside another is stopped,
// saved and removed before the one around it (whose renaming aside would
// take it along): one wave after the other, each recorded before anything
// of it is removed. The branches and claims are saved with the first. On
// every way out, what was set aside and not removed is put back (after the
// branches are deleted, as the deferred call runs last).
func (c *cleaner) removeInWaves(sel *Selection, wantTask map[string]bool) error {
	waves := sel.Waves()
	if len(waves) == 0 {
		waves = [][]*Target{nil}
	}
	var all []*Target
	defer func() { c.putBackAll(all) }()
	for i, wave := range waves {
		if i > 0 && !c.opts.DryRun {
			// The earlier wave's removals changed directories of this one;
			// the proof takes a change after a worktree is stopped for a
			// late write, and file times trail the clock by up to a tick
			// (stopWriters starts 20ms early): let that tick pass.
			time.Sleep(50 * time.Millisecond)
		}
		targets := c.stopWriters(c.preRemove(c.innerGone(wave)))
		// The whole wave: a target kept before it was stopped (an inner
		// worktree that stays, a preRemove command that failed) keeps the
		// branch checked out in it.
		all = append(all, wave...)
		// A task claimed while the clean ran (after it read the claims)
		// is live work: its worktree, aside now, goes back.
		c.claimedMeanwhile(targets, wantTask)
		rest := sel
		if i > 0 {
			rest = nil
		}
		saves, err := c.saveAll(targets, rest)
		if err != nil {
			return err
		}
		if err := c.record(saves); err != nil {
			return err
		}
		c.removeAll(targets)
	}
	return c.deleteBranches(sel.Branches, all, wantTask)
}

// innerGone keeps, of a wave, the targets whose inner worktrees an earlier
// wave removed; the others stay, and say which inner one stayed.
func (c *cleaner) innerGone(wave []*Target) []*Target {
	var out []*Target
	for _, t := range wave {
		if t.skip != nil {
			continue // kept already (its claim could not be dropped)
		}
		if p := t.innerKept(c.opts.DryRun); p != "" {
			c.skip(t, "holds the worktree "+p+", which stays; removing it would take that worktree along")
			continue
		}
		out = append(out, t)
	}
	return out
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

// ValidStamp reports whether s names a clean (as Stamp writes it).
func ValidStamp(s string) bool {
	_, ok := parseStamp(s)
	return ok
}
