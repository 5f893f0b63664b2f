package resume

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	pathpkg "path"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Replan says where the plan was last re-planned: rewritten so that half
// or fewer of the previous version's tasks remain (docs/DESIGN.md, "The
// input"). A re-plan starts a new run under the same id: the
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

// replanVersions and replanBytes bound the plan's versions read for a
// re-plan, newest first: a plan changed more often than that is searched
// in its newest versions, and the report says so.
const (
	replanVersions = 2000
	replanBytes    = 16 << 20
)

// replanSearch is what lastReplan found.
type replanSearch struct {
	at    gitcmd.PathChange
	found bool
	// cut: the versions were not all read (the bounds above); read is how
	// many were.
	cut  bool
	read int
	// versions are the plan's versions with tasks this run's plan went
	// through, newest first (back to the re-plan when one was found):
	// what a renumbering changed.
	versions []*plan.Plan
}

// lastReplan finds the newest re-plan in the plan's changes (newest first,
// as planChanges lists them): the oldest change after a version with tasks
// whose next version with tasks re-plans it, when the plan as it is now
// re-plans every version from there back (a re-plan undone, a botched edit
// put right, leaves the run as it was). Versions without tasks (a draft, a file that does not
// parse) are passed over: they answer nothing. A version that differs from
// one already read only in its check boxes (an orchestrator ticking tasks
// off) is not parsed again.
func lastReplan(objs *gitcmd.Objects, changes []gitcmd.PathChange, path string) (replanSearch, error) {
	if len(changes) < 2 {
		// One version: the plan was added and never changed.
		return replanSearch{read: len(changes)}, nil
	}
	byKey := map[[32]byte]*plan.Plan{}
	readVersion := func(c gitcmd.PathChange) (*plan.Plan, int, error) {
		name := c.Blob
		if name == "" {
			name = c.Commit + ":" + path // a merge: git's log shows no blob
		}
		o, err := objs.Get(name)
		if err != nil || o.Type != "blob" {
			return nil, 0, err
		}
		k := ticksAside(o.Data)
		if p, ok := byKey[k]; ok {
			return p, len(o.Data), nil
		}
		p, _, perr := plan.Parse(path, o.Data)
		if perr != nil {
			p = nil
		}
		byKey[k] = p
		return p, len(o.Data), nil
	}
	// The versions with tasks, newest first, and the change that made each.
	type version struct {
		p  *plan.Plan
		at int
	}
	var vs []version
	read, size, cut := 0, 0, false
	for i := range changes {
		if i >= replanVersions || size >= replanBytes {
			cut = true
			break
		}
		p, n, err := readVersion(changes[i])
		if err != nil {
			return replanSearch{}, err
		}
		read, size = i+1, size+n
		if p != nil && len(p.Tasks()) > 0 {
			vs = append(vs, version{p, i})
		}
	}
	all := make([]*plan.Plan, len(vs))
	for i := range vs {
		all[i] = vs[i].p
	}
	if len(vs) < 2 {
		return replanSearch{cut: cut, read: read, versions: all}, nil
	}
	// A re-plan starts the run the plan now belongs to when the plan now
	// re-plans every version from it back: a re-plan that was undone (a
	// revert, a botched edit put right) returned to the earlier run.
	now := vs[0].p
	replansNow := map[*plan.Plan]bool{}
	allOlder := make([]bool, len(vs)+1)
	allOlder[len(vs)] = true
	for j := len(vs) - 1; j >= 0; j-- {
		r, ok := replansNow[vs[j].p]
		if !ok {
			r = branches.Replans(vs[j].p, now)
			replansNow[vs[j].p] = r
		}
		allOlder[j] = r && allOlder[j+1]
	}
	for k := 1; k < len(vs); k++ {
		if allOlder[k] && branches.Replans(vs[k].p, vs[k-1].p) {
			// The oldest change after the version before the re-plan.
			return replanSearch{at: changes[vs[k].at-1], found: true, read: read, versions: all[:k]}, nil
		}
	}
	return replanSearch{cut: cut, read: read, versions: all}, nil
}

