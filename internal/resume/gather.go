package resume

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

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
//
// Its steps run in this order, each on what the ones before found; the
// reads that need nothing later run in the background from the step that
// can start them, and the reads of one stage run at once.
func GatherOpening(ctx context.Context, o *Opening, opts Options) (*State, error) {
	if err := plan.ValidateRunID(opts.Run); err != nil {
		return nil, &exit.BadInputError{Msg: err.Error()}
	}
	g := newGathering(ctx, o, opts)
	defer g.close()
	steps := []func() error{
		g.readFirst,           // stage A: config, refs and claims, worktrees, the object reader
		g.applyConfig,         // colours, pre-remove hook, worktree folder, remote
		g.chooseRunRemote,     // the remote the run's branches are read from
		g.sortRefs,            // the run's branches, local and remote
		g.chooseBase,          // the base, and <run>-main
		g.collectTips,         // the saves, and the tips the walk starts from
		g.startLogs,           // the default branches' log, the walk, the paths the tips change
		g.readPlan,            // the plan, and which branch is which task's
		g.readHistory,         // stage B: the walk, the run's start and landed work, worktrees, the remote
		g.searchLanded,        // landed changes the tasks' own paths lead to
		g.addClaimProblems,    // what reading the remote's claims found
		g.checkShallowLanding, // a shallow clone that cuts the search short
		g.readHolding,         // which branches hold the commit that added the plan
		g.readDefaultHeld,     // which of the run's commits the default branches hold
		g.takeNewerCopies,     // remote copies ahead of local task branches count instead
		g.findInterruptions,   // attempts stopped mid-way
		g.decide,              // the completion rule
		g.findReflogWork,      // work only a reflog holds
		g.addStartProblems,    // no start, or a base without the plan
		g.finish,              // the report
	}
	if opts.Input {
		// Only what checks the input: up to the plan, without the saves
		// and the walk.
		steps = []func() error{g.readFirst, g.applyConfig, g.chooseRunRemote, g.sortRefs, g.chooseBase, g.readPlan}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return g.st, nil
}

// gathering is one Gather under way: what its steps read and hand on to
// the steps after them.
type gathering struct {
	ctx     context.Context
	o       *Opening
	opts    Options
	run     string
	started int64 // the git process count from before rev-parse
	repo    *gitcmd.Repo
	st      *State
	rep     *Report
	// waits are the reads running in the background, each closed when
	// done: waited for, last started first, before the reader closes,
	// whatever returns.
	waits []chan struct{}

	// Stage A.
	cfg map[string]string
	// cfgRequires is git config taskresume.minVersion, read.
	cfgRequires *version.Requirement
	// planRequires are the constraints of every copy of the plan found.
	planRequires []version.Requirement
	// remotes are the configured remotes, as git spells them, and where
	// each one's branches are.
	remotes remoteSet
	refs    []gitcmd.Ref
	allRefs map[string]gitcmd.Ref
	wts     []*worktree.Worktree
	objs    *gitcmd.Objects
	remote  string

	base     BaseRef
	discards []branches.Discard
	saves    []savedWorktree
	// tips are the run's branch tips; walkTips add the tips a clean
	// deleted (none with Light); bounds hold <run>-main when it is not the
	// base.
	tips, walkTips, bounds []string
	// defOIDs are the default branches' commits other than the base's
	// (none: defIsBase).
	defOIDs   []string
	defIsBase bool
	defLog    func() logged // the default branches' log, read once
	walkCh    chan walked
	guessRes  guess
	guessDone chan struct{} // closed once guessRes is set

	// The plan.
	p            *plan.Plan
	planRepoPath string
	// committed is the committed version an uncommitted copy read edits;
	// sameCommitted a commit that holds that copy as it is.
	committed     *committedPlan
	sameCommitted string
	names         *branches.Names
	m             branches.Match

	// Stage B.
	heads []string // what dates the run's start
	since []string // what landed work is searched in
	near  int      // how far below the base's tip the plan's commit is looked for in-process
	// startKnown closes once the start is known; startRead once the
	// start's own reads through the shared reader are done.
	startKnown, startRead    chan struct{}
	knowStart, startReadDone func()
	walk                     []gitcmd.LogEntry
	trees                    map[string]string
	start, noStart           string
	fromPlan                 bool
	replanned                *Replan // nil: no re-plan moved the start
	replanPath               string  // the file whose history showed it (a link's target)
	landed, landedDef        []gitcmd.LogEntry
	// defHolds, when not nil, says landedDef holds only the commits that
	// can be evidence (readLandedDef): it says which commits the whole
	// list holds.
	defHolds            func(oid string) bool
	guessed             map[string]bool
	taskChanges         gitcmd.Changes
	guessedCands, cands gitcmd.Changes
	walkPlanOnly        map[string][]string  // the walk's commits that only edit the plan
	preStates           []branches.TaskState // ListRow: the verdict before landed work, for the squash search
	planFilesOnce       sync.Once
	planFilesRead       []string
	runWts              []*Worktree

	// After stage B.
	holding    map[string]bool // nil: not asked
	notDefault map[string]bool
}

// logged is a log read in the background.
type logged struct {
	cs  []gitcmd.LogEntry
	err error
}

// walked is the walk of the run's history, read in the background.
type walked struct {
	walk  []gitcmd.LogEntry
	trees map[string]string
	err   error
}

// guess is the paths the task tips change against the base, read in the
// background.
type guess struct {
	paths   map[string]bool
	changes gitcmd.Changes
	err     error
}

func newGathering(ctx context.Context, o *Opening, opts Options) *gathering {
	repo := o.early()
	if opts.Shared != nil {
		repo = repo.WithShared(opts.Shared)
	}
	st := &State{Repo: repo, WorktreeDir: ".worktrees", opts: opts}
	st.Report = &Report{SchemaVersion: SchemaVersion, RunID: opts.Run, Problems: []Problem{},
		Phases: []Phase{}, Worktrees: []*Worktree{}, UnknownBranches: []string{}, StaleWorktrees: []string{}}
	// Counted from before rev-parse, whether or not it has started yet.
	return &gathering{ctx: ctx, o: o, opts: opts, run: opts.Run, started: o.started, repo: repo, st: st, rep: st.Report}
}

// background runs fn beside the steps; close waits for it.
func (g *gathering) background(fn func()) {
	done := make(chan struct{})
	g.waits = append(g.waits, done)
	go func() {
		defer close(done)
		fn()
	}()
}

// close waits for the background reads, then closes the object reader.
func (g *gathering) close() {
	for i := len(g.waits) - 1; i >= 0; i-- {
		<-g.waits[i]
	}
	g.objs.Close()
}

// readFirst is stage A: what depends only on the run id, read at once.
// Remote copies are read for every remote and filtered once the config
// names one, so that nothing here waits for anything else.
func (g *gathering) readFirst() error {
	ctx, repo, st, opts, run := g.ctx, g.repo, g.st, g.opts, g.run
	err := parallel(
		func() (err error) {
			// The plan's copies in commits are read through it once the
			// refs are known; its start-up overlaps this stage.
			if opts.PlanPath == "" {
				g.objs, err = repo.ObjectReader(ctx)
			}
			return err
		},
		func() (err error) {
			// Push URLs too: claims are written where git pushes, and
			// must be read back from there.
			// And git's colour settings for the human report.
			// Every remote's keys: which remotes exist, as git spells
			// their names, and their URLs.
			var entries []gitcmd.ConfigEntry
			if entries, err = repo.ConfigEntries(ctx, `^(taskresume\.|remote\.|url\..*\.pushinsteadof$|checkout\.defaultremote$|color\.ui$|color\.taskresume$|color\.taskclean$|taskclean\.preremove$|taskclean\.preremovetimeout$)`); err != nil {
				return fmt.Errorf("read git config: %w", err)
			}
			g.cfg, g.remotes = gitcmd.ConfigMap(entries), readRemoteSet(entries)
			return nil
		},
		func() (err error) {
			// A glob's "*" stops at "/": "/**" also reads task branches such
			// as <run>-task-2-2-fix/wip.
			tp := branches.TaskPrefix(run)
			pats := []string{"refs/heads/" + tp + "*", "refs/heads/" + tp + "*/**", "refs/heads/" + branches.MainBranch(run),
				"refs/heads/main", "refs/heads/master", "refs/remotes/origin/HEAD",
				"refs/remotes/origin/main", "refs/remotes/origin/master",
				"refs/remotes/*/" + tp + "*", "refs/remotes/*/" + tp + "*/**", "refs/remotes/*/" + branches.MainBranch(run),
				// Remotes whose name holds a "/": never read, but said.
				"refs/remotes/*/*/**/" + tp + "*", "refs/remotes/*/*/**/" + branches.MainBranch(run),
				BackupRoot + run + "/"}
			if opts.Light {
				g.refs, err = repo.Refs(ctx, pats...)
			} else {
				// The claims come with the branches: one process, not two.
				var saved []gitcmd.SavedRef
				g.refs, saved, err = repo.RefsAndBodies(ctx, []string{claims.Root + run + "/"}, pats...)
				st.Claims = claims.FromRefs(saved, run, time.Now())
			}
			if err != nil {
				err = fmt.Errorf("list branches: %w", err)
			}
			return err
		},
		func() (err error) { g.wts, err = worktree.List(ctx, repo); st.AllWorktrees = g.wts; return err },
	)
	// Not a repository: git's reason, not the first read's failure.
	found, oerr := g.o.Repo()
	if oerr != nil {
		return oerr
	}
	if err != nil {
		return err
	}
	if g.opts.Shared != nil {
		found = found.WithShared(g.opts.Shared)
	}
	g.repo = found
	st.Repo = found
	gitcmd.Mark("stage A done")
	return nil
}

// applyConfig takes what git config says: colours, the pre-remove hook,
// the worktree folder, the remote and its timeout.
func (g *gathering) applyConfig() error {
	st, cfg := g.st, g.cfg
	st.ColorConfig = map[string]string{}
	// Each colour key by its whole name (the man pages' test finds the
	// keys the sources name); these are the colour keys read above.
	for _, k := range []string{"color.ui", "color.taskresume", "color.taskclean"} {
		if v, ok := cfg[k]; ok {
			st.ColorConfig[k] = v
		}
	}
	st.PreRemove, st.PreRemoveTimeout = cfg["taskclean.preremove"], cfg["taskclean.preremovetimeout"]
	if d := cfg["taskresume.worktreedir"]; d != "" {
		st.WorktreeDir = filepath.Clean(d)
	}
	var err error
	if g.cfgRequires, err = configRequirement(cfg); err != nil {
		return err
	}
	if st.Schedule, err = scheduleOf(g.opts.Schedule, cfg["taskresume.schedule"]); err != nil {
		return err
	}
	if t := cfg["taskresume.remotetimeout"]; t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return exit.BadInput("git config taskresume.remoteTimeout %q: want a duration such as 30s", t)
		}
		setRemoteTimeout(d)
	}
	return nil
}

