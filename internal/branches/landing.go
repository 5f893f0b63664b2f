package branches

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// landings finds, per task, the newest evidence that its work reached the
// base or the default branch since the run started (docs/DESIGN.md, "Step
// 5: the verdict"). A reverted commit is no evidence, nor is anything a
// reverted merge brought in; the tasks it would have landed get a doubt
// naming the revert.
func landings(in Input, names *Names, bs []Branch, task []string) (map[string]*Landing, map[string][]string, map[string]string) {
	s := &landingSearch{
		run:        in.Run,
		names:      names,
		planOnly:   in.PlanOnly,
		byName:     map[string]string{},
		saidRevert: map[string]bool{},
		out:        map[string]*Landing{},
		doubts:     map[string][]string{},
	}
	s.kept = map[string]bool{}
	for i, b := range bs {
		s.byName[b.Name] = task[i]
		s.kept[task[i]] = true
	}
	s.voided = reverted(in.Landed, in.LandedDefault)
	s.scan(in.Landed, in.BaseShared, OnBase)
	s.scan(in.LandedDefault, true, OnDefault)
	for id := range s.out {
		delete(s.doubts, id) // landed again later: the revert no longer matters
	}
	return s.out, s.doubts, s.voided
}

// landingSearch is what the search for landed work keeps across the base's
// commits and the default branch's.
type landingSearch struct {
	run   string
	names *Names
	// planOnly is Input.PlanOnly: commits that only edit the plan.
	planOnly map[string][]string
	// byName maps each branch of the run to its task ("" when unknown).
	byName map[string]string
	// voided maps each landed commit a later one reverts to the revert.
	voided map[string]string
	// saidRevert holds the "task revert" pairs already given a doubt.
	saidRevert map[string]bool
	out        map[string]*Landing
	doubts     map[string][]string
	// kept holds the tasks that have a branch; trees maps the commits
	// of the list being scanned to their trees, built when a squash asks.
	kept  map[string]bool
	trees map[string]string
	cur   []CommitInfo
}

// scan looks for landings in cs (newest first) on ref; shared is true when
// ref is a branch other runs share. The first landing found for a task,
// the newest, stands.
func (s *landingSearch) scan(cs []CommitInfo, shared bool, ref LandingRef) {
	by := broughtBy(cs, nil, s.run)
	s.cur, s.trees = cs, nil
	var index map[string]int
	for i := range cs {
		c := &cs[i]
		id, how, also := s.tasks(c, shared, by[i])
		var brought []int
		if how == ByMerge && len(s.planOnly) > 0 {
			if index == nil {
				index = make(map[string]int, len(cs))
				for j := range cs {
					index[cs[j].OID] = j
				}
			}
			brought = mergeBrought(cs, index, i)
		}
		for _, id := range append([]string{id}, also...) {
			if id == "" || how == ByMerge && s.onlyPlanEdits(cs, brought, id) {
				continue
			}
			if by := s.voided[c.OID]; by != "" {
				// One line per revert: a reverted merge voids the
				// commits it brought in too.
				if !s.saidRevert[id+" "+by] {
					s.saidRevert[id+" "+by] = true
					s.doubts[id] = append(s.doubts[id], fmt.Sprintf("its work landed in %s but was reverted by %s", short(c.OID), short(by)))
				}
				continue
			}
			if s.out[id] == nil {
				s.out[id] = &Landing{How: how, Commit: c.OID, Ref: ref}
			}
		}
	}
}

// nameLanded names a landed commit that is no merge: another run's when
// that run's merge brought it (nameBrought), else by a forge's squash
// format (squash true), else by its words.
func (s *landingSearch) nameLanded(c *CommitInfo, shared bool, by string) (Naming, bool) {
	if by == "" || by == s.run || slices.Contains(c.RunIDs, s.run) {
		if nm, ok := s.names.forgeNaming(c, shared, s.branchTask); ok {
			return nm, true
		}
	}
	return s.names.nameBrought(c, shared, by), false
}

// branchTask is the task of one of the run's branches by a squash title
// read back as its name: the task it was matched to (none when unknown),
// else, for a branch gone, the task its name names, unless that task has
// a branch: then a title naming none of its branches squashed none of
// them (a person's "X1y2z3 task 2 1 notes" reads back as a name too).
func (s *landingSearch) branchTask(name string) string {
	if t, ok := s.byName[name]; ok {
		return t
	}
	if t := s.names.Task(name); !s.kept[t] {
		return t
	}
	return ""
}

// changesNothing says whether landed commit c's tree is its parent's,
// when the parent is among the commits scanned.
func (s *landingSearch) changesNothing(c *CommitInfo) bool {
	if len(c.Parents) != 1 {
		return false
	}
	if s.trees == nil {
		s.trees = make(map[string]string, len(s.cur))
		for i := range s.cur {
			s.trees[s.cur[i].OID] = s.cur[i].Tree
		}
	}
	t := s.trees[c.Parents[0]]
	return t != "" && t == c.Tree
}

