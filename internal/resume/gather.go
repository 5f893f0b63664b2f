package resume

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Options select the run and how to read it.
type Options struct {
	Run string
	// Sizes reads what each worktree of the run takes on disk (a walk of
	// its files, so only when asked).
	Sizes bool
	// PlanPath is --plan: a file path, or REV:PATH to read it from a commit.
	PlanPath string
	// Base is --base.
	Base string
	// FromPhase puts phases numbered below it out of scope.
	FromPhase int
	// Cwd is the directory the command runs in ("" for the process's).
	Cwd string
	// Remote also reads refs/remotes/<Remote>/ (local branches win).
	Remote string
	// Ignored also lists each worktree's ignored files (git taskclean
	// reports what a removal deletes unsaved), from the same status call.
	Ignored bool
	// NoStatus does not read what each worktree holds (git taskclean reads
	// it again, once it has stopped writers, and only for what it removes).
	NoStatus bool
	// Light checks the input (run id, plan, base, task ids) and reads
	// branches and worktrees, but not history, claims or what each worktree
	// holds: task states are then unknown. For validating before acting.
	Light bool
}

// InputError is bad usage or input: exit code 2, nothing changed.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// State is everything gathered about a run: the report plus what
// git-taskclean needs to act on it.
type State struct {
	// ColorConfig holds git's colour settings (color.ui, color.taskresume,
	// color.taskclean) as git config printed them: ColorSetting reads it.
	ColorConfig map[string]string
	// PreRemove is git config taskclean.preRemove, the command the clean
	// runs in each worktree before saving and removing it; PreRemoveTimeout
	// its taskclean.preRemoveTimeout as written (the clean reads it: a
	// mistake there must not stop a report).
	PreRemove        string
	PreRemoveTimeout string

	Repo      *gitcmd.Repo
	Plan      *plan.Plan
	Report    *Report
	Worktrees []*worktree.Worktree // the run's worktrees, from git
	// AllWorktrees are every worktree of the repository, the run's or not.
	AllWorktrees []*worktree.Worktree
	// TaskBranches are every local branch of the run, matched or not.
	TaskBranches []branches.Branch
	MainBranch   *branches.Branch
	// RemoteCopies holds, per branch name, the remote-tracking copy of a
	// local task branch (the local one is what counts).
	RemoteCopies map[string]branches.Branch
	Remote       string
	// Claims are the run's task claims by task id: with a remote, the
	// remote's as they are now, and this repository's own (claims.Merge).
	Claims map[string]*claims.Claim
	// ClaimsErr is why the remote's claims could not be read (Claims then
	// holds this repository's copies only): a report says it, a claimer
	// or a scheduler stops.
	ClaimsErr error
	// Unread are the run's task branches that exist only as remote-tracking
	// branches of a remote that was not named: the report does not count
	// them, so nothing may be handed out on its word.
	Unread []string
	// Moved are the run's branches that the remote holds at another commit
	// than its remote-tracking copy here (or holds and the copy lacks, or
	// lacks): the report reads the copies, which are behind.
	Moved []string
	// ReadFrom is where the remote's claims are read back from ("" for
	// the remote itself): its push URL when one is configured.
	ReadFrom string
	// StaleCopies are copies here of the remote's claims it no longer holds.
	StaleCopies []*claims.Claim
	// claimProblems are what reading the remote's claims found, added to
	// the report once the reads running beside it are done.
	claimProblems []Problem
	States        []branches.TaskState
	// Verdict is the completion rule's answer, with the branches it could
	// not give to any task.
	Verdict branches.Verdict
	// WorktreeDir is where task worktrees live (taskresume.worktreeDir).
	WorktreeDir string
	fromPhase   int
	opts        Options
	// planLooked names where the plan was looked for (none found).
	planLooked []string
	// planSuggest is a --plan value for a copy found on a task branch.
	planSuggest string
	// planDoubt: another copy of the plan may hold tasks the one read
	// lacks, so the run is never called complete.
	planDoubt string
	// stops are the task branches whose last attempt stopped mid-way.
	stops map[string]interruption
	// behind are the local task branches behind their remote copy, which
	// counts in their place.
	behind map[string]branches.Branch
}

// OpenRepo opens the repository at dir, or says plainly that there is none.
func OpenRepo(ctx context.Context, dir string) (*gitcmd.Repo, error) {
	repo, err := gitcmd.Open(ctx, dir)
	if errors.Is(err, gitcmd.ErrNotRepo) {
		where := dir
		if where == "" {
			where, _ = os.Getwd()
		}
		msg := strings.TrimSuffix(err.Error(), ": "+gitcmd.ErrNotRepo.Error())
		return nil, inputErr("%s (in %s; run it inside the repository of the run)", msg, where)
	}
	return repo, err
}

// Gather reads a run's state. The git processes it starts are fixed,
// whatever the number of tasks or branches: rev-parse, config,
// for-each-ref, worktree list, cat-file --batch, one log of the commits the
// run added, the search for landed work since the run started (see
// docs/DESIGN.md, "What this costs"), one rev-list of commits on detached
// worktree HEADs that no ref holds (only when such worktrees exist), plus
// one status per existing worktree of the run (dirtiness is a property of
// each working tree; a report with no live worktrees starts none).
func Gather(ctx context.Context, repo *gitcmd.Repo, opts Options) (*State, error) {
	return GatherOpening(ctx, Opened(repo), opts)
}