// timeoutMu guards the writes of claims.Timeout: the runs of a list read
// one config at once, and only the first of them changes it.
var timeoutMu sync.Mutex

func setRemoteTimeout(d time.Duration) {
	timeoutMu.Lock()
	defer timeoutMu.Unlock()
	if claims.Timeout != d {
		claims.Timeout = d
	}
}

// chooseRunRemote decides which remote's copies of the run's branches are
// read: --remote, else taskresume.remote, else the one remote that holds
// them (docs/DESIGN.md, "Which remote a run is read from"). A remote named
// by the user is read live (its claims, and whether it moved since the
// fetch); one found is read live only when asked (--next hands out work).
func (g *gathering) chooseRunRemote() error {
	st, opts := g.st, g.opts
	st.remotes = g.remotes
	explicit, source, err := chooseRemote(opts.Remote, g.cfg, g.remotes)
	if err != nil {
		return err
	}
	held := runCopies(g.refs, g.remotes, g.run)
	compared, inSync := held, map[string]int{}
	if explicit == "" && len(held) > 1 {
		// Several remotes: compared on what they hold beyond the local
		// branches (a stale mirror of what was pushed from here differs
		// from origin, but reads as origin does).
		local := map[string]string{}
		for _, r := range g.refs {
			if name, ok := strings.CutPrefix(r.Name, "refs/heads/"); ok && isRunBranch(name, g.run) {
				local[name] = r.OID
			}
		}
		for r, copies := range held {
			for b, oid := range copies {
				if local[b] == oid {
					inSync[r]++
				}
			}
		}
		anc := &ancestry{repo: g.repo, ctx: g.ctx, budget: ancestryBudget}
		compared = beyondLocal(held, local, anc.isAncestor)
	}
	c := pickRemote(compared, inSync, g.remotes.readable, explicit, source, g.cfg["checkout.defaultremote"])
	st.remote = c
	g.remote = c.name
	if c.name != "" && (explicit != "" || opts.LiveRemote) {
		st.Remote = c.name
	}
	if len(c.differ) > 0 {
		st.Ambiguous = c.ambiguousMessage(g.run, held)
		g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemRemoteAmbiguous, Message: st.Ambiguous})
	}
	if c.name == "" {
		return nil
	}
	g.rep.RemoteRead = &RemoteRead{Name: c.name, Source: c.source, Live: st.Remote != "" && !opts.Light, Same: c.same}
	if !opts.Light {
		dir := g.repo.CommonDir
		if dir == "" {
			dir = g.repo.GitDir
		}
		tracking := func(b string) string { return g.remotes.trackingRef(c.name, b) }
		g.rep.RemoteRead.FetchedAt = lastFetched(dir, g.repo.GitDir, tracking, held[c.name], g.remotes.urls[c.name])
	}
	return nil
}