// ticksAside is a digest of a plan's text with its check boxes all
// unticked: two versions with equal digests have the same tasks.
func ticksAside(data []byte) [32]byte {
	h := sha256.New()
	rest := data
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '[')
		if i < 0 || i+2 >= len(rest) {
			h.Write(rest)
			break
		}
		h.Write(rest[:i+1])
		if (rest[i+1] == 'x' || rest[i+1] == 'X') && rest[i+2] == ']' {
			h.Write([]byte{' '})
			rest = rest[i+2:]
		} else {
			rest = rest[i+1:]
		}
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
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
	case g.sameCommitted != "":
		// Committed elsewhere as it is (the base, <run>-main): that
		// commit's version, not an edit of the worktree's HEAD.
		src.commit, working = g.sameCommitted, false
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
	// A plan that is a symbolic link changes where it points to.
	if target, err := g.linkTarget(src.commit, src.path); err != nil {
		return nil, err
	} else if target != "" {
		src.path = target
	}
	// The history of the version read: the base's when it is the same.
	blob, err := g.blobAt(src.commit, src.path)
	if err != nil || blob == "" {
		return nil, err
	}
	if src.path != g.planRepoPath || src.commit != g.base.Commit && blob != baseBlob {
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
	search, err := lastReplan(g.objs, changes, src.path)
	if err != nil {
		return err
	}
	g.st.planVersions = search.versions
	if !search.found {
		switch ps := g.rep.PlanSource; {
		case search.cut:
			g.rep.Replan = &Replan{Why: fmt.Sprintf("the plan %s changed %d times since it was added: only its newest %d versions were searched for a re-plan", src.path, len(changes), search.read)}
		case len(ps.Files) > 1:
			g.rep.Replan = &Replan{Why: fmt.Sprintf("the plan is split into %d files: only the history of %s was searched for a re-plan", len(ps.Files), src.path)}
		}
		return nil
	}
	at := search.at
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
	g.replanPath = src.path
	g.replanned, g.rep.Replan = r, r
	return nil
}

// linkTarget is the path a symbolic link at commit:path points to, inside
// the repository ("" when path is no link, or points outside).
func (g *gathering) linkTarget(commit, path string) (string, error) {
	e, ok, err := entryAt(g.objs, commit, path)
	if err != nil || !ok || e.Mode != "120000" {
		return "", err
	}
	o, err := g.objs.Get(e.OID)
	if err != nil || o.Type != "blob" || strings.HasPrefix(string(o.Data), "/") {
		return "", err
	}
	target := pathpkg.Clean(pathpkg.Join(pathpkg.Dir(path), string(o.Data)))
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", nil
	}
	return target, nil
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

// answering is the landed commits that may answer this plan. After a
// re-plan, that is what holds the re-plan commit: "since the start" as the
// commits its parents do not reach would also take the earlier plan's work
// merged beside a re-plan made on a side branch, or merged after it. A merge
// answers only when what it merged holds the re-plan too: an earlier plan's
// branch merged late brings the earlier plan's work.
func (g *gathering) answering() (landed, landedDef []gitcmd.LogEntry) {
	r := g.replanned
	if r == nil || !r.Found || r.Uncommitted || r.Commit == "" {
		return g.landed, g.landedDef
	}
	holds := holdingCommit(r.Commit, g.landed, g.landedDef)
	keep := func(cs []gitcmd.LogEntry) []gitcmd.LogEntry {
		out := cs[:0:0]
		for _, c := range cs {
			if !holds[c.OID] {
				continue
			}
			if len(c.Parents) > 1 {
				side := false
				for _, p := range c.Parents[1:] {
					side = side || holds[p]
				}
				if !side {
					continue
				}
			}
			out = append(out, c)
		}
		return out
	}
	return keep(g.landed), keep(g.landedDef)
}

// holdingCommit marks the commits of sets that hold commit (it included):
// those from which a line of parents within sets leads to it. A parent
// outside the sets does not hold it: the landed commits are all that the
// re-plan's own parents do not reach, so any commit holding it is among
// them.
func holdingCommit(commit string, sets ...[]gitcmd.LogEntry) map[string]bool {
	parents := map[string][]string{}
	for _, cs := range sets {
		for _, c := range cs {
			parents[c.OID] = c.Parents
		}
	}
	// state: 0 unknown, 1 holds, 2 does not; found without recursion.
	state := map[string]int8{commit: 1}
	for oid := range parents {
		if state[oid] != 0 {
			continue
		}
		type frame struct {
			oid string
			i   int
		}
		stack := []frame{{oid, 0}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			ps := parents[f.oid]
			if state[f.oid] == 0 && f.i < len(ps) {
				p := ps[f.i]
				f.i++
				switch st := state[p]; {
				case st == 1:
					state[f.oid] = 1
				case st == 0:
					if _, in := parents[p]; in {
						stack = append(stack, frame{p, 0})
					} else {
						state[p] = 2
					}
				}
				continue
			}
			if state[f.oid] == 0 {
				state[f.oid] = 2
			}
			done := state[f.oid]
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && done == 1 {
				state[stack[len(stack)-1].oid] = 1
			}
		}
	}
	holds := map[string]bool{}
	for oid, st := range state {
		if st == 1 {
			holds[oid] = true
		}
	}
	return holds
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