// GatherOpening is Gather for a repository still being found: the first
// reads run beside rev-parse, in the same directory, and the repository's
// own error (not a repository) wins over theirs.
func GatherOpening(ctx context.Context, o *Opening, opts Options) (*State, error) {
	if err := plan.ValidateRunID(opts.Run); err != nil {
		return nil, &InputError{err.Error()}
	}
	run := opts.Run
	// Counted from before rev-parse, whether or not it has started yet.
	started := o.started
	repo := o.early()
	st := &State{Repo: repo, WorktreeDir: ".worktrees", opts: opts}
	rep := &Report{SchemaVersion: SchemaVersion, RunID: run, Problems: []Problem{},
		Phases: []Phase{}, Worktrees: []*Worktree{}, UnknownBranches: []string{}, StaleWorktrees: []string{}}
	st.Report = rep

	// Stage A: what depends only on the run id, read at once. Remote copies
	// are read for every remote and filtered once the config names one, so
	// that nothing here waits for anything else.
	var cfg map[string]string
	var refs []gitcmd.Ref
	var wts []*worktree.Worktree
	var objs *gitcmd.Objects
	defer func() { objs.Close() }()
	err := parallel(
		func() (err error) {
			// The plan's copies in commits are read through it once the
			// refs are known; its start-up overlaps this stage.
			if opts.PlanPath == "" {
				objs, err = repo.ObjectReader(ctx)
			}
			return err
		},
		func() (err error) {
			// Push URLs too: claims are written where git pushes, and
			// must be read back from there.
			// And git's colour settings for the human report.
			if cfg, err = repo.ConfigMatching(ctx, `^(taskresume\.|remote\..*\.pushurl$|url\..*\.pushinsteadof$|color\.ui$|color\.taskresume$|color\.taskclean$|taskclean\.preremove(timeout)?$)`); err != nil {
				err = fmt.Errorf("read git config: %w", err)
			}
			return err
		},
		func() (err error) {
			// A glob's "*" stops at "/": "/**" also reads task branches such
			// as <run>-task-2-2-fix/wip.
			tp := branches.TaskPrefix(run)
			pats := []string{"refs/heads/" + tp + "*", "refs/heads/" + tp + "*/**", "refs/heads/" + branches.MainBranch(run),
				"refs/heads/main", "refs/heads/master", "refs/remotes/origin/HEAD",
				"refs/remotes/origin/main", "refs/remotes/origin/master",
				"refs/remotes/*/" + tp + "*", "refs/remotes/*/" + tp + "*/**", "refs/remotes/*/" + branches.MainBranch(run),
				BackupRoot + run + "/"}
			if opts.Light {
				refs, err = repo.Refs(ctx, pats...)
			} else {
				// The claims come with the branches: one process, not two.
				var saved []gitcmd.SavedRef
				refs, saved, err = repo.RefsAndBodies(ctx, []string{claims.Root + run + "/"}, pats...)
				st.Claims = claims.FromRefs(saved, run, time.Now())
			}
			if err != nil {
				err = fmt.Errorf("list branches: %w", err)
			}
			return err
		},
		func() (err error) { wts, err = worktree.List(ctx, repo); st.AllWorktrees = wts; return err },
	)
	// Not a repository: git's reason, not the first read's failure.
	found, oerr := o.Repo()
	if oerr != nil {
		return nil, oerr
	}
	if err != nil {
		return nil, err
	}
	repo = found
	st.Repo = found
	gitcmd.Mark("stage A done")
	st.ColorConfig = map[string]string{}
	for k, v := range cfg {
		if strings.HasPrefix(k, "color.") {
			st.ColorConfig[k] = v
		}
	}
	st.PreRemove, st.PreRemoveTimeout = cfg["taskclean.preremove"], cfg["taskclean.preremovetimeout"]
	if d := cfg["taskresume.worktreedir"]; d != "" {
		st.WorktreeDir = filepath.Clean(d)
	}

	remote := opts.Remote
	if remote == "" {
		remote = cfg["taskresume.remote"]
	}
	if remote != "" {
		if strings.HasPrefix(remote, "-") || plumbing.ReferenceName("refs/remotes/"+remote+"/x").Validate() != nil {
			return nil, inputErr("remote %q is not a valid remote name", remote)
		}
		if strings.Contains(remote, "/") {
			// refs/remotes/a/b/<branch> cannot be told from remote a's
			// branch b/<branch>: the run's branches would go unread.
			return nil, inputErr("remote %q: names with a / are not supported; git remote rename %s to a name without one", remote, remote)
		}
	}
	st.Remote = remote
	if t := cfg["taskresume.remotetimeout"]; t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, inputErr("git config taskresume.remoteTimeout %q: want a duration such as 30s", t)
		}
		claims.Timeout = d
	}
	remotePrefix := "refs/remotes/" + remote + "/"
	byName := map[string]gitcmd.Ref{}
	allRefs := map[string]gitcmd.Ref{}
	for _, r := range refs {
		allRefs[r.Name] = r
	}
	local := map[string]bool{}
	var remoteOnly []branches.Branch
	var remoteTask []string
	st.RemoteCopies = map[string]branches.Branch{}
	for _, r := range refs {
		if strings.HasPrefix(r.Name, "refs/remotes/") && r.Name != "refs/remotes/origin/HEAD" &&
			(remote == "" || !strings.HasPrefix(r.Name, remotePrefix)) {
			if strings.Contains(r.Name, "/"+branches.TaskPrefix(run)) {
				remoteTask = append(remoteTask, strings.TrimPrefix(r.Name, "refs/remotes/"))
			}
			continue // another remote's copy, or no --remote at all
		}
		byName[r.Name] = r
		if r.Type != "commit" {
			continue
		}
		b := branches.Branch{Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime}
		switch {
		case strings.HasPrefix(r.Name, "refs/heads/"+branches.TaskPrefix(run)):
			b.Name = strings.TrimPrefix(r.Name, "refs/heads/")
			local[b.Name] = true
			st.TaskBranches = append(st.TaskBranches, b)
		case remote != "" && strings.HasPrefix(r.Name, remotePrefix+branches.TaskPrefix(run)):
			b.Name, b.Remote = strings.TrimPrefix(r.Name, remotePrefix), remote
			remoteOnly = append(remoteOnly, b)
		}
	}
	// Task branches only a remote has, not read without --remote: the
	// report would call their tasks not started.
	read := map[string]bool{}
	for _, b := range remoteOnly {
		read[b.Name] = true
	}
	for _, name := range remoteTask {
		if _, branch, ok := strings.Cut(name, "/"+branches.TaskPrefix(run)); ok && !local[branches.TaskPrefix(run)+branch] && !read[branches.TaskPrefix(run)+branch] {
			st.Unread = append(st.Unread, name)
		}
	}
	if len(st.Unread) > 0 {
		rep.Problems = append(rep.Problems, Problem{Kind: "remote_branches_unread", Message: st.unreadMessage()})
	}
	// Local wins; a remote copy of a local branch is kept for comparison.
	for _, b := range remoteOnly {
		if local[b.Name] {
			st.RemoteCopies[b.Name] = b
		} else {
			st.TaskBranches = append(st.TaskBranches, b)
		}
	}
	for _, ref := range []string{"refs/heads/" + branches.MainBranch(run), remotePrefix + branches.MainBranch(run)} {
		if r, ok := byName[ref]; ok && st.MainBranch == nil {
			b := branches.Branch{Name: branches.MainBranch(run), Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime}
			if !strings.HasPrefix(ref, "refs/heads/") {
				b.Remote = remote
			}
			st.MainBranch = &b
		}
	}

	base, baseProblems, err := resolveBase(ctx, repo, opts, cfg, allRefs, run, remote)
	if err != nil {
		return nil, err
	}
	rep.Base = base
	rep.Problems = append(rep.Problems, baseProblems...)
	if st.MainBranch == nil && base.Source == "run-main" {
		// The run's branch read from a remote without --remote: it is
		// the run's all the same.
		if r, ok := allRefs["refs/remotes/"+base.Ref]; ok {
			st.MainBranch = &branches.Branch{Name: branches.MainBranch(run), Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime,
				Remote: strings.TrimSuffix(base.Ref, "/"+branches.MainBranch(run))}
		}
	}

	gitcmd.Mark("base resolved")
	discards, saves, err := readSaves(ctx, repo, objs, refs, run)
	if err != nil {
		return nil, fmt.Errorf("read the run's saves: %w", err)
	}
	var tips []string
	seen := map[string]bool{}
	addTip := func(oid string) {
		if oid != "" && !seen[oid] {
			seen[oid] = true
			tips = append(tips, oid)
		}
	}
	for _, b := range st.TaskBranches {
		addTip(b.OID)
	}
	for _, b := range st.RemoteCopies {
		addTip(b.OID)
	}
	// <run>-main bounds the tasks' work when it is not the base.
	var bounds []string
	if st.MainBranch != nil && st.MainBranch.OID != base.Commit {
		bounds = append(bounds, st.MainBranch.OID)
		addTip(st.MainBranch.OID)
	}
	sort.Strings(tips)
	// The tips a clean deleted are walked too, so that what they hold is
	// known wherever another branch still holds it; they never date the
	// run's start (heads, below, are the tips without them).
	walkTips := append([]string(nil), tips...)
	for _, d := range discards {
		if !seen[d.OID] {
			seen[d.OID] = true
			walkTips = append(walkTips, d.OID)
		}
	}
	sort.Strings(walkTips)
	if opts.Light {
		walkTips = nil
	}
	// The default branches' commits since the run started: the start is
	// the base's own commit or one of its ancestors (the commit that
	// added the plan, or where the run's branches meet the base), so
	// "since the start, not the base's" is "not the base's". Read now,
	// beside the walk, while the plan is looked for.
	_, defOIDs := defaultBranches(allRefs, base)
	defIsBase := len(defOIDs) == 0
	type logged struct {
		cs  []gitcmd.LogEntry
		err error
	}
	defCh := make(chan logged, 1)
	if opts.Light || defIsBase {
		defCh <- logged{}
	} else {
		done := make(chan struct{})
		defer func() { <-done }()
		go func() {
			defer close(done)
			cs, err := repo.LogRevs(ctx, defOIDs, []string{base.Commit})
			defCh <- logged{cs, err}
		}()
	}
	// The walk needs no plan: it starts now, while the plan is looked for.
	type walked struct {
		walk  []gitcmd.LogEntry
		trees map[string]string
		err   error
	}
	walkCh := make(chan walked, 1)
	{
		done := make(chan struct{})
		defer func() { <-done }()
		go func() {
			defer close(done)
			w, t, err := repo.LogWalk(ctx, walkTips, []string{base.Commit})
			walkCh <- walked{w, t, err}
		}()
	}
	// The paths the task tips change against the base, for the squash
	// search, read while the plan is looked for.
	type guess struct {
		paths   map[string]bool
		changes gitcmd.Changes
		err     error
	}
	var guessRes guess
	guessDone := make(chan struct{}) // closed once guessRes is set
	// Only from the run's own branch: tasks leave it at its tip, so what a
	// tip changes against it is the tasks' work. Against a shared base
	// that moved on (main), it is also everything the base did since the
	// fork: a wide, slow search. Then the exact paths are waited for.
	if opts.Light || !runOwnBase(base, run) {
		close(guessDone)
	} else {
		tipsNow := append([]branches.Branch(nil), st.TaskBranches...)
		done := make(chan struct{})
		defer func() { <-done }() // before the reader closes, whatever returns
		go func() {
			defer close(done)
			g, ch, err := guessPaths(ctx, repo, objs, base.Commit, tipsNow)
			guessRes = guess{g, ch, err}
			close(guessDone)
		}()
	}
	pr, err := findPlan(ctx, repo, objs, opts, cfg, allRefs, wts, base, st.WorktreeDir)
	if err != nil {
		return nil, err
	}
	p := pr.plan
	planRepoPath := pr.repoPath
	st.planLooked, st.planSuggest = pr.looked, pr.suggest
	if p != nil {
		st.Plan = p
		rep.Plan = &pr.source.Name
		rep.PlanSource = pr.source
	}
	for _, w := range pr.warns {
		rep.Problems = append(rep.Problems, Problem{Kind: "plan_warning", Message: w.String()})
	}
	st.planDoubt = pr.doubt
	if pr.doubt != "" {
		rep.Problems = append(rep.Problems, Problem{Kind: "plan_diverged", Message: pr.doubt})
	}
	for _, d := range pr.differs {
		rep.Problems = append(rep.Problems, Problem{Kind: "plan_differs", Message: d})
	}
	if p != nil && opts.FromPhase != 0 {
		found := false
		for _, ph := range p.Phases {
			found = found || ph.Number == opts.FromPhase
		}
		if !found {
			return nil, inputErr("--from-phase %d: the plan has no phase %d", opts.FromPhase, opts.FromPhase)
		}
		st.fromPhase = opts.FromPhase
	}

	if p == nil && len(st.TaskBranches) == 0 && st.MainBranch == nil && !st.hasRunWorktree(wts, run) {
		return nil, inputErr("unknown run %q: no branch %s* and %s (check the run id)", run, branches.TaskPrefix(run), noPlanHint(run, pr.looked, st))
	}

	gitcmd.Mark("plan found")
	names := branches.NewNames(run, p)
	m := names.Match(st.TaskBranches)

	// Stage B, at once: one walk of every commit reachable from a task tip
	// and not from the base (started above); the search of the base and
	// the default branch for landed work since the run started; what each
	// worktree of the run holds.
	// The run's start is dated by the branches that may be its own: a
	// branch whose name names no task (a follow-up fix, an earlier plan's)
	// must not move it back.
	onlyUnknown := map[string]bool{}
	for _, b := range m.Unknown {
		onlyUnknown[b.OID] = true
	}
	for _, bs := range m.ByTask {
		for _, b := range bs {
			delete(onlyUnknown, b.OID) // a named branch is at that tip too
		}
	}
	var heads []string
	for _, t := range tips {
		if !onlyUnknown[t] {
			heads = append(heads, t)
		}
	}
	for _, w := range wts {
		if !w.Bare && !w.Main && st.belongsToRun(w, run) {
			heads = append(heads, w.HEAD)
		}
	}
	if opts.Light {
		heads = nil
	}
	var walk []gitcmd.LogEntry
	var trees map[string]string
	var notDefault map[string]bool
	var landed, landedDef []gitcmd.LogEntry
	var start, noStart string
	var holding map[string]bool // nil: not asked
	var taskChanges, cands, guessedCands gitcmd.Changes
	var guessed map[string]bool
	var fromPlan bool
	var runWts []*Worktree
	since := []string{base.Commit}
	if !defIsBase {
		since = append(since, defOIDs...)
	}
	near := 1 // the tip alone, on a shared base
	if runOwnBase(base, run) {
		near = addedNearLimit
	}
	startKnown := make(chan struct{})
	knowStart := sync.OnceFunc(func() { close(startKnown) })
	// The start's own reads go first through the shared reader: the
	// squash search waits for the start, the tasks' changes do not.
	startRead := make(chan struct{})
	startReadDone := sync.OnceFunc(func() { close(startRead) })
	err = parallel(
		func() (err error) {
			w := <-walkCh
			if walk, trees, err = w.walk, w.trees, w.err; err != nil {
				return fmt.Errorf("walk the run's history: %w", err)
			}
			if repo.Shallow {
				if err := checkShallow(repo, walk); err != nil {
					return err
				}
			}
			if p == nil || opts.Light {
				return nil
			}
			// What the squash check compares, beside the landing search:
			// which branch holds a task's work is known from the walk.
			pre := branches.Decide(branches.Input{Run: run, Plan: p, Names: names, Branches: st.TaskBranches, Bounds: bounds, Walk: walk, Trees: trees})
			// The reader answers one question at a time: the start's
			// few reads go first. The tips' changes the guess read are
			// the tasks' own where a task's work starts at the base.
			<-startRead
			<-guessDone
			if taskChanges, err = taskChangesOf(ctx, repo, objs, pre.States, guessRes.changes); err != nil {
				return fmt.Errorf("look for squashed tasks: %w", err)
			}
			return nil
		},
		func() (err error) {
			// The landed commits that touch the tasks' paths, searched
			// beside the walk with the paths the tips change against the
			// base; after it, with the tasks' own, only when the guess
			// missed one.
			if p == nil || opts.Light {
				return nil
			}
			<-guessDone
			g := guessRes
			if guessed, err = g.paths, g.err; err != nil || guessed == nil {
				return err
			}
			<-startKnown
			guessedCands, err = landedChanges(ctx, repo, since, start, guessed)
			return err
		},
		func() (err error) {
			defer knowStart()
			defer startReadDone()
			if p == nil || opts.Light {
				return nil
			}
			// The start itself is searched too ("^start^@"): the commit that
			// added the plan may carry a task's work.
			start, noStart, fromPlan, err = runStart(ctx, repo, objs, planRepoPath, base.Commit, heads, near, startReadDone)
			knowStart()
			if err != nil || start == "" {
				return err
			}
			return parallel(
				func() (err error) {
					if start == base.Commit && objs != nil {
						// Only the start itself: read it in-process.
						c, ok, err := objs.Commit(start)
						if ok {
							landed = []gitcmd.LogEntry{c}
						}
						return err
					}
					landed, err = repo.LogRevs(ctx, []string{base.Commit}, []string{start + "^@"})
					return err
				},
				func() (err error) {
					d := <-defCh
					landedDef, err = d.cs, d.err
					return err
				},
			)
		},
		func() error { runWts = st.classifyWorktrees(ctx, wts, m, !opts.Light); return nil },
		func() error {
			// The remote's claims as they are now: one ls-remote (and a
			// fetch of claim commits this repository has not seen).
			if remote != "" && !opts.Light {
				st.readRemote(ctx, repo, objs, cfg, allRefs)
			}
			return nil
		},
	)
	if err != nil {
		return nil, err
	}
	gitcmd.Mark("stage B done")
	if p != nil && !opts.Light {
		paths, covered := squashPaths(taskChanges, guessed)
		if covered {
			cands = guessedCands
		} else if cands, err = landedChanges(ctx, repo, since, start, paths); err != nil {
			return nil, fmt.Errorf("look for squashed tasks: %w", err)
		}
	}
	rep.Problems = append(rep.Problems, st.claimProblems...)
	if st.ClaimsErr != nil {
		rep.Problems = append(rep.Problems, Problem{Kind: "remote_claims_unread",
			Message: st.ClaimsErr.Error() + "; the claims shown are this repository's copies"})
	}
	if repo.Shallow && start != "" {
		if err := checkShallowLog(repo, start, landed, landedDef); err != nil {
			return nil, err
		}
	}
	// Branches that do not hold the commit that added the plan were made
	// before it: an earlier plan's, under a reused run id. Asked only when
	// the walk cannot show that every branch left the base at that commit
	// (the common case: tasks branch off <run>-main where the plan is).
	if fromPlan && len(st.TaskBranches) > 0 && !allHoldStart(walk, st.TaskBranches, start, landed) {
		tp := branches.TaskPrefix(run)
		holding, err = repo.RefsContaining(ctx, start, "refs/heads/"+tp+"*", "refs/heads/"+tp+"*/**",
			"refs/remotes/*/"+tp+"*", "refs/remotes/*/"+tp+"*/**")
		if err != nil {
			return nil, err
		}
	}
	// Which of the run's commits the default branches hold. Since the run
	// started, that is the walk's commits among the default branches'
	// landed ones (a commit the walk holds is not the base's, nor, the
	// start being the base's, older than the start). Without a start, git
	// is asked.
	if len(walkTips) > 0 && !defIsBase {
		if start != "" {
			notDefault = map[string]bool{}
			held := make(map[string]bool, len(landedDef))
			for _, c := range landedDef {
				held[c.OID] = true
			}
			for _, c := range walk {
				if !held[c.OID] {
					notDefault[c.OID] = true
				}
			}
		} else if notDefault, err = repo.RevSet(ctx, walkTips, append([]string{base.Commit}, defOIDs...)); err != nil {
			return nil, err
		}
	}
	// A local task branch behind its remote copy is an older state of the
	// same work (another machine went on): the copy counts.
	st.behind = map[string]branches.Branch{}
	for i, b := range st.TaskBranches {
		rb, ok := st.RemoteCopies[b.Name]
		if !ok || b.Remote != "" || branches.Relate(walk, b.OID, rb.OID) != "behind" {
			continue
		}
		st.behind[b.Name] = b
		st.TaskBranches[i] = rb
	}
	var v branches.Verdict
	var stashes []stashEntry
	if len(st.TaskBranches) > 0 && !opts.Light {
		dir := repo.CommonDir
		if dir == "" {
			dir = repo.GitDir
		}
		if stashes, err = readStashes(dir, objs); err != nil {
			return nil, fmt.Errorf("read the stash: %w", err)
		}
	}
	stops := st.interruptions(ctx, repo, runWts, saves, stashes, m)
	st.stops = stops
	if p != nil {
		before, err := madeBeforePlan(objs, st.TaskBranches, holding, planRepoPath, start, base.Commit)
		if err != nil {
			return nil, err
		}
		in := branches.Input{Run: run, Plan: p, Names: names, Branches: st.TaskBranches, Bounds: bounds, Walk: walk, Trees: trees, BeforePlan: before,
			Landed: landed, LandedDefault: landedDef, BaseShared: !runOwnBase(base, run), Discarded: discards,
			Interrupted: map[string]string{}}
		for b, s := range stops {
			in.Interrupted[b] = s.why
		}
		if notDefault != nil {
			in.DefaultHeld = map[string]bool{}
			for _, c := range walk {
				if !notDefault[c.OID] {
					in.DefaultHeld[c.OID] = true
				}
			}
		}
		v = branches.Decide(in)
		if err := findSquashes(ctx, repo, v.States, taskChanges, cands, landed, landedDef); err != nil {
			return nil, fmt.Errorf("look for squashed tasks: %w", err)
		}
		st.States = v.States
	} else {
		for _, b := range m.Unknown {
			v.Unknown = append(v.Unknown, branches.UnknownBranch{Branch: b})
		}
	}
	st.Verdict = v
	// A task branch with no work of its own may have been reset past it:
	// its reflog then holds commits nothing else does. Said, never
	// counted: the reflog is a local, expiring record.
	if !opts.Light {
		empty := map[string]string{}
		for _, s := range v.States {
			if s.Status == branches.Empty && s.Branch != nil && s.Branch.Remote == "" {
				empty[s.Branch.Name] = s.Branch.OID
			}
		}
		if len(empty) > 0 {
			lost, err := ReflogLost(ctx, repo, empty)
			if err != nil {
				return nil, fmt.Errorf("read the reflogs of empty task branches: %w", err)
			}
			for _, s := range v.States {
				if s.Branch == nil {
					continue
				}
				if lw, ok := lost[s.Branch.Name]; ok && s.Status == branches.Empty {
					rep.Problems = append(rep.Problems, Problem{Kind: "reflog_work", Task: s.Task.ID, Message: fmt.Sprintf(
						"task %s: branch %s holds no work, but its reflog holds %s nothing else has (newest %s %q): it was reset; to look at them: git log %s; to take them back: git branch -f %s %s",
						s.Task.ID, lw.Branch, ui.Plural(lw.Count, "commit"), Short(lw.Commit), lw.Subject, Short(lw.Commit), ShellQuote(lw.Branch), lw.Commit)})
				}
			}
		}
	}
	if noStart != "" {
		rep.Problems = append(rep.Problems, Problem{Kind: "no_run_start", Message: noStart + "; tasks without a branch stay pending"})
	}
	// The run's own branch starts from the plan: one whose tip lacks a
	// plan that is committed elsewhere was reset, or made before the plan
	// was committed, and what it holds may not be the run's.
	if ps := rep.PlanSource; p != nil && !opts.Light && !fromPlan && planRepoPath != "" && runOwnBase(base, run) &&
		ps != nil && ps.Commit != "" && !ps.Uncommitted && !ps.Given {
		from := ps.Ref
		switch {
		case from != "":
		case ps.Worktree != "":
			from = fmt.Sprintf("the checkout at %s (%s)", ps.Worktree, Short(ps.Commit))
		default:
			from = Short(ps.Commit)
		}
		rep.Problems = append(rep.Problems, Problem{Kind: "base_without_plan", Message: fmt.Sprintf(
			"the base %s does not hold the plan %s, which %s has: it was reset, or made before the plan was committed; where the run started is taken from its branches instead (merge the plan into %s, or pass --base)",
			base.Ref, planRepoPath, from, base.Ref)})
	}
	for _, u := range v.Unknown {
		rep.UnknownBranches = append(rep.UnknownBranches, u.Branch.Name)
	}
	// More commits on the branch of a task already done here change no
	// answer: only the other moves make the view behind.
	done := map[string]bool{}
	for _, s := range v.States {
		if s.Branch != nil && (s.Status == branches.Completed || s.Status == branches.Landed) {
			done[s.Branch.Name] = true
		}
	}
	moved := st.Moved[:0]
	for _, name := range st.Moved {
		if !done[name] {
			moved = append(moved, name)
		}
	}
	st.Moved = moved
	if len(st.Moved) > 0 {
		rep.Problems = append(rep.Problems, Problem{Kind: "remote_moved", Message: st.movedMessage()})
	}
	st.build(runWts, v)
	st.compareRemote(walk)
	if opts.Sizes {
		sizeWorktrees(rep.Worktrees)
	}
	rep.GitProcesses = int(gitcmd.Processes() - started)
	gitcmd.Mark("gathered")
	return st, nil
}