// sortRefs sorts the refs read into the run's task branches (local, or
// the remote's where there is no local one), the remote copies of local
// ones, the task branches of remotes not read (and remote-tracking refs no
// fetch updates), and <run>-main.
func (g *gathering) sortRefs() error {
	st, run, remote := g.st, g.run, g.remote
	tp := branches.TaskPrefix(run)
	byName := map[string]gitcmd.Ref{}
	g.allRefs = map[string]gitcmd.Ref{}
	for _, r := range g.refs {
		g.allRefs[r.Name] = r
	}
	local := map[string]bool{}
	var remoteOnly []branches.Branch
	var remoteTask []string
	st.RemoteCopies = map[string]branches.Branch{}
	for _, r := range g.refs {
		rm, branch, tracked, ok := g.remotes.attribute(r.Name)
		if ok && r.Name != "refs/remotes/origin/HEAD" && (rm != remote || !tracked) {
			switch {
			case tracked && strings.HasPrefix(branch, tp):
				remoteTask = append(remoteTask, rm+"/"+branch)
			case !tracked && strings.Contains(r.Name, "/"+tp):
				// No fetch updates it: named by its ref, never read.
				remoteTask = append(remoteTask, r.Name)
			}
			continue // another remote's copy, or no remote read at all
		}
		byName[r.Name] = r
		if r.Type != "commit" {
			continue
		}
		b := branches.Branch{Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime, Symref: r.Symref}
		switch {
		case strings.HasPrefix(r.Name, "refs/heads/"+tp):
			b.Name = strings.TrimPrefix(r.Name, "refs/heads/")
			local[b.Name] = true
			st.TaskBranches = append(st.TaskBranches, b)
		case ok && remote != "" && strings.HasPrefix(branch, tp):
			b.Name, b.Remote = branch, remote
			remoteOnly = append(remoteOnly, b)
		}
	}
	// Task branches only a remote not read has: the report would call
	// their tasks not started.
	read := map[string]bool{}
	for _, b := range remoteOnly {
		read[b.Name] = true
	}
	for _, name := range remoteTask {
		if _, branch, ok := strings.Cut(name, "/"+tp); ok && !local[tp+branch] && !read[tp+branch] {
			st.Unread = append(st.Unread, name)
		}
	}
	if len(st.Unread) > 0 && st.Ambiguous == "" {
		g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemRemoteBranchesUnread, Message: st.unreadMessage()})
	}
	// Local wins; a remote copy of a local branch is kept for comparison.
	for _, b := range remoteOnly {
		if local[b.Name] {
			st.RemoteCopies[b.Name] = b
		} else {
			st.TaskBranches = append(st.TaskBranches, b)
		}
	}
	mb := branches.MainBranch(run)
	for _, ref := range []string{"refs/heads/" + mb, g.remotes.trackingRef(remote, mb)} {
		if r, ok := byName[ref]; ok && ref != "" && st.MainBranch == nil {
			b := branches.Branch{Name: mb, Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime, Symref: r.Symref}
			if !strings.HasPrefix(ref, "refs/heads/") {
				b.Remote = remote
			}
			st.MainBranch = &b
		}
	}
	return nil
}

