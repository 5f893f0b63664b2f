package resume

import (
	"fmt"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Replan says where the plan was last re-planned: rewritten so that half
// or fewer of the previous version's tasks remain (docs/DESIGN.md, "Where
// the run started"). A re-plan starts a new run under the same id: the
// run's start is there, and branches made before it are the earlier
// plan's. In the report only when one was found, or when none could be
// looked for.
type Replan struct {
	// Found: a re-plan was found (false: Why says why none could be
	// looked for).
	Found bool `json:"found"`
	// Commit is the commit that re-planned ("" for an uncommitted copy
	// that re-plans its committed version); Subject its subject.
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
	// Uncommitted: the copy read is an uncommitted re-plan: every branch
	// is the earlier plan's, and nothing landed for this one.
	Uncommitted bool `json:"uncommitted"`
	// BaseEarlier: the base does not hold the re-plan: what landed on it
	// is the earlier plan's.
	BaseEarlier bool   `json:"base_earlier,omitempty"`
	Why         string `json:"why"`
}

// replanVersions bounds the plan's versions read for a re-plan, newest
// first: a plan changed more often than that (an orchestrator ticking
// boxes) is searched in its newest versions.
const replanVersions = 256

// lastReplan finds the newest re-plan in the plan's changes (newest first,
// as planChanges lists them): the oldest change after a version with tasks
// whose next version with tasks re-plans it. Versions without tasks (a
// draft, a file that does not parse) are passed over: they answer nothing.
func lastReplan(objs *gitcmd.Objects, changes []gitcmd.PathChange, path string) (gitcmd.PathChange, bool, error) {
	parsed := map[string]*plan.Plan{}
	read := func(c gitcmd.PathChange) (*plan.Plan, error) {
		name := c.Blob
		if name == "" {
			name = c.Commit + ":" + path // a merge: git's log shows no blob
		}
		if p, ok := parsed[name]; ok {
			return p, nil
		}
		o, err := objs.Get(name)
		if err != nil || o.Type != "blob" {
			return nil, err
		}
		p, _, perr := plan.Parse(path, o.Data)
		if perr != nil {
			p = nil
		}
		parsed[name] = p
		return p, nil
	}
	var newer *plan.Plan
	for i := 0; i < len(changes) && i < replanVersions; i++ {
		p, err := read(changes[i])
		if err != nil {
			return gitcmd.PathChange{}, false, err
		}
		if p == nil || len(p.Tasks()) == 0 {
			continue
		}
		if newer != nil && branches.Replans(p, newer) {
			return changes[i-1], true, nil
		}
		newer = p
	}
	return gitcmd.PathChange{}, false, nil
}

// replanSource is where the last re-plan is looked for: the committed
// version of the copy of the plan read, and its history.
type replanSource struct {
	commit, path string
	// history is the committed version's history read beside the
	// search for the start; nil when it is the base's, which that search
	// reads.
	history chan changesRead
}

// changesRead is a history read in the background.
type changesRead struct {
	changes []gitcmd.PathChange
	err     error
}

// prepareReplan finds which committed version of the plan the copy read
// is, before the run's start is searched: an uncommitted copy that
// re-plans it is said at once; a version other than the base's has its
// history read beside that search (the base's is read by it). nil: no
// re-plan is looked for.
func (g *gathering) prepareReplan() (*replanSource, error) {
	ps := g.rep.PlanSource
	if g.p == nil || ps == nil || g.planRepoPath == "" || g.objs == nil || g.opts.Light {
		return nil, nil
	}
	baseBlob, err := g.blobAt(g.base.Commit, g.planRepoPath)
	if err != nil {
		return nil, err
	}
	src := &replanSource{path: g.planRepoPath}
	var committed *plan.Plan // the version an uncommitted copy edits
	working := ps.Place == PlanInWorkingTree && ps.Commit == ""
	switch {
	case !working:
		src.commit = ps.Commit
	case g.committed != nil:
		src.commit, src.path, committed = g.committed.commit, g.committed.path, g.committed.plan
	case baseBlob != "":
		// A working-tree copy its HEAD lacks (or a file --plan names): the
		// base's is the committed version.
		src.commit = g.base.Commit
	default:
		g.rep.Replan = &Replan{Why: fmt.Sprintf("the plan %s is not committed, so a re-plan cannot be seen: where the run started is taken from its branches", g.planRepoPath)}
		return nil, nil
	}
	if src.commit == "" {
		return nil, nil
	}
	if working && committed == nil {
		if committed, err = g.planAt(src.commit, src.path); err != nil {
			return nil, err
		}
	}
	if working && committed != nil && branches.Replans(committed, g.p) {
		g.replanned = &Replan{Found: true, Uncommitted: true, Why: fmt.Sprintf(
			"the uncommitted plan %s re-plans its committed version (at %s): every branch is the earlier plan's", ps.Name, ui.Short(src.commit))}
		g.rep.Replan = g.replanned
		return nil, nil
	}
	if baseBlob == "" {
		// The start is where the branches meet the base: a history of
		// the plan elsewhere is not read (a process on every report of
		// such a run, for a case that has a problem of its own when the
		// base is the run's).
		g.rep.Replan = &Replan{Why: fmt.Sprintf("the base %s does not hold the plan %s, so a re-plan cannot be seen: where the run started is taken from its branches", g.base.Ref, g.planRepoPath)}
		return nil, nil
	}
	// The history of the version read: the base's when it is the same.
	blob, err := g.blobAt(src.commit, src.path)
	if err != nil || blob == "" {
		return nil, err
	}
	if src.commit != g.base.Commit && (src.path != g.planRepoPath || blob != baseBlob) {
		src.history = make(chan changesRead, 1)
		g.background(func() {
			cs, err := g.repo.PathChanges(g.ctx, src.commit, src.path)
			src.history <- changesRead{cs, err}
		})
	}
	return src, nil
}

// findReplan looks for the last re-plan in the history of the copy of the
// plan read, and moves the run's start there. baseChanges are the plan's
// changes in the base's history (nil when the start is not the commit that
// added the plan there).
func (g *gathering) findReplan(src *replanSource, baseChanges []gitcmd.PathChange) error {
	if src == nil {
		return nil
	}
	changes := baseChanges
	if src.history != nil {
		h := <-src.history
		if h.err != nil {
			return h.err
		}
		changes = h.changes
	}
	at, found, err := lastReplan(g.objs, changes, src.path)
	if err != nil || !found {
		return err
	}
	inBase := false
	for _, c := range baseChanges {
		inBase = inBase || c.Commit == at.Commit
	}
	if !inBase {
		if inBase, err = g.repo.IsAncestor(g.ctx, at.Commit, g.base.Commit); err != nil {
			return err
		}
	}
	r := &Replan{Found: true, Commit: at.Commit, BaseEarlier: !inBase}
	if c, ok, err := g.objs.Commit(at.Commit); err != nil {
		return err
	} else if ok {
		r.Subject = c.Subject
	}
	r.Why = fmt.Sprintf("%s re-planned the run (%q): half or fewer of the tasks before it remain, so the run starts there", ui.Short(at.Commit), r.Subject)
	if r.BaseEarlier {
		r.Why += fmt.Sprintf("; the base %s does not hold it: what landed there is the earlier plan's (pass --base)", g.base.Ref)
	}
	g.start, g.fromPlan, g.noStart = at.Commit, true, ""
	g.replanned, g.rep.Replan = r, r
	return nil
}

// blobAt is the blob at commit:path ("" when there is none).
func (g *gathering) blobAt(commit, path string) (string, error) {
	o, err := g.objs.Get(commit + ":" + path)
	if err != nil || o.Type != "blob" {
		return "", err
	}
	return o.OID, nil
}

// planAt parses the plan at commit:path (nil when there is none, or it
// does not parse).
func (g *gathering) planAt(commit, path string) (*plan.Plan, error) {
	o, err := g.objs.Get(commit + ":" + path)
	if err != nil || o.Type != "blob" {
		return nil, err
	}
	p, _, perr := plan.Parse(path, o.Data)
	if perr != nil {
		return nil, nil
	}
	return p, nil
}

// earlierThanReplan are the task branches the earlier plan left: with an
// uncommitted re-plan, all of them.
func (g *gathering) earlierThanReplan(before map[string]bool) map[string]bool {
	if g.replanned == nil || !g.replanned.Uncommitted {
		return before
	}
	all := map[string]bool{}
	for _, b := range g.st.TaskBranches {
		all[b.Name] = true
	}
	return all
}

// withoutAncestorsOf drops from cs the commits start's parents reach: on a
// base that does not hold the re-plan, the default branches' commits the
// base lacks are not all newer than it.
func withoutAncestorsOf(cs []gitcmd.LogEntry, start string) []gitcmd.LogEntry {
	byOID := make(map[string]*gitcmd.LogEntry, len(cs))
	for i := range cs {
		byOID[cs[i].OID] = &cs[i]
	}
	s, ok := byOID[start]
	if !ok {
		return cs
	}
	reached := map[string]bool{}
	stack := append([]string(nil), s.Parents...)
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e, ok := byOID[c]
		if !ok || reached[c] {
			continue
		}
		reached[c] = true
		stack = append(stack, e.Parents...)
	}
	out := cs[:0:0]
	for _, c := range cs {
		if !reached[c.OID] {
			out = append(out, c)
		}
	}
	return out
}

// earlierMessage says why a branch is the earlier plan's.
func (st *State) earlierMessage(branch string) string {
	r := st.Report.Replan
	switch {
	case r != nil && r.Found && r.Uncommitted:
		return fmt.Sprintf("branch %s is the earlier plan's: the plan read is an uncommitted re-plan of the committed one; it is reported, never counted", branch)
	case r != nil && r.Found:
		return fmt.Sprintf("branch %s is the earlier plan's: it does not hold %s, which re-planned the run (%q); it is reported, never counted", branch, ui.Short(r.Commit), r.Subject)
	}
	return fmt.Sprintf("branch %s is the earlier plan's: it was made before the commit that added the plan (a run id used again); it is reported, never counted", branch)
}