// allHoldStart reports whether the history read shows every branch
// holding start, the commit that added the plan, so that no `for-each-ref
// --contains` is needed. A branch holds it when every way out of the walk
// from its tip (or its tip itself, when the walk does not hold it) is a
// commit that reaches start among landed, the base's commits since start
// (start included): a path from a commit down to start runs through
// commits that are start's descendants, all of which landed holds when the
// commit is the base's. false means "not shown", never "not held".
func allHoldStart(walk []gitcmd.LogEntry, bs []branches.Branch, start string, landed []gitcmd.LogEntry) bool {
	in := make(map[string]bool, len(walk))
	for _, c := range walk {
		in[c.OID] = true
	}
	parents := make(map[string][]string, len(landed))
	for _, c := range landed {
		parents[c.OID] = c.Parents
	}
	// reach[c]: 1 reaches start, 2 does not; found without recursion,
	// landed may hold thousands of commits.
	reach := map[string]int8{start: 1}
	holds := func(oid string) bool {
		if r := reach[oid]; r != 0 {
			return r == 1
		}
		if _, ok := parents[oid]; !ok {
			return false
		}
		type frame struct {
			oid string
			i   int
		}
		stack := []frame{{oid, 0}}
		onStack := map[string]bool{oid: true}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			ps := parents[f.oid]
			if reach[f.oid] == 0 && f.i < len(ps) {
				p := ps[f.i]
				f.i++
				switch r := reach[p]; {
				case r == 1:
					reach[f.oid] = 1
				case r == 2 || onStack[p]:
				default:
					if _, ok := parents[p]; ok {
						stack = append(stack, frame{p, 0})
						onStack[p] = true
					} else {
						reach[p] = 2
					}
				}
				continue
			}
			if reach[f.oid] == 0 {
				reach[f.oid] = 2
			}
			done := f.oid
			delete(onStack, done)
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && reach[done] == 1 {
				reach[stack[len(stack)-1].oid] = 1
			}
		}
		return reach[oid] == 1
	}
	for _, b := range bs {
		if !in[b.OID] && !holds(b.OID) {
			return false
		}
	}
	for _, c := range walk {
		for _, p := range c.Parents {
			if !in[p] && !holds(p) {
				return false
			}
		}
	}
	return true
}