// chooseBase resolves the base; a base that is <run>-main read from a
// remote without --remote is the run's own branch all the same.
func (g *gathering) chooseBase() error {
	base, baseProblems, err := resolveBase(g.ctx, g.repo, g.opts, g.cfg, g.allRefs, g.run, g.remote, g.remotes)
	if err != nil {
		return err
	}
	g.base = base
	g.rep.Base = base
	g.rep.Problems = append(g.rep.Problems, baseProblems...)
	if st := g.st; st.MainBranch == nil && base.Source == BaseRunMain {
		// The run's branch read from a remote without --remote: it is
		// the run's all the same.
		if r, ok := g.allRefs["refs/remotes/"+base.Ref]; ok {
			st.MainBranch = &branches.Branch{Name: branches.MainBranch(g.run), Ref: r.Name, OID: r.OID, CommitTime: r.CommitTime,
				Remote: strings.TrimSuffix(base.Ref, "/"+branches.MainBranch(g.run))}
		}
	}
	if st := g.st; base.Source != BaseRunMain && st.MainBranch == nil {
		// The run's own branch only where it is never read (a remote with
		// a "/" in its name, refs no fetch updates): the tasks merged into
		// it would look not done, without a word.
		mb := branches.MainBranch(g.run)
		for _, r := range g.refs {
			if strings.HasPrefix(r.Name, "refs/remotes/") && strings.HasSuffix(r.Name, "/"+mb) && !g.remotes.copyOf(r.Name) {
				st.unreadMain = append(st.unreadMain, strings.TrimPrefix(r.Name, "refs/remotes/"))
			}
		}
		if len(st.unreadMain) > 0 {
			g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemRemoteBranchesUnread, Message: st.unreadMainMessage()})
		}
	}
	gitcmd.Mark("base resolved")
	return nil
}

// collectTips reads the run's saves and gathers the tips the walk of the
// run's history starts from.
func (g *gathering) collectTips() (err error) {
	st := g.st
	g.discards, g.saves, err = readSaves(g.ctx, g.repo, g.objs, g.refs, g.run)
	if err != nil {
		return fmt.Errorf("read the run's saves: %w", err)
	}
	seen := map[string]bool{}
	addTip := func(oid string) {
		if oid != "" && !seen[oid] {
			seen[oid] = true
			g.tips = append(g.tips, oid)
		}
	}
	for _, b := range st.TaskBranches {
		addTip(b.OID)
	}
	for _, b := range st.RemoteCopies {
		addTip(b.OID)
	}
	// <run>-main bounds the tasks' work when it is not the base.
	if st.MainBranch != nil && st.MainBranch.OID != g.base.Commit {
		g.bounds = append(g.bounds, st.MainBranch.OID)
		addTip(st.MainBranch.OID)
	}
	sort.Strings(g.tips)
	// The tips a clean deleted are walked too, so that what they hold is
	// known wherever another branch still holds it; they never date the
	// run's start (heads, in readHistory, are the tips without them).
	g.walkTips = append([]string(nil), g.tips...)
	for _, d := range g.discards {
		if !seen[d.OID] {
			seen[d.OID] = true
			g.walkTips = append(g.walkTips, d.OID)
		}
	}
	sort.Strings(g.walkTips)
	if g.opts.Light {
		g.walkTips = nil
	}
	return nil
}

// startLogs starts the reads that need no plan, to run while it is looked
// for: the default branches' commits, the walk, and the paths the task
// tips change.
func (g *gathering) startLogs() error {
	ctx, repo, objs, base, opts := g.ctx, g.repo, g.objs, g.base, g.opts
	// The default branches' commits since the run started: the start is
	// the base's own commit or one of its ancestors (the commit that
	// added the plan, or where the run's branches meet the base), so
	// "since the start, not the base's" is "not the base's". Read now,
	// beside the walk, while the plan is looked for.
	_, g.defOIDs = defaultBranches(g.allRefs, base)
	g.defIsBase = len(g.defOIDs) == 0
	defOIDs := g.defOIDs
	g.defLog = sync.OnceValue(func() logged {
		if opts.Light || g.defIsBase {
			return logged{}
		}
		cs, err := repo.LogRevs(ctx, defOIDs, []string{base.Commit})
		return logged{cs, err}
	})
	if opts.Shared == nil {
		// git's log, started now; from a list's shared walk, read only
		// by a run that has a plan.
		g.background(func() { g.defLog() })
	}
	// The walk needs no plan: it starts now, while the plan is looked for.
	g.walkCh = make(chan walked, 1)
	walkTips := g.walkTips
	g.background(func() {
		w, t, err := repo.LogWalk(ctx, walkTips, []string{base.Commit})
		g.walkCh <- walked{w, t, err}
	})
	// The paths the task tips change against the base, for the squash
	// search, read while the plan is looked for.
	g.guessDone = make(chan struct{})
	// Only from the run's own branch: tasks leave it at its tip, so what a
	// tip changes against it is the tasks' work. Against a shared base
	// that moved on (main), it is also everything the base did since the
	// fork: a wide, slow search. Then the exact paths are waited for.
	if opts.Light || opts.ListRow || !runOwnBase(base, g.run) {
		close(g.guessDone)
	} else {
		tipsNow := append([]branches.Branch(nil), g.st.TaskBranches...)
		g.background(func() {
			gp, ch, err := guessPaths(ctx, repo, objs, base.Commit, tipsNow)
			g.guessRes = guess{gp, ch, err}
			close(g.guessDone)
		})
	}
	return nil
}

