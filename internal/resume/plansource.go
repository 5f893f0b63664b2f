package resume

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// PlanSource says which copy of the plan the report read.
type PlanSource struct {
	// Name is how to pass this copy to --plan: a path, or REV:PATH.
	Name string `json:"name"`
	// Place is where the copy is: a worktree's files, or a commit.
	Place PlanPlace `json:"place"`
	// Worktree is the worktree whose files were read.
	Worktree string `json:"worktree,omitempty"`
	// Ref and Commit name the commit it was read from.
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Uncommitted: the worktree's file differs from its HEAD's.
	Uncommitted bool `json:"uncommitted"`
	// Files are the plan's paths in the repository (several for a plan
	// split into one file per phase).
	Files []string `json:"files"`
	// Given: --plan or git config taskresume.plan named it.
	Given bool `json:"given"`
	// RunID is the other run id the plan names, when --plan-run-id
	// accepted it for this run ("" otherwise: the plan names this run, or
	// none).
	RunID string `json:"run_id,omitempty"`
}

// planResult is what loading the plan found.
type planResult struct {
	plan   *plan.Plan
	source *PlanSource
	warns  []plan.Warning
	// differs are other copies that differ from the one read.
	differs []string
	// looked names the places searched, for a message when none was found.
	looked []string
	// repoPath is the plan's (first) path inside the repository: where
	// the search for landed work starts.
	repoPath string
	// suggest is a --plan value that would read a copy found only on a
	// task branch ("" when there is none).
	suggest string
	// doubt says why the run cannot be complete whatever the plan read
	// says: a copy on a diverged history has tasks it lacks.
	doubt string
	// committed is the committed version an uncommitted copy edits: its
	// worktree HEAD's (nil: none there).
	committed *committedPlan
	// sameCommitted is a commit that holds the working-tree copy read as
	// it is ("" when none does).
	sameCommitted string
	// places are where the plan was looked for (none when it was named):
	// where the hints look for a near run's plan and for run ids.
	places []planfind.Place
	// requires are the version constraints of the plan read and of every
	// other copy found (the ones that differ, the committed version of an
	// edited copy, the run's own plan when --plan named another), each
	// once: a copy cannot be chosen, nor a plan named, to leave out the
	// versions the run allows.
	requires []version.Requirement
}

// addRequires keeps the version constraints of plans among res.requires,
// each once.
func (res *planResult) addRequires(plans ...*plan.Plan) {
	for _, p := range plans {
		if p == nil || p.Requires == nil || slices.ContainsFunc(res.requires, func(r version.Requirement) bool {
			return r.Constraint == p.Requires.Constraint && r.Source == p.Requires.Source
		}) {
			continue
		}
		res.requires = append(res.requires, *p.Requires)
	}
}

// addFound keeps the version constraints of every copy a search found.
func (res *planResult) addFound(found *planfind.Found) {
	if c := found.Copy; c != nil {
		res.addRequires(c.Plan)
		if c.Head != nil {
			res.addRequires(c.Head.Plan)
		}
	}
	for _, d := range found.Differs {
		res.addRequires(d.Plan)
	}
}

// committedPlan is a version of the plan in a commit.
type committedPlan struct {
	plan   *plan.Plan
	commit string
	path   string
}

// planOnTaskBranch finds a copy of the plan on the run's task branches,
// for the message when none was found where plans live. Such a copy is
// never read without being asked for: a task branch holds the plan as it
// was when the task started, and an old plan with fewer tasks would call
// an unfinished run complete.
func planOnTaskBranch(ctx context.Context, repo *gitcmd.Repo, run string, refs map[string]gitcmd.Ref) string {
	var places []planfind.Place
	for name, r := range refs {
		if strings.HasPrefix(name, "refs/heads/"+branches.TaskPrefix(run)) && r.Type == "commit" {
			places = append(places, planfind.Place{Label: strings.TrimPrefix(name, "refs/heads/"), Commit: r.OID})
		}
	}
	sort.Slice(places, func(i, j int) bool { return places[i].Label < places[j].Label })
	found, err := planfind.Find(ctx, repo, nil, run, places)
	if err != nil || found.Copy == nil {
		return ""
	}
	return found.Copy.Name
}