// runOwnBase reports whether the base is the run's own branch <run>-main
// (however it was chosen, from any remote): its commits are the run's, read
// as leniently as its task branches.
func runOwnBase(base BaseRef, run string) bool {
	mb := branches.MainBranch(run)
	return base.Source == "run-main" || base.Ref == mb || strings.HasSuffix(base.Ref, "/"+mb)
}

// parallel runs fns at once and returns the first error in argument order,
// so that which error a user sees does not depend on timing.
func parallel(fns ...func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkShallow refuses to answer when the walk reached a shallow boundary:
// beyond it git pretends there is no history, and counts come out wrong.
func checkShallow(repo *gitcmd.Repo, commits []gitcmd.LogEntry) error {
	boundary := shallowBoundary(repo)
	for _, c := range commits {
		if boundary[c.OID] {
			return inputErr("this clone is shallow and the run's history goes past its boundary at %s: fetch more (git fetch --unshallow; in CI, fetch-depth: 0)", c.OID[:12])
		}
	}
	return nil
}

// shallowBoundary is the set of commits whose parents a shallow clone lacks.
func shallowBoundary(repo *gitcmd.Repo) map[string]bool {
	boundary := map[string]bool{}
	f, err := os.Open(filepath.Join(repo.CommonDir, "shallow"))
	if err != nil {
		return boundary
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		boundary[strings.TrimSpace(sc.Text())] = true
	}
	return boundary
}

// resolveBase applies the base order: --base, taskresume.base, the run's
// own branch <run>-main (local; else a remote's copy: --remote's, origin's,
// or the one remote that has it), then the local main, master, and only
// then origin/HEAD, origin/main, origin/master. Local branches come before
// origin/HEAD so that the answer does not flip with whether a clone has
// origin/HEAD set; the remote's default branch is still searched for landed
// work. None existing is an error, never a silent zero.
//
// With a remote, a local <run>-main that is behind the remote's copy gives
// way to it (the run went on elsewhere), and the report says so.
func resolveBase(ctx context.Context, repo *gitcmd.Repo, opts Options, cfg map[string]string, all map[string]gitcmd.Ref, run, remote string) (BaseRef, []Problem, error) {
	for _, c := range []struct{ rev, source string }{{opts.Base, "flag"}, {cfg["taskresume.base"], "config"}} {
		if c.rev == "" {
			continue
		}
		oid, err := repo.ResolveCommit(ctx, c.rev)
		if err != nil {
			what := "--base"
			if c.source == "config" {
				what = "git config taskresume.base"
			}
			return BaseRef{}, nil, inputErr("base %q (from %s) is not a commit in this repository: pass an existing branch", c.rev, what)
		}
		why := "given with --base"
		if c.source == "config" {
			why = "set by git config taskresume.base"
		}
		return BaseRef{Ref: c.rev, Commit: oid, Source: c.source, Why: why}, nil, nil
	}
	mb := branches.MainBranch(run)
	commit := func(name string) (gitcmd.Ref, bool) {
		r, ok := all[name]
		return r, ok && r.Type == "commit"
	}
	// The remote copies of <run>-main, the chosen remote's first.
	var copies []string
	if remote != "" {
		if _, ok := commit("refs/remotes/" + remote + "/" + mb); ok {
			copies = append(copies, remote+"/"+mb)
		}
	} else {
		var names []string
		for name := range all {
			if r, ok := strings.CutPrefix(name, "refs/remotes/"); ok && strings.HasSuffix(r, "/"+mb) && strings.Count(r, "/") == 1 {
				if _, ok := commit(name); ok {
					names = append(names, r)
				}
			}
		}
		sort.Slice(names, func(i, j int) bool {
			oi, oj := strings.HasPrefix(names[i], "origin/"), strings.HasPrefix(names[j], "origin/")
			if oi != oj {
				return oi
			}
			return names[i] < names[j]
		})
		copies = names
	}
	if r, ok := commit("refs/heads/" + mb); ok {
		base := BaseRef{Ref: mb, Commit: r.OID, Source: "run-main", Why: "the run's own branch"}
		if remote == "" || len(copies) == 0 {
			return base, nil, nil
		}
		rc, _ := commit("refs/remotes/" + copies[0])
		if rc.OID == r.OID {
			return base, nil, nil
		}
		ahead, behind, err := repo.AheadBehind(ctx, r.OID, rc.OID)
		if err != nil {
			return BaseRef{}, nil, err
		}
		switch {
		case ahead == 0:
			return BaseRef{Ref: copies[0], Commit: rc.OID, Source: "run-main", Why: fmt.Sprintf("the run's own branch on %s: the local %s is behind it", remote, mb)},
				[]Problem{{Kind: "base_behind", Message: fmt.Sprintf("local %s is %s behind %s: read %s (update it: git branch -f %s %s, when nothing checks it out)",
					mb, ui.Plural(behind, "commit"), copies[0], copies[0], mb, copies[0])}}, nil
		case behind > 0:
			return base, []Problem{{Kind: "base_diverged", Message: fmt.Sprintf("local %s and %s have diverged (%d and %s of their own): read the local one; work that landed only on %s is not seen",
				mb, copies[0], ahead, ui.Plural(behind, "commit"), copies[0])}}, nil
		}
		return base, nil, nil
	}
	if len(copies) > 0 {
		rc, _ := commit("refs/remotes/" + copies[0])
		return BaseRef{Ref: copies[0], Commit: rc.OID, Source: "run-main", Why: "the run's own branch, from the remote (there is no local " + mb + ")"}, nil, nil
	}
	for _, b := range []string{"main", "master"} {
		if r, ok := commit("refs/heads/" + b); ok {
			return BaseRef{Ref: b, Commit: r.OID, Source: b, Why: "there is no " + mb + " branch"}, nil, nil
		}
	}
	if r, ok := all["refs/remotes/origin/HEAD"]; ok && r.Symref != "" && r.OID != "" {
		return BaseRef{Ref: strings.TrimPrefix(r.Symref, "refs/remotes/"), Commit: r.OID, Source: "origin-head",
			Why: "there is no " + mb + ", main or master branch: origin's default branch"}, nil, nil
	}
	for _, b := range []string{"origin/main", "origin/master"} {
		if r, ok := commit("refs/remotes/" + b); ok {
			return BaseRef{Ref: b, Commit: r.OID, Source: "origin-" + strings.TrimPrefix(b, "origin/"),
				Why: "there is no " + mb + ", main or master branch"}, nil, nil
		}
	}
	return BaseRef{}, nil, inputErr("no base branch for run %s: none of %s, main, master, origin/HEAD, origin/main, origin/master exists (pass --base REF or set git config taskresume.base)", run, mb)
}

// ValidRunName says whether run is a usable run id.
func ValidRunName(run string) bool { return plan.ValidateRunID(run) == nil }

// ValidRun checks a user-given run id; the error is an *InputError.
func ValidRun(run string) (string, error) {
	if err := plan.ValidateRunID(run); err != nil {
		return "", &InputError{err.Error()}
	}
	return run, nil
}

// Opening is a repository being found (git rev-parse), so that the first
// reads need not wait for it.
type Opening struct {
	dir  string
	done chan struct{}
	repo *gitcmd.Repo
	err  error
	// started is the git process count before the opening's own.
	started int64
}

// StartOpen starts finding the repository that dir ("" for the current
// directory) is in.
func StartOpen(ctx context.Context, dir string) *Opening {
	o := &Opening{dir: dir, done: make(chan struct{}), started: gitcmd.Processes()}
	go func() {
		defer close(o.done)
		o.repo, o.err = OpenRepo(ctx, dir)
	}()
	return o
}

// Opened is the Opening of a repository already found.
func Opened(repo *gitcmd.Repo) *Opening {
	o := &Opening{dir: repo.Dir, done: make(chan struct{}), repo: repo, started: gitcmd.Processes()}
	close(o.done)
	return o
}

// Repo waits for the repository.
func (o *Opening) Repo() (*gitcmd.Repo, error) {
	<-o.done
	return o.repo, o.err
}

// early is what runs git before the repository is known: the same
// directory as the repository's own runner, so the same answers.
func (o *Opening) early() *gitcmd.Repo {
	select {
	case <-o.done:
		if o.repo != nil {
			return o.repo
		}
	default:
	}
	return &gitcmd.Repo{Runner: gitcmd.Runner{Dir: o.dir}}
}

// Explain returns err, or the plain reason when the installed git is too
// old (or cannot run): its other errors would mislead. The version is
// asked only once something failed, never on the way to an answer; an
// older git fails at the first report's worktree list (its -z is newer).
func Explain(ctx context.Context, prog string, err error) error {
	var ie *InputError
	if err == nil || errors.As(err, &ie) || ctx.Err() != nil {
		return err
	}
	if verr := gitcmd.CheckVersion(context.Background(), prog); verr != nil {
		return verr
	}
	return err
}

// OpenChecked checks the git version and finds the repository at once; a
// too-old git is reported first, since its other errors would mislead.
func OpenChecked(ctx context.Context, prog string) (*gitcmd.Repo, error) {
	var repo *gitcmd.Repo
	var verr, oerr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); verr = gitcmd.CheckVersion(ctx, prog) }()
	go func() { defer wg.Done(); repo, oerr = OpenRepo(ctx, "") }()
	wg.Wait()
	if verr != nil {
		return nil, verr
	}
	return repo, oerr
}