// readPlan finds and reads the plan, says what its copies disagree on,
// and matches the task branches to its tasks.
func (g *gathering) readPlan() error {
	st, rep, opts, run := g.st, g.rep, g.opts, g.run
	pr, err := findPlan(g.ctx, g.repo, g.objs, opts, g.cfg, g.allRefs, g.wts, g.base, st.WorktreeDir)
	if err != nil {
		return err
	}
	p := pr.plan
	g.planRequires = pr.requires
	g.p, g.planRepoPath, g.committed, g.sameCommitted = p, pr.repoPath, pr.committed, pr.sameCommitted
	st.planLooked, st.planSuggest = pr.looked, pr.suggest
	if p != nil {
		st.Plan = p
		rep.Plan = &pr.source.Name
		rep.PlanSource = pr.source
	}
	for _, w := range pr.warns {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemPlanWarning, Message: w.String()})
	}
	st.planDoubt = pr.doubt
	if pr.doubt != "" {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemPlanDiverged, Message: pr.doubt})
	}
	for _, d := range pr.differs {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemPlanDiffers, Message: d})
	}
	if p != nil && opts.FromPhase != 0 {
		found := false
		for _, ph := range p.Phases {
			found = found || ph.Number == opts.FromPhase
		}
		if !found {
			return exit.BadInput("--from-phase %d: the plan has no phase %d", opts.FromPhase, opts.FromPhase)
		}
		st.fromPhase = opts.FromPhase
	}

	// Branches only a remote not read holds make the run known: its
	// report says why they are not read, rather than "unknown run".
	if p == nil && len(st.TaskBranches) == 0 && st.MainBranch == nil && len(st.Unread) == 0 && !st.hasRunWorktree(g.wts, run) {
		return &exit.BadInputError{Err: ErrUnknownRun, Msg: fmt.Sprintf("unknown run %q: no branch %s* and %s (check the run id%s)", run, branches.TaskPrefix(run), noPlanHint(run, pr.looked, st),
			didYouMean(nearRuns(g.ctx, g.repo, g.objs, run, pr.places, g.wts)))}
	}
	if p == nil {
		// Branches with no plan of their own: a plan written under a near
		// run id may be theirs.
		rep.NearPlans = findNearPlans(g.ctx, g.repo, g.objs, run, opts.Cwd, pr.places, st.TaskBranches)
	}

	g.setGate()
	gitcmd.Mark("plan found")
	g.names = branches.NewNames(run, p)
	g.m = g.names.Match(st.TaskBranches)
	return nil
}

// readHistory is stage B, at once: one walk of every commit reachable
// from a task tip and not from the base (started in startLogs); the search
// of the base and the default branch for landed work since the run
// started; what each worktree of the run holds; the remote's claims.
func (g *gathering) readHistory() error {
	g.heads = g.startHeads()
	g.since = []string{g.base.Commit}
	if !g.defIsBase {
		g.since = append(g.since, g.defOIDs...)
	}
	g.near = 1 // the tip alone, on a shared base
	if runOwnBase(g.base, g.run) {
		g.near = addedNearLimit
	}
	g.startKnown = make(chan struct{})
	g.knowStart = sync.OnceFunc(func() { close(g.startKnown) })
	// The start's own reads go first through the shared reader: the
	// squash search waits for the start, the tasks' changes do not.
	g.startRead = make(chan struct{})
	g.startReadDone = sync.OnceFunc(func() { close(g.startRead) })
	err := parallel(
		g.readWalk,
		g.searchGuessed,
		g.findStart,
		func() error { g.runWts = g.st.classifyWorktrees(g.ctx, g.wts, g.m, !g.opts.Light); return nil },
		func() error {
			// The remote's claims as they are now: one ls-remote (and a
			// fetch of claim commits this repository has not seen).
			if g.st.Remote != "" && !g.opts.Light {
				// A title alone: ls-remote says nothing of how far it is.
				step := g.opts.Progress.Start("Reading remote "+g.st.Remote, 0)
				g.st.readRemote(g.ctx, g.repo, g.objs, g.cfg, g.allRefs)
				step.Done()
			}
			return nil
		},
	)
	if err != nil {
		return err
	}
	gitcmd.Mark("stage B done")
	return nil
}

// startHeads are the commits that date the run's start: the branches that
// may be its own, and the HEADs of its worktrees. A branch whose name names
// no task (a follow-up fix, an earlier plan's) must not move it back.
func (g *gathering) startHeads() []string {
	if g.opts.Light {
		return nil
	}
	onlyUnknown := map[string]bool{}
	for _, b := range g.m.Unknown {
		onlyUnknown[b.OID] = true
	}
	for _, bs := range g.m.ByTask {
		for _, b := range bs {
			delete(onlyUnknown, b.OID) // a named branch is at that tip too
		}
	}
	var heads []string
	for _, t := range g.tips {
		if !onlyUnknown[t] {
			heads = append(heads, t)
		}
	}
	for _, w := range g.wts {
		if !w.Bare && !w.Main && g.st.belongsToRun(w, g.run) {
			heads = append(heads, w.HEAD)
		}
	}
	return heads
}

// readWalk takes the walk of the run's history, and then reads the
// changes the squash check compares, beside the landing search: which
// branch holds a task's work is known from the walk.
func (g *gathering) readWalk() (err error) {
	w := <-g.walkCh
	if g.walk, g.trees, err = w.walk, w.trees, w.err; err != nil {
		return fmt.Errorf("walk the run's history: %w", err)
	}
	if g.repo.Shallow {
		if err := checkShallow(g.repo, g.walk); err != nil {
			return err
		}
	}
	if g.p == nil || g.opts.Light {
		return nil
	}
	pre := branches.Decide(branches.Input{Run: g.run, Plan: g.p, Names: g.names, Branches: g.st.TaskBranches, Bounds: g.bounds, Walk: g.walk, Trees: g.trees})
	// The reader answers one question at a time: the start's few reads
	// go first. The tips' changes the guess read are the tasks' own where
	// a task's work starts at the base.
	<-g.startRead
	<-g.guessDone
	if g.opts.ListRow {
		// Read only if the squash search is needed (decide).
		g.preStates = pre.States
	} else if g.taskChanges, err = taskChangesOf(g.ctx, g.repo, g.objs, pre.States, g.guessRes.changes); err != nil {
		return fmt.Errorf("look for squashed tasks: %w", err)
	}
	// Which of the walk's commits only edit the plan, while the landing
	// search runs (decide adds the landed ones).
	if g.walkPlanOnly, err = planOnlyCommits(g.ctx, g.repo, g.objs, g.planFiles(),
		branches.Input{Names: g.names, Walk: g.walk, Trees: g.trees}); err != nil {
		return fmt.Errorf("look for commits that only edit the plan: %w", err)
	}
	return nil
}