// findPlan reads the plan named by --plan or taskresume.plan, or else looks
// for it where orchestrators leave it.
func findPlan(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, opts Options, cfg map[string]string, refs map[string]gitcmd.Ref, wts []*worktree.Worktree, base BaseRef, worktreeDir string) (*planResult, error) {
	var given *planResult
	var err error
	switch pat := cfg["taskresume.plan"]; {
	case opts.PlanPath != "":
		given, err = givenPlan(ctx, repo, opts, opts.PlanPath, "--plan", opts.Cwd)
	case pat != "":
		given, err = givenPlan(ctx, repo, opts, strings.ReplaceAll(pat, "{run}", opts.Run), "git config taskresume.plan", repo.TopLevel)
	}
	if given != nil || err != nil {
		if err == nil {
			given.addRequires(given.plan)
			given.addFoundElsewhere(ctx, repo, objs, opts.Run, refs, wts, base, worktreeDir)
		}
		return given, err
	}
	places, err := planPlaces(ctx, repo, opts.Run, refs, wts, base, worktreeDir)
	if err != nil {
		return nil, err
	}
	found, err := planfind.Find(ctx, repo, objs, opts.Run, places)
	var fe *planfind.Error
	if errors.As(err, &fe) {
		return nil, &exit.BadInputError{Msg: fe.Msg}
	}
	if err != nil {
		return nil, fmt.Errorf("look for the plan: %w", err)
	}
	res := &planResult{looked: found.Looked, places: places}
	c := found.Copy
	if c == nil {
		res.suggest = planOnTaskBranch(ctx, repo, opts.Run, refs)
		return res, nil
	}
	if c.Err != nil {
		return nil, &exit.BadInputError{Msg: "plan " + c.Err.Error(), Err: c.Err}
	}
	res.plan, res.warns, res.repoPath = c.Plan, c.Warns, c.RepoPaths[0]
	res.sameCommitted = found.SameCommitted
	if h := c.Head; h != nil {
		res.committed = &committedPlan{plan: h.Plan, commit: h.Commit, path: h.RepoPaths[0]}
	}
	res.addFound(found)
	src := &PlanSource{Name: c.Name, Files: c.RepoPaths, Uncommitted: c.Uncommitted, Commit: c.Commit}
	if c.Place.Dir != "" {
		src.Place, src.Worktree = PlanInWorkingTree, c.Place.Dir
	} else {
		src.Place, src.Ref = PlanInCommit, c.Place.Label
	}
	res.source = src
	for _, d := range found.Differs {
		msg := fmt.Sprintf("another copy of the plan differs: %s", d.Name)
		if extra := tasksNotIn(d.Plan, c.Plan); len(extra) > 0 {
			msg += fmt.Sprintf(" (it has task %s, which the copy read has not)", strings.Join(extra, ", "))
		}
		why := found.Why
		if why == "" {
			why = "the newest"
		}
		res.differs = append(res.differs, msg+"; read "+c.Name+": "+why)
		if extra := tasksNotIn(d.Plan, c.Plan); found.Diverged && len(extra) > 0 && res.doubt == "" {
			res.doubt = fmt.Sprintf("the plan's copies diverged and %s has task %s, which the copy read (%s) has not: the run is not complete until the copies agree (merge the plans, or pass --plan)",
				d.Name, strings.Join(extra, ", "), c.Name)
		}
	}
	return res, nil
}

// addFoundElsewhere adds the version constraints of the run's own plan, in
// every copy found where it is looked for, when --plan or taskresume.plan
// named the plan read: naming a plan must not leave out the versions the
// run allows. Nothing found, or a copy that does not parse, adds nothing:
// the plan named is the one read.
func (res *planResult) addFoundElsewhere(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, run string, refs map[string]gitcmd.Ref, wts []*worktree.Worktree, base BaseRef, worktreeDir string) {
	places, err := planPlaces(ctx, repo, run, refs, wts, base, worktreeDir)
	if err != nil {
		return
	}
	if found, err := planfind.Find(ctx, repo, objs, run, places); err == nil && found.Copy != nil && found.Copy.Err == nil {
		res.addFound(found)
	}
}