// unreadMessage says which task branches only a remote has, and the flag
// that reads them.
func (st *State) unreadMessage() string {
	var remotes []string
	seen := map[string]bool{}
	for _, name := range st.Unread {
		r, _, _ := strings.Cut(name, "/"+branches.TaskPrefix(st.opts.Run))
		if !seen[r] {
			seen[r] = true
			remotes = append(remotes, r)
		}
	}
	flags := make([]string, len(remotes))
	for i, r := range remotes {
		flags[i] = "--remote " + r
	}
	return fmt.Sprintf("%d task branch(es) of run %s exist only as remote-tracking branches (%s): they are read only with %s; without it their tasks look not started",
		len(st.Unread), st.opts.Run, FirstFew(st.Unread), strings.Join(flags, " or "))
}

// readRemote reads the remote's claims and where its copy of the run's
// branches stands, and merges the claims with this repository's.
func (st *State) readRemote(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, cfg map[string]string, allRefs map[string]gitcmd.Ref) {
	remote, run := st.Remote, st.opts.Run
	pushes := cfg["remote."+strings.ToLower(remote)+".pushurl"] != ""
	for k := range cfg {
		pushes = pushes || strings.HasSuffix(k, ".pushinsteadof")
	}
	if pushes {
		// Only where the push URL really differs: a pushInsteadOf for
		// other hosts, or a pushurl equal to the url, changes nothing.
		var push, fetch []byte
		err := parallel(
			func() (err error) {
				push, err = repo.Run(ctx, "remote", "get-url", "--push", "--all", "--end-of-options", remote)
				return err
			},
			func() (err error) {
				fetch, err = repo.Run(ctx, "remote", "get-url", "--all", "--end-of-options", remote)
				return err
			},
		)
		if err != nil {
			st.ClaimsErr = fmt.Errorf("read the claims on %s: %s", remote, gitcmd.OneLine(err))
			return
		}
		urls := strings.Fields(string(push))
		if len(urls) != 1 {
			st.ClaimsErr = fmt.Errorf("remote %s pushes to %d URLs: claims need one place to live", remote, len(urls))
			return
		}
		if f := strings.Fields(string(fetch)); len(f) != 1 || f[0] != urls[0] {
			st.ReadFrom = urls[0]
		}
	}
	tp := branches.TaskPrefix(run)
	// The run's branches, and the default branches the landing search
	// reads (origin's): where this repository's copy is behind, a task
	// another machine finished or merged looks not done here.
	heads := []string{"refs/heads/" + tp + "*", "refs/heads/" + branches.MainBranch(run)}
	if remote == "origin" {
		heads = append(heads, "refs/heads/main", "refs/heads/master")
	}
	v, err := claims.ReadRemote(ctx, repo, objs, remote, st.ReadFrom, run, time.Now(), heads...)
	if err != nil {
		st.ClaimsErr = err
		return
	}
	local := st.Claims
	st.Claims = claims.Merge(local, v.Claims, remote)
	st.StaleCopies = claims.StaleCopies(local, v.Claims, remote)
	for _, id := range claims.Conflicts(local, v.Claims, remote) {
		st.claimProblems = append(st.claimProblems, Problem{Kind: "claim_conflict", Task: id, Message: fmt.Sprintf(
			"task %s is claimed twice: by %s in this repository only, and by %s on %s; claims taken without the remote are invisible to other machines (set git config taskresume.remote on every machine); one of them should release it",
			id, local[id].Holder, v.Claims[id].Holder, remote)})
	}
	prefix := "refs/remotes/" + remote + "/"
	// A branch is read from here as the local branch, else as the copy:
	// it is behind when neither is at the remote's commit. A branch the
	// remote deleted is not: the copy is older news (merged, or given up),
	// and a fetch without --prune would not clear it.
	for ref, oid := range v.Heads {
		name := strings.TrimPrefix(ref, "refs/heads/")
		c, copied := allRefs[prefix+name]
		if name == "main" || name == "master" {
			if copied && c.OID != oid {
				st.Moved = append(st.Moved, remote+"/"+name)
			}
			continue
		}
		if (!copied || c.OID != oid) && allRefs[ref].OID != oid {
			st.Moved = append(st.Moved, name)
		}
	}
	sort.Strings(st.Moved)
}