// searchGuessed searches the landed commits that touch the tasks' paths,
// beside the walk, with the paths the tips change against the base; after
// it, searchLanded searches with the tasks' own, only when the guess
// missed one.
func (g *gathering) searchGuessed() (err error) {
	if g.p == nil || g.opts.Light || g.opts.ListRow {
		return nil
	}
	<-g.guessDone
	if g.guessed, err = g.guessRes.paths, g.guessRes.err; err != nil || g.guessed == nil {
		return err
	}
	<-g.startKnown
	g.guessedCands, err = landedChanges(g.ctx, g.repo, g.since, g.start, g.guessed)
	return err
}

// findStart finds where the run started, then reads what landed on the
// base and the default branches since.
func (g *gathering) findStart() (err error) {
	defer g.knowStart()
	defer g.startReadDone()
	if g.p == nil || g.opts.Light {
		return nil
	}
	// The start itself is searched too ("^start^@"): the commit that
	// added the plan may carry a task's work. A re-plan after it moves it.
	src, err := g.prepareReplan()
	if err != nil {
		return err
	}
	found, err := findRunStart(g.ctx, g.repo, g.objs, g.planRepoPath, g.base.Commit, g.heads, g.near, g.startReadDone)
	g.start, g.noStart, g.fromPlan = found.start, found.why, found.fromPlan
	if err == nil {
		err = g.findReplan(src, found.changes)
	}
	g.knowStart()
	if err != nil || g.start == "" {
		return err
	}
	if r := g.replanned; r != nil && (r.Uncommitted || r.BaseEarlier) {
		// Nothing the base holds is this plan's work; the default
		// branches', only what holds the re-plan (decide).
		d := g.defLog()
		if !r.Uncommitted {
			g.landedDef = d.cs
		}
		return d.err
	}
	err = parallel(
		func() (err error) {
			if g.start == g.base.Commit && g.objs != nil {
				// Only the start itself: read it in-process.
				c, ok, err := g.objs.Commit(g.start)
				if ok {
					g.landed = []gitcmd.LogEntry{c}
				}
				return err
			}
			g.landed, err = g.repo.LogRevs(g.ctx, []string{g.base.Commit}, []string{g.start + "^@"})
			return err
		},
		g.readLandedDef,
	)
	if err == nil && g.defHolds != nil && revertsBySubject(g.landed) {
		// A revert by subject on the base reverts the newest older
		// commit of that subject in the base's list, then in the default
		// branches': any of theirs, which the filter keeps only for the
		// default branches' own reverts.
		err = g.wholeLandedDef()
	}
	return err
}

// revertsBySubject says whether a commit of cs names what it reverts by
// subject alone (branches.LandingFilter's Points).
func revertsBySubject(cs []gitcmd.LogEntry) bool {
	for i := range cs {
		if _, ok := branches.LandingFilter.Points(&cs[i]); ok {
			return true
		}
	}
	return false
}

// readLandedDef reads the default branches' commits since the run
// started. From a list's shared walk, only those that can be evidence
// (branches.LandingFilter): a list would else read each run's distance to
// the default branch's tip, the runs times the history. The verdict reads
// nothing else of them; the squash search, which compares every commit's
// changes, reads the whole list after it (wholeLandedDef).
func (g *gathering) readLandedDef() error {
	// After a re-plan, what answers is what holds it (answering), read
	// along the whole list's parents.
	r := g.replanned
	whole := r != nil && r.Found && !r.Uncommitted && r.Commit != ""
	if g.opts.Shared != nil && !g.opts.Light && !g.defIsBase && !whole {
		if cs, holds, ok := g.repo.LandedSince(g.defOIDs, []string{g.base.Commit}, branches.LandingFilter); ok {
			g.landedDef, g.defHolds = cs, holds
			return nil
		}
	}
	d := g.defLog()
	g.landedDef = d.cs
	return d.err
}

// wholeLandedDef makes landedDef the whole list where readLandedDef kept
// only what can be evidence.
func (g *gathering) wholeLandedDef() (err error) {
	if g.defHolds == nil {
		return nil
	}
	g.landedDef, err = g.repo.LogRevsAgain(g.ctx, g.defOIDs, []string{g.base.Commit})
	g.defHolds = nil
	return err
}

// searchLanded settles the landed changes the squash check compares with:
// the ones the guess found when it covered every path of the tasks' own
// changes, else a search with those paths.
func (g *gathering) searchLanded() (err error) {
	if g.p == nil || g.opts.Light || g.opts.ListRow {
		return nil
	}
	paths, covered := squashPaths(g.taskChanges, g.guessed)
	if covered {
		g.cands = g.guessedCands
	} else if g.cands, err = landedChanges(g.ctx, g.repo, g.since, g.start, paths); err != nil {
		return fmt.Errorf("look for squashed tasks: %w", err)
	}
	return nil
}

// addClaimProblems says what reading the remote's claims found.
func (g *gathering) addClaimProblems() error {
	g.rep.Problems = append(g.rep.Problems, g.st.claimProblems...)
	g.rivalClaimProblems()
	g.oldClaimProblems()
	if g.st.ClaimsErr != nil {
		g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemRemoteClaimsUnread,
			Message: g.st.ClaimsErr.Error() + "; the claims shown are this repository's copies"})
	}
	return nil
}