// planPlaces lists where a run's plan may be, newest-first by nature:
// the main worktree's files, the run's shared worktree's files, the tips of
// <run>-main (local, then each remote's), the base, the main worktree's
// HEAD. The worktree the command runs in is not among them unless it is
// one of those.
func planPlaces(ctx context.Context, repo *gitcmd.Repo, run string, refs map[string]gitcmd.Ref, wts []*worktree.Worktree, base BaseRef, worktreeDir string) ([]planfind.Place, error) {
	var places []planfind.Place
	var main *worktree.Worktree
	if len(wts) > 0 && wts[0].Main {
		main = wts[0]
	}
	mainTop := ""
	if main != nil && !main.Bare {
		mainTop = main.Path
		places = append(places, planfind.Place{Label: ".", Dir: main.Path, Commit: main.HEAD})
	}
	label := func(p string) string {
		if mainTop != "" {
			if r, err := filepath.Rel(mainTop, p); err == nil && !strings.HasPrefix(r, "..") {
				return r
			}
		}
		return p
	}
	shared := branches.MainBranch(run)
	sharedDir := ""
	switch {
	case filepath.IsAbs(worktreeDir):
		sharedDir = canonical(filepath.Join(worktreeDir, shared))
	case mainTop != "":
		sharedDir = canonical(filepath.Join(mainTop, worktreeDir, shared))
	}
	// The directory is told by its identity, one stat a worktree, not by
	// resolving every worktree's path (thousands of worktrees).
	var sharedInfo os.FileInfo
	if sharedDir != "" {
		sharedInfo, _ = os.Stat(sharedDir)
	}
	for _, w := range wts {
		if w.Main || w.Bare || w.Prunable {
			continue
		}
		inDir := sharedDir != "" && filepath.Clean(w.Path) == sharedDir
		if !inDir && sharedInfo != nil {
			fi, err := os.Stat(w.Path)
			inDir = err == nil && os.SameFile(fi, sharedInfo)
		}
		// The plugin leaves its shared worktree on the last sequential
		// task's branch: the directory, not the branch, makes it the run's.
		if w.BranchShort() == shared || inDir {
			places = append(places, planfind.Place{Label: label(w.Path), Dir: w.Path, Commit: w.HEAD})
		}
	}
	if r, ok := refs["refs/heads/"+shared]; ok && r.Type == "commit" {
		places = append(places, planfind.Place{Label: shared, Commit: r.OID})
	}
	var remotes []string
	for name, r := range refs {
		// refs/remotes/<remote>/<run>-main: a remote whose name holds a
		// "/" is never read.
		if rest, ok := strings.CutPrefix(name, "refs/remotes/"); ok && strings.HasSuffix(name, "/"+shared) && strings.Count(rest, "/") == 1 && r.Type == "commit" {
			remotes = append(remotes, name)
		}
	}
	sort.Strings(remotes)
	for _, name := range remotes {
		places = append(places, planfind.Place{Label: strings.TrimPrefix(name, "refs/remotes/"), Commit: refs[name].OID})
	}
	if base.Commit != "" {
		places = append(places, planfind.Place{Label: base.Ref, Commit: base.Commit})
	}
	switch {
	case main != nil && main.HEAD != "":
		l := main.BranchShort()
		if l == "" {
			l = ui.Short(main.HEAD)
		}
		places = append(places, planfind.Place{Label: l, Commit: main.HEAD})
	case repo.Bare || main != nil && main.Bare:
		if oid, err := repo.ResolveCommit(ctx, "HEAD"); err == nil {
			places = append(places, planfind.Place{Label: "HEAD", Commit: oid})
		}
	}
	return places, nil
}