// movedMessage says that the remote-tracking copies are behind the remote.
func (st *State) movedMessage() string {
	return fmt.Sprintf("%s has moved on since the last fetch: %d of the run's branches differ from %s/ here (%s); git fetch %s, then read again",
		st.Remote, len(st.Moved), st.Remote, FirstFew(st.Moved), st.Remote)
}

// HandOutError says why tasks cannot be handed out (mode is --claim or
// --next) or held (--renew, --release) on this reading, or is nil: a claim
// or a schedule must see every claim and every task branch there is.
func (st *State) HandOutError(mode string) error {
	switch {
	case st.ClaimsErr != nil:
		return st.ClaimsErr
	case mode != "--claim" && mode != "--next":
		return nil
	case len(st.Moved) > 0:
		return &InputError{st.movedMessage()}
	case len(st.Unread) > 0:
		return inputErr("%s: %s and the run's other task branches on that remote are not read: pass --remote %s, or git config taskresume.remote",
			mode, st.Unread[0], strings.SplitN(st.Unread[0], "/", 2)[0])
	}
	return nil
}

// ColorSetting is git's colour setting for command ("taskresume",
// "taskclean"): color.<command>, else color.ui; StyleForSetting takes it.
func (st *State) ColorSetting(command string) string {
	return ui.ColorSetting(st.ColorConfig, command)
}

// sizeWorktrees reads what each worktree takes on disk, a few at once (a
// walk is mostly waiting on the file system). A missing, unreadable or
// symbolic-link worktree is not walked.
func sizeWorktrees(wts []*Worktree) {
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, w := range wts {
		if w.Missing || w.Unreadable || w.Symlink || w.Broken {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(w *Worktree) {
			defer func() { <-sem; wg.Done() }()
			w.Bytes, _ = worktree.DiskUsage(w.Path)
		}(w)
	}
	wg.Wait()
}