// checkShallowLanding refuses a search for landed work that a shallow
// clone cut short.
func (g *gathering) checkShallowLanding() error {
	if g.repo.Shallow && g.start != "" {
		return checkShallowLog(g.repo, g.start, g.landed, g.landedDef)
	}
	return nil
}

// readHolding asks which branches hold the commit that added the plan:
// those that do not were made before it, an earlier plan's, under a
// reused run id. Asked only when the walk cannot show that every branch
// left the base at that commit (the common case: tasks branch off
// <run>-main where the plan is).
func (g *gathering) readHolding() (err error) {
	st := g.st
	if !g.fromPlan || len(st.TaskBranches) == 0 || (g.replanned != nil && g.replanned.Uncommitted) || allHoldStart(g.walk, st.TaskBranches, g.start, g.landed) {
		return nil
	}
	tp := branches.TaskPrefix(g.run)
	g.holding, err = g.repo.RefsContaining(g.ctx, g.start, "refs/heads/"+tp+"*", "refs/heads/"+tp+"*/**",
		"refs/remotes/*/"+tp+"*", "refs/remotes/*/"+tp+"*/**")
	return err
}

// readDefaultHeld finds which of the run's commits the default branches
// hold. Since the run started, that is the walk's commits among the
// default branches' landed ones (a commit the walk holds is not the
// base's, nor, the start being the base's, older than the start). Without
// a start, git is asked.
func (g *gathering) readDefaultHeld() (err error) {
	if len(g.walkTips) == 0 || g.defIsBase || g.p == nil {
		// Without a plan, no verdict asks.
		return nil
	}
	if g.start == "" {
		g.notDefault, err = g.repo.RevSet(g.ctx, g.walkTips, append([]string{g.base.Commit}, g.defOIDs...))
		return err
	}
	g.notDefault = map[string]bool{}
	if g.defHolds != nil {
		for _, c := range g.walk {
			if !g.defHolds(c.OID) {
				g.notDefault[c.OID] = true
			}
		}
		return nil
	}
	held := make(map[string]bool, len(g.landedDef))
	for _, c := range g.landedDef {
		held[c.OID] = true
	}
	for _, c := range g.walk {
		if !held[c.OID] {
			g.notDefault[c.OID] = true
		}
	}
	return nil
}

// takeNewerCopies puts the remote copies that are ahead of local task
// branches in their place.
func (g *gathering) takeNewerCopies() error {
	g.st.preferNewerCopies(g.walk)
	return nil
}

// findInterruptions finds the task branches whose last attempt stopped
// mid-way.
func (g *gathering) findInterruptions() (err error) {
	st := g.st
	var stashes []stashEntry
	if len(st.TaskBranches) > 0 && !g.opts.Light {
		dir := g.repo.CommonDir
		if dir == "" {
			dir = g.repo.GitDir
		}
		if stashes, err = readStashes(dir, g.objs); err != nil {
			return fmt.Errorf("read the stash: %w", err)
		}
	}
	st.stops = st.interruptions(g.ctx, g.repo, g.runWts, g.saves, stashes, g.m, g.copyFinder())
	return nil
}

// copyFinder answers, for a task's detached worktree or its save, whether
// it sits on copies of its branch's commits: from the walk and the
// running reader, reading nothing until asked.
func (g *gathering) copyFinder() *copyFinder {
	if g.objs == nil {
		return nil
	}
	tips := map[string]bool{}
	for _, b := range g.st.TaskBranches {
		tips[b.OID] = true
	}
	for _, b := range g.bounds {
		tips[b] = true
	}
	return &copyFinder{ctx: g.ctx, repo: g.repo, objs: g.objs, walk: g.walk, tips: tips,
		commits: map[string]*rawCommit{}, changes: map[string]map[string]string{}, ids: map[string]string{}}
}

// decide applies the completion rule to every task (without a plan, every
// branch is unknown).
func (g *gathering) decide() error {
	st := g.st
	var v branches.Verdict
	if g.p != nil {
		known := []string{g.start, g.base.Commit}
		if g.replanned != nil && g.replanned.BaseEarlier {
			known = known[:1] // the base holds the earlier plan
		}
		planPath := g.planRepoPath
		if g.replanPath != "" {
			planPath = g.replanPath
		}
		before, err := madeBeforePlan(g.objs, st.TaskBranches, g.holding, planPath, known)
		if err != nil {
			return err
		}
		before = g.earlierThanReplan(before)
		landed, landedDef := g.answering()
		in := branches.Input{Run: g.run, Plan: g.p, Names: g.names, Branches: st.TaskBranches, Bounds: g.bounds, Walk: g.walk, Trees: g.trees, BeforePlan: before,
			Landed: landed, LandedDefault: landedDef, BaseShared: !runOwnBase(g.base, g.run), Discarded: g.discards,
			Interrupted: map[string]string{}}
		for b, s := range st.stops {
			in.Interrupted[b] = s.why
		}
		if g.notDefault != nil {
			in.DefaultHeld = map[string]bool{}
			for _, c := range g.walk {
				if !g.notDefault[c.OID] {
					in.DefaultHeld[c.OID] = true
				}
			}
		}
		// Editing the plan is not doing a task: the commits that only
		// edit it, among those the rule could count.
		if !g.opts.Light {
			landedOnly := in
			landedOnly.Walk = nil
			if in.PlanOnly, err = planOnlyCommits(g.ctx, g.repo, g.objs, g.planFiles(), landedOnly); err != nil {
				return fmt.Errorf("look for commits that only edit the plan: %w", err)
			}
			for c, paths := range g.walkPlanOnly {
				if in.PlanOnly == nil {
					in.PlanOnly = map[string][]string{}
				}
				in.PlanOnly[c] = paths
			}
		}
		// Copies of one commit on several task branches (a restack) are
		// one piece of work.
		in.Copies = g.copyFinder().restackCopies(in)
		v = branches.Decide(in)
		if g.opts.ListRow {
			if done, err := g.rowSquashes(v.States); done || err != nil {
				branches.MarkStale(v.States)
				st.States = v.States
				st.Verdict = v
				return err
			}
		}
		if g.defHolds != nil {
			// The squash search orders every landed commit that touches
			// the tasks' paths: the whole list.
			if err := g.wholeLandedDef(); err != nil {
				return err
			}
			landed, landedDef = g.answering()
		}
		if err := findSquashes(g.ctx, g.repo, g.objs, g.walk, v.States, g.taskChanges, g.cands, landed, landedDef, v.Reverted); err != nil {
			return fmt.Errorf("look for squashed tasks: %w", err)
		}
		// Which dependencies landed is known only now.
		branches.MarkStale(v.States)
		st.States = v.States
	} else {
		for _, b := range g.m.Unknown {
			v.Unknown = append(v.Unknown, branches.UnknownBranch{Branch: b})
		}
	}
	st.Verdict = v
	return nil
}