// givenPlan reads the plan the user named: a file (relative to dir), or
// REV:PATH. A plan that names no run is the run of the command line.
func givenPlan(ctx context.Context, repo *gitcmd.Repo, opts Options, spec, from, dir string) (*planResult, error) {
	res := &planResult{source: &PlanSource{Name: spec, Given: true}}
	var data []byte
	var err error
	if rev, path, isRev := splitRevPath(spec, dir); isRev {
		res.repoPath = path
		res.source.Place, res.source.Ref, res.source.Files = PlanInCommit, rev, []string{path}
		if data, err = repo.ReadBlob(ctx, rev, path); err != nil {
			return nil, exit.BadInput("read plan %s (from %s): %v (check the revision and path, e.g. %s-main:specs/%s-<feature>/plan.md)", spec, from, gitcmd.OneLine(err), opts.Run, opts.Run)
		}
		if oid, err := repo.ResolveCommit(ctx, rev); err == nil {
			res.source.Commit = oid
		}
	} else {
		full := spec
		if !filepath.IsAbs(full) && dir != "" {
			full = filepath.Join(dir, spec)
		}
		if repo.TopLevel == "" && !filepath.IsAbs(spec) && from != "--plan" {
			// A bare repository has no files: the pattern names a path in HEAD.
			return givenPlan(ctx, repo, opts, "HEAD:"+filepath.ToSlash(spec), from, dir)
		}
		res.source.Place, res.source.Worktree = PlanInWorkingTree, repo.TopLevel
		if rel, err := filepath.Rel(repo.TopLevel, full); repo.TopLevel != "" && err == nil && !strings.HasPrefix(rel, "..") {
			res.repoPath = filepath.ToSlash(rel)
			res.source.Files = []string{res.repoPath}
		} else {
			res.source.Files = []string{full}
		}
		if data, err = os.ReadFile(full); err != nil {
			return nil, exit.BadInput("read plan %s (from %s): %v", spec, from, unwrapPathErr(err))
		}
	}
	p, warns, err := plan.Parse(spec, data)
	if err != nil {
		return nil, &exit.BadInputError{Msg: "plan " + err.Error(), Err: err}
	}
	path := res.repoPath
	if path == "" {
		path = spec
	}
	owner, line := p.RunID, p.RunIDLine
	if owner == "" && from == "--plan" {
		owner = dirRun(path, opts.Run)
	}
	if err := checkPlanRun(owner, line, spec, from, opts); err != nil {
		return nil, err
	}
	if owner != opts.Run && owner != "" {
		res.source.RunID = owner // accepted by --plan-run-id
	}
	res.plan, res.warns = p, warns
	return res, nil
}

// dirRun is the other run a --plan path's directory names in the
// orchestrators' form (specs/<hex6>-<feature>/plan.md, or specs/<hex6>/
// with plan.md or plan/plan-phase<N>.md), for a plan that names no run
// itself: "" when the path is not laid out so, or its
// directory may hold run's plan. The search would read that file for the
// other run only, so --plan giving it to this one is a plan for another
// id, as if the plan named it.
func dirRun(path, run string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	n := len(parts)
	var dir string
	switch {
	case n >= 3 && parts[n-1] == "plan.md" && parts[n-3] == "specs":
		dir = parts[n-2]
	case n >= 4 && parts[n-2] == "plan" && parts[n-4] == "specs" &&
		strings.HasPrefix(parts[n-1], "plan-phase") && strings.HasSuffix(parts[n-1], ".md"):
		dir = parts[n-3]
	default:
		return ""
	}
	// Only a directory in the orchestrators' form ("a1b2c3-feature")
	// names a run beyond doubt: a plan written by hand in specs/nightly/
	// is given to any run with --plan, as it always was.
	if id := planfind.RunOfDir(dir); id != dir || planfind.HexRun(dir) {
		if !planfind.DirAgrees(dir, run) {
			return id
		}
	}
	return ""
}