// onlyPlanEdits says whether what a merge brought (brought, positions in
// cs) is no work of task id but edits of the plan (and merges): a branch
// that only marked its task in progress lands nothing by being merged.
func (s *landingSearch) onlyPlanEdits(cs []CommitInfo, brought []int, id string) bool {
	edits := false
	for _, j := range brought {
		c := &cs[j]
		if isMerge(c) {
			continue
		}
		paths, ok := s.planOnly[c.OID]
		if !ok {
			return false
		}
		if nm, _ := s.names.planWork(Naming{Task: id}, paths); nm.Task != "" {
			return false // the task's Files name the plan: its work
		}
		edits = true
	}
	return edits
}

// mergeBrought is what the merge at position m of cs brought into it: the
// commits of cs its other parents reach and its first parent does not.
func mergeBrought(cs []CommitInfo, index map[string]int, m int) []int {
	reach := func(from []string, skip map[int]bool) map[int]bool {
		seen := map[int]bool{}
		stack := append([]string(nil), from...)
		for len(stack) > 0 {
			oid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			j, ok := index[oid]
			if !ok || seen[j] || skip[j] {
				continue
			}
			seen[j] = true
			stack = append(stack, cs[j].Parents...)
		}
		return seen
	}
	first := reach(cs[m].Parents[:1], nil)
	var out []int
	for j := range reach(cs[m].Parents[1:], first) {
		out = append(out, j)
	}
	return out
}

// tasks are the tasks landed commit c names, and how: a merge names the
// tasks of the branches its subject names, another commit the tasks its
// words name (docs/DESIGN.md, "Step 2: which task a commit names"). id is
// the first ("" for none), also the others. by is the run whose branch's
// merge brought c ("" for none): another run's makes c that run's.
func (s *landingSearch) tasks(c *CommitInfo, shared bool, by string) (id string, how LandingHow, also []string) {
	if isMerge(c) {
		for _, name := range MergedBranches(s.run, c.Subject) {
			t, ok := s.byName[name]
			if !ok {
				t = s.names.Task(name)
			}
			if t == "" {
				continue
			}
			if id == "" {
				id = t
			} else {
				also = append(also, t)
			}
			how = ByMerge
		}
	} else if nm, squash := s.nameLanded(c, shared, by); nm.Task != "" {
		if paths, ok := s.planOnly[c.OID]; ok {
			// An edit of the plan alone lands no task (but one whose
			// Files name the plan).
			nm, _ = s.names.planWork(nm, paths)
		}
		if squash && nm.How == "squash" && s.changesNothing(c) {
			// A squash of work that undid itself lands nothing by what
			// it lists or its title; its own words or trailers still
			// name the task, as any commit's that changes nothing do.
			nm = Naming{}
		}
		if nm.Task != "" {
			id, how, also = nm.Task, ByCommit, nm.Also
			if squash {
				how = BySquash
			}
		}
	}
	return id, how, also
}

// LandingFilter keeps, of the commits a base or a default branch gained
// since a run started, those landings can read anything from: a list
// reads only these for each run (gitcmd.Repo.LandedSince). Every other
// commit is one parent, no trailer, no list, no revert, and a subject
// that can name no task, no branch and no forge's squash: scan names
// nothing by it, reverted voids nothing that names anything by it, and it
// brings nothing in. A commit it keeps is read with its first parent
// (changesNothing compares their trees), a revert by subject with every
// commit of that subject (the one it reverts is the newest older one).
// A merge wants the whole list: what it brought is read along parents.
var LandingFilter = gitcmd.EvidenceFilter{
	Keep: mayLand,
	Points: func(c *CommitInfo) (string, bool) {
		if c.Reverts != "" {
			return "", false
		}
		return revertedSubject(c.Subject)
	},
	Whole: isMerge,
}

// mayLand says whether landings can read anything from commit c: it
// answers yes to every commit tasks, nameLanded, forgeNaming, Name,
// reverted or broughtBy can read something from (a subject that may name
// a task, a branch made a title, a forge's or git's squash, a revert).
func mayLand(c *CommitInfo) bool {
	if len(c.Parents) != 1 || len(c.RunIDs)+len(c.TaskIDs)+len(c.Listed) > 0 || c.Reverts != "" || c.PickedFrom != "" {
		return true
	}
	s := c.Subject
	if _, ok := revertedSubject(s); ok {
		return true
	}
	// mayNameTask holds titleBranch's " task " too.
	return mayNameTask(s) || strings.Contains(s, " main") || gitcmd.PRSuffix(s) >= 0 ||
		strings.TrimSpace(s) == gitcmd.GitSquashSubject
}