// findReflogWork: a task branch with no work of its own may have been
// reset past it: its reflog then holds commits nothing else does. Said,
// never counted: the reflog is a local, expiring record.
func (g *gathering) findReflogWork() error {
	if g.opts.Light {
		return nil
	}
	states := g.st.Verdict.States
	empty := map[string]string{}
	for _, s := range states {
		if s.Status == branches.Empty && s.Branch != nil && s.Branch.Remote == "" {
			empty[s.Branch.Name] = s.Branch.OID
		}
	}
	if len(empty) == 0 {
		return nil
	}
	lost, err := ReflogLost(g.ctx, g.repo, empty)
	if err != nil {
		return fmt.Errorf("read the reflogs of empty task branches: %w", err)
	}
	for _, s := range states {
		if s.Branch == nil {
			continue
		}
		if lw, ok := lost[s.Branch.Name]; ok && s.Status == branches.Empty {
			g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemReflogWork, Task: s.Task.ID, Message: fmt.Sprintf(
				"task %s: branch %s holds no work, but its reflog holds %s nothing else has (newest %s %q): it was reset; to look at them: git log %s; to take them back: git branch -f %s %s",
				s.Task.ID, lw.Branch, ui.Plural(lw.Count, "commit"), ui.Short(lw.Commit), lw.Subject, ui.Short(lw.Commit), ui.ShellQuote(lw.Branch), lw.Commit)})
		}
	}
	return nil
}

// addStartProblems says when the run's start is unknown, or was not taken
// from the plan where it should have been.
func (g *gathering) addStartProblems() error {
	rep := g.rep
	if g.noStart != "" {
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemNoRunStart, Message: g.noStart + "; tasks without a branch stay pending"})
	}
	// The run's own branch starts from the plan: one whose tip lacks a
	// plan that is committed elsewhere was reset, or made before the plan
	// was committed, and what it holds may not be the run's.
	if ps := rep.PlanSource; g.p != nil && !g.opts.Light && !g.fromPlan && g.planRepoPath != "" && runOwnBase(g.base, g.run) &&
		ps != nil && ps.Commit != "" && !ps.Uncommitted && !ps.Given {
		from := ps.Ref
		switch {
		case from != "":
		case ps.Worktree != "":
			from = fmt.Sprintf("the checkout at %s (%s)", ps.Worktree, ui.Short(ps.Commit))
		default:
			from = ui.Short(ps.Commit)
		}
		rep.Problems = append(rep.Problems, Problem{Kind: ProblemBaseWithoutPlan, Message: fmt.Sprintf(
			"the base %s does not hold the plan %s, which %s has: it was reset, or made before the plan was committed; where the run started is taken from its branches instead (merge the plan into %s, or pass --base)",
			g.base.Ref, g.planRepoPath, from, g.base.Ref)})
	}
	return nil
}

// finish builds the report from what the steps found.
func (g *gathering) finish() error {
	st, rep, v := g.st, g.rep, g.st.Verdict
	for _, u := range v.Unknown {
		rep.UnknownBranches = append(rep.UnknownBranches, u.Branch.Name)
	}
	st.reportMoved(g.ctx, v)
	st.build(g.runWts, v)
	st.compareRemote(g.walk)
	if g.opts.Sizes {
		sizeWorktrees(rep.Worktrees, g.opts.Progress)
	}
	rep.GitProcesses = int(gitcmd.Processes() - g.started)
	gitcmd.Mark("gathered")
	return nil
}

// rowSquashes readies the squash search of a list's row, and says whether
// it is not needed: every task is done without it (it can only say how a
// done task landed), none by a squash that may be taken back. Else the tasks' changes and the landed commits that
// touch their paths are read, as a report reads them.
func (g *gathering) rowSquashes(states []branches.TaskState) (skip bool, err error) {
	skip = true
	for _, s := range states {
		// A landing by a forge's squash that hides a stopped attempt is
		// taken back when the squash does not bear out the task's change
		// (keptBranchSquashes): the task is then interrupted, not done.
		hidden := s.Landed != nil && s.Landed.How == branches.BySquash && s.Leftover != ""
		skip = skip && s.Status.Done() && !hidden
	}
	if skip {
		return true, nil
	}
	if g.taskChanges, err = taskChangesOf(g.ctx, g.repo, g.objs, g.preStates, nil); err != nil {
		return false, fmt.Errorf("look for squashed tasks: %w", err)
	}
	paths, _ := squashPaths(g.taskChanges, nil)
	if g.cands, err = landedChanges(g.ctx, g.repo, g.since, g.start, paths); err != nil {
		return false, fmt.Errorf("look for squashed tasks: %w", err)
	}
	return false, nil
}