// checkPlanRun refuses a named plan of another run (owner: the id the
// plan names, or for --plan the one its specs/ directory names): read for
// this run, its tasks would be matched against branches it never made, and
// a wrong --plan could call an unfinished run complete. --plan-run-id, that
// other id, says the user means it (a run whose plan was written under a
// near id); it must be exactly that id.
func checkPlanRun(owner string, line int, spec, from string, opts Options) error {
	byFlag := from == "--plan"
	where := fmt.Sprintf("%s:%d: plan is for run %q", spec, line, owner)
	names := fmt.Sprintf("plan %s names run %q (line %d)", spec, owner, line)
	if line == 0 { // named by its directory
		where = fmt.Sprintf("%s: plan is for run %q (its directory)", spec, owner)
		names = fmt.Sprintf("plan %s is in run %q's directory", spec, owner)
	}
	switch {
	case byFlag && opts.PlanRunID != "" && owner == "":
		return exit.BadInput("--plan-run-id %s: plan %s names no run id, so it is read for run %s as it is: drop --plan-run-id", opts.PlanRunID, spec, opts.Run)
	case byFlag && opts.PlanRunID != "" && owner != opts.PlanRunID:
		return exit.BadInput("--plan-run-id %s: %s, not %q: pass --plan-run-id %s to read it for run %s", opts.PlanRunID, names, opts.PlanRunID, owner, opts.Run)
	case owner == "" || owner == opts.Run || byFlag && opts.PlanRunID == owner:
		return nil
	case byFlag:
		return exit.BadInput("%s, not %q (pass --plan-run-id %s to read it for run %s all the same, or --plan for the right plan)", where, opts.Run, owner, opts.Run)
	}
	return exit.BadInput("%s, not %q (pass the plan's run id, or --plan for the right plan)", where, opts.Run)
}

// noPlanHint is the one line that says where the plan was looked for and
// what to pass instead.
func noPlanHint(run string, looked []string, st *State) string {
	where := make([]string, 0, len(looked))
	for _, l := range looked {
		if l == "." {
			l = "the main worktree"
		}
		where = append(where, l)
	}
	try := "e.g. --plan specs/" + run + "-<feature>/plan.md"
	switch {
	case st.planSuggest != "":
		try = "a task branch has one: --plan " + st.planSuggest
	case st.MainBranch != nil:
		try = "e.g. --plan " + st.MainBranch.Name + ":specs/" + run + "-<feature>/plan.md"
	}
	return fmt.Sprintf("no plan for run %s: looked for %s in %s; pass --plan PATH or REV:PATH (%s)",
		run, strings.Join(planfind.Patterns(run), ", "), orNothing(strings.Join(where, ", ")), try)
}

func orNothing(s string) string {
	if s == "" {
		return "no worktree or commit (the repository is empty)"
	}
	return s
}

// splitRevPath tells a REV:PATH plan from a file path. A name with a colon
// is a file when such a file exists.
func splitRevPath(spec, cwd string) (rev, path string, ok bool) {
	i := strings.Index(spec, ":")
	if i <= 0 {
		return "", "", false
	}
	full := spec
	if !filepath.IsAbs(full) && cwd != "" {
		full = filepath.Join(cwd, spec)
	}
	if _, err := os.Stat(full); err == nil {
		return "", "", false
	}
	return spec[:i], spec[i+1:], true
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// NoPlan is the one-line reason a run without a plan cannot say what
// remains, with where the plan was looked for and the plans of near run
// ids its branches are named like; "" when the plan was read.
func (st *State) NoPlan() string {
	if st.Plan != nil {
		return ""
	}
	msg := noPlanHint(st.Report.RunID, st.planLooked, st)
	// A refusal is one line: the near plans' hints go into it, or a
	// gate that stops here would never show them.
	for _, n := range st.Report.NearPlans {
		msg += fmt.Sprintf("; %s, the plan of run %s, has a task named like branch %s: if it is this run's, pass %s",
			ui.Display(n.Plan), n.RunID, ui.Display(n.Branches[0]), n.ReadFlags())
	}
	return msg
}

// tasksNotIn lists the tasks of a that b lacks (by id, either separator).
func tasksNotIn(a, b *plan.Plan) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	for _, t := range a.Tasks() {
		if b.Task(t.ID) == nil {
			out = append(out, t.ID)
		}
	}
	return out
}
