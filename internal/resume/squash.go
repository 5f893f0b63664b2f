package resume

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// taskChangesOf reads the combined change of every task branch with work
// of its own ("tip from" pairs: the commit tip with from as its parent):
// through the running cat-file for a few, else one diff-tree. states may
// come from the walk alone: which branch holds a task's work does not
// depend on what landed.
func taskChangesOf(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, states []branches.TaskState, known gitcmd.Changes) (gitcmd.Changes, error) {
	var lines []string
	changes := gitcmd.Changes{}
	seen := map[string]bool{}
	for i := range states {
		s := &states[i]
		k := changeKey(s)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		if ch, ok := known[k]; ok {
			changes[k] = ch
			continue
		}
		lines = append(lines, k)
	}
	if len(lines) == 0 {
		return changes, nil
	}
	var read gitcmd.Changes
	var err error
	if objs == nil || len(lines) > inProcessDiffs {
		read, err = repo.DiffChanges(ctx, lines)
	} else {
		read, err = diffInProcess(objs, lines)
	}
	if err != nil {
		return nil, err
	}
	for k, ch := range read {
		changes[k] = ch
	}
	return changes, nil
}

// diffInProcess reads the changes of "<to> <from>" lines through the
// running reader: a few tree reads each, no process to start.
func diffInProcess(objs *gitcmd.Objects, lines []string) (gitcmd.Changes, error) {
	changes := gitcmd.Changes{}
	for _, k := range lines {
		to, from, _ := strings.Cut(k, " ")
		ch, err := objs.DiffTrees(from, to)
		if err != nil {
			return nil, err
		}
		changes[k] = ch
	}
	return changes, nil
}

// changeKey names a task's own change, "<tip> <from>": its branch's tip
// alone does not, since two tasks' work may be on one branch (a task
// stacked on another whose branch was deleted). "" when the task has no
// work of its own on a branch.
func changeKey(s *branches.TaskState) string {
	if s.Branch == nil || s.From == "" || s.OwnCommits == 0 {
		return ""
	}
	return taskTo(s) + " " + s.From
}

// taskTo is the commit a task's work ends at (its branch's tip unless
// another task's work is on top), and its commit time.
func taskTo(s *branches.TaskState) string {
	if s.To != "" {
		return s.To
	}
	return s.Branch.OID
}

func taskToTime(s *branches.TaskState) int64 {
	if s.To != "" {
		return s.ToTime
	}
	return s.Branch.CommitTime.Unix()
}

// guessPaths are the paths the task tips change against the base, read
// before the walk so that the search for landed changes can run beside it.
// Each task's own change almost always touches only these; squashPaths
// says when it does not. The changes read are returned too, keyed as
// changeKey keys a task's (a task whose work starts at the base has its own
// change among them). A few tips are read through the running reader; more
// through one diff-tree process, which runs beside the reader's other work.
func guessPaths(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, base string, tips []branches.Branch) (map[string]bool, gitcmd.Changes, error) {
	if len(tips) == 0 {
		return nil, nil, nil
	}
	var lines []string
	seen := map[string]bool{}
	for _, b := range tips {
		if k := b.OID + " " + base; !seen[k] {
			seen[k] = true
			lines = append(lines, k)
		}
	}
	var changes gitcmd.Changes
	var err error
	if objs != nil && len(lines) <= guessInProcess {
		changes, err = diffInProcess(objs, lines)
	} else {
		changes, err = repo.DiffChanges(ctx, lines)
	}
	if err != nil {
		return nil, nil, err
	}
	paths := map[string]bool{}
	for _, ch := range changes {
		for p := range changedPaths(ch) {
			paths[p] = true
		}
	}
	return paths, changes, nil
}

// guessInProcess is how many tips guessPaths reads through the running
// reader: while the plan is looked for, the reader is busy with the plan's
// copies, and a process beside it is quicker past a few tips.
const guessInProcess = 8

// squashPaths are the paths the task changes touch, and whether all of
// them are among guessed (nil guessed: never).
func squashPaths(changes gitcmd.Changes, guessed map[string]bool) (map[string]bool, bool) {
	paths := map[string]bool{}
	covered := guessed != nil
	for _, ch := range changes {
		for p := range changedPaths(ch) {
			paths[p] = true
			covered = covered && guessed[p]
		}
	}
	return paths, covered
}

// landedChanges reads the whole changes of the commits landed since start
// that touch one of paths (one path-limited log), so that history the
// tasks never touched is not diffed. No paths, or no start: nothing.
func landedChanges(ctx context.Context, repo *gitcmd.Repo, since []string, start string, pathSet map[string]bool) (gitcmd.Changes, error) {
	if len(pathSet) == 0 || start == "" {
		return nil, nil
	}
	var paths []string
	if len(pathSet) <= 1000 { // past that, argv grows large: read every commit
		for p := range pathSet {
			paths = append(paths, p)
		}
		sort.Strings(paths)
	}
	return repo.ChangesSince(ctx, since, start, paths)
}

// inProcessDiffs is how many task changes are read through the running
// cat-file before one diff-tree process is cheaper: each costs a few
// round trips, a process about as much as twenty.
const inProcessDiffs = 20

// findSquashes marks the tasks whose whole change was squashed into one
// commit of the base or the default branches since the run started: the
// commit's change to the tree equals the task's combined change, else their
// stable patch-ids are equal (the change re-applied on a base that moved),
// asked only for pairs that touch the same paths. Per-commit checks such as
// git cherry miss a squash of several commits. Only tasks whose work is on
// a branch are checked.
func findSquashes(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, walk []gitcmd.LogEntry, states []branches.TaskState, changes, cands gitcmd.Changes, landed, landedDef []gitcmd.LogEntry, reverted map[string]string) error {
	keptBranchSquashes(states, changes, cands)
	var tasks []*branches.TaskState
	for i := range states {
		s := &states[i]
		// An interrupted attempt is never landed by a change that merely
		// looks like it: a squash names nothing, and the attempt's
		// leftovers say it did not finish.
		// A task already landed by a merge, or by a commit that names it,
		// keeps that evidence: a squash is only looked for where nothing
		// names the landing.
		// (A squash landing found before this check was named by a
		// forge's squash message.)
		named := s.Landed != nil && (s.Landed.How == branches.ByMerge || s.Status == branches.Landed)
		if changeKey(s) != "" && s.Status != branches.Interrupted && !named && changes[changeKey(s)] != "" {
			tasks = append(tasks, s)
		}
	}
	var order []squashCand
	for _, l := range []struct {
		cs  []gitcmd.LogEntry
		ref branches.LandingRef
	}{{landed, branches.OnBase}, {landedDef, branches.OnDefault}} {
		for k, c := range l.cs {
			// A reverted commit is no evidence: not a squash, nor a copy.
			if cands[c.OID] != "" && reverted[c.OID] == "" {
				order = append(order, squashCand{c.OID, l.ref, c.Time, k})
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	if len(tasks) == 0 {
		return lowerAttemptSquashes(ctx, repo, states, changes, cands, order)
	}
	found := map[*branches.TaskState]squashCand{}
	pairs := map[*branches.TaskState][]squashCand{}
	for _, s := range tasks {
		ch := changes[changeKey(s)]
		if ch == "" {
			continue
		}
		for _, c := range order {
			// A squash is made from the task's work, so after it: an
			// older commit with the same change (another task's, or a
			// teammate's that the task copied) is not the task's landing.
			if c.time < taskToTime(s) {
				continue
			}
			if cands[c.oid] == ch {
				found[s] = c
				break
			}
			if samePaths(cands[c.oid], ch) {
				pairs[s] = append(pairs[s], c)
			}
		}
		if _, ok := found[s]; ok || len(pairs[s]) == 0 {
			delete(pairs, s)
			continue
		}
	}
	// patch-id names each patch by its commit alone: tasks whose work
	// ends at one tip are asked in separate rounds, one per tip a round.
	for len(pairs) > 0 {
		var again bytes.Buffer
		asked := map[string]bool{}
		round := map[*branches.TaskState][]squashCand{}
		for _, s := range tasks {
			cs, ok := pairs[s]
			if !ok || asked[taskTo(s)] {
				continue
			}
			asked[taskTo(s)] = true
			round[s] = cs
			delete(pairs, s)
			again.WriteString(changeKey(s) + "\n")
		}
		for _, cs := range round {
			for _, c := range cs {
				if !asked[c.oid] {
					asked[c.oid] = true
					again.WriteString(c.oid + "\n")
				}
			}
		}
		ids, err := patchIDs(ctx, repo, again.Bytes())
		if err != nil {
			return err
		}
		for s, cs := range round {
			for _, c := range cs {
				if id := ids[taskTo(s)]; id != "" && ids[c.oid] == id {
					found[s] = c
					break
				}
			}
		}
	}
	for s, c := range found {
		s.Landed = &branches.Landing{How: branches.BySquash, Commit: c.oid, Ref: c.ref}
		s.Status = branches.Landed
	}
	var rest []*branches.TaskState
	for _, s := range tasks {
		if _, ok := found[s]; !ok && s.OwnCommits > 1 {
			rest = append(rest, s)
		}
	}
	if err := findRebased(ctx, repo, objs, walk, rest, cands, order); err != nil {
		return err
	}
	return lowerAttemptSquashes(ctx, repo, states, changes, cands, order)
}

// maxRebased bounds the commits of one task that findRebased compares one
// for one: past it, a rebase-merge of the task is not looked for.
const maxRebased = 64

// findRebased marks the tasks whose commits were copied onto the base or
// the default branch one for one (a forge's "Rebase and merge", a
// fast-forward after a rebase), when no subject there names the task:
// each commit of the task's own line that changes something has its own
// landed copy, made no earlier than it, with the same change (else the
// same stable patch-id, asked only for pairs that touch the same paths).
// A squash is one commit; this is several, so only tasks of two commits
// or more are asked (one commit is a squash of itself). The landing is the
// newest copy, and says that the task's commits reached the base. Only
// the line from the task's start to its end is read, through the running
// reader, and patch-id runs once, only when some pair needs it.
func findRebased(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, walk []gitcmd.LogEntry, tasks []*branches.TaskState, cands gitcmd.Changes, order []squashCand) error {
	if len(tasks) == 0 || len(order) < 2 {
		return nil
	}
	byOID := make(map[string]*gitcmd.LogEntry, len(walk))
	for i := range walk {
		byOID[walk[i].OID] = &walk[i]
	}
	// Every task's line first, then their commits' changes in one read:
	// through the running reader, else one diff-tree for all.
	lines := map[*branches.TaskState][]*gitcmd.LogEntry{}
	var keys []string
	for _, s := range tasks {
		if line := ownLine(byOID, taskTo(s), s.From, maxRebased); len(line) >= 2 {
			lines[s] = line
			for _, c := range line {
				keys = append(keys, c.OID+" "+c.Parents[0])
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	var changes gitcmd.Changes
	var err error
	if objs != nil {
		changes, err = diffInProcess(objs, keys)
	} else {
		changes, err = repo.DiffChanges(ctx, keys)
	}
	if err != nil {
		return err
	}
	var wants []*rebaseWant
	for _, s := range tasks {
		if w := rebaseCopies(s, lines[s], changes, cands, order); w != nil {
			wants = append(wants, w)
		}
	}
	// One patch-id round for every pair exact changes could not decide.
	var ask bytes.Buffer
	asked := map[string]bool{}
	for _, w := range wants {
		for j, c := range w.line {
			if w.got[j].oid != "" || len(w.pairs[j]) == 0 {
				continue
			}
			for _, oid := range append([]string{c.OID}, candOIDs(w.pairs[j])...) {
				if !asked[oid] {
					asked[oid] = true
					ask.WriteString(oid + "\n")
				}
			}
		}
	}
	var ids map[string]string
	if ask.Len() > 0 {
		var err error
		if ids, err = patchIDs(ctx, repo, ask.Bytes()); err != nil {
			return err
		}
	}
	for _, w := range wants {
		if newest, ok := w.settle(ids); ok {
			w.s.Landed = &branches.Landing{How: branches.ByCommit, Commit: newest.oid, Ref: newest.ref}
			w.s.Status = branches.Landed
		}
	}
	return nil
}

// rebaseWant is a task whose commits may have landed as copies: per
// commit of its own line (newest first), its change, its copy once found
// by an equal change, and the candidates only patch-id can decide.
type rebaseWant struct {
	s     *branches.TaskState
	line  []*gitcmd.LogEntry
	ch    []string
	got   []squashCand
	pairs [][]squashCand
}

// rebaseCopies matches each commit of task s's own line (its changes
// read in changes) with the landed candidates made no earlier than it;
// nil when the line is too short or some commit has no candidate at all
// (then no patch-id can help).
func rebaseCopies(s *branches.TaskState, line []*gitcmd.LogEntry, changes, cands gitcmd.Changes, order []squashCand) *rebaseWant {
	if len(line) < 2 {
		return nil
	}
	w := &rebaseWant{s: s, line: line, got: make([]squashCand, len(line)), pairs: make([][]squashCand, len(line))}
	for _, c := range line {
		w.ch = append(w.ch, changes[c.OID+" "+c.Parents[0]])
	}
	used := map[string]bool{}
	for j, c := range line {
		if w.ch[j] == "" {
			continue // changes nothing: a rebase drops it
		}
		for _, cand := range order {
			// A copy is made from the commit, so after it.
			if cand.time < c.Time || used[cand.oid] {
				continue
			}
			if cands[cand.oid] == w.ch[j] {
				w.got[j] = cand
				used[cand.oid] = true
				break
			}
			if samePaths(cands[cand.oid], w.ch[j]) {
				w.pairs[j] = append(w.pairs[j], cand)
			}
		}
		if w.got[j].oid == "" && len(w.pairs[j]) == 0 {
			return nil
		}
	}
	return w
}

// settle finishes the matching with the patch-ids asked, each landed
// commit the copy of one commit at most; ok when every commit that
// changes something has its copy, newest the newest of them.
func (w *rebaseWant) settle(ids map[string]string) (newest squashCand, ok bool) {
	used := map[string]bool{}
	for _, g := range w.got {
		if g.oid != "" {
			used[g.oid] = true
		}
	}
	for j := range w.line {
		if w.ch[j] == "" {
			continue
		}
		if w.got[j].oid == "" {
			id := ids[w.line[j].OID]
			for _, cand := range w.pairs[j] {
				if id != "" && ids[cand.oid] == id && !used[cand.oid] {
					w.got[j] = cand
					used[cand.oid] = true
					break
				}
			}
		}
		if w.got[j].oid == "" {
			return squashCand{}, false
		}
		if newest.oid == "" || w.got[j].time > newest.time {
			newest = w.got[j]
		}
	}
	// A rebase-merge lands the copies one after the other, in the task's
	// order: copies found apart (a teammate's commit that happens to make
	// the same change as a commit of the task that never landed) are not
	// one landing.
	prev := squashCand{pos: -1}
	for j := range w.line {
		if w.ch[j] == "" {
			continue
		}
		g := w.got[j]
		if prev.pos >= 0 && (g.ref != prev.ref || g.pos != prev.pos+1) {
			return squashCand{}, false
		}
		prev = g
	}
	return newest, newest.oid != ""
}

// ownLine is the line of first parents from to down to from, newest
// first; nil when it holds a merge, leaves the walk, or is longer than max.
func ownLine(byOID map[string]*gitcmd.LogEntry, to, from string, max int) []*gitcmd.LogEntry {
	var line []*gitcmd.LogEntry
	for at := to; at != from; {
		c := byOID[at]
		if c == nil || len(c.Parents) != 1 || len(line) == max {
			return nil
		}
		line = append(line, c)
		at = c.Parents[0]
	}
	return line
}

func candOIDs(cs []squashCand) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.oid
	}
	return out
}

// keptBranchSquashes: a forge's squash message names a task by its words
// (a title made from a branch name, a listed subject), which the squash's
// own change does not always bear out: a listed line may be a bullet in
// a squashed commit's body, or the squashed branch may have held another
// task's work. While the task's branch is kept, its own change says what
// its work was: the squash lands the task only when it changes every path
// that change does; else the task is counted on its branch, as before.
func keptBranchSquashes(states []branches.TaskState, changes, cands gitcmd.Changes) {
	for i := range states {
		s := &states[i]
		if s.Status != branches.Landed || s.Landed == nil || s.Landed.How != branches.BySquash || changeKey(s) == "" {
			continue
		}
		own := changes[changeKey(s)]
		if own == "" {
			continue
		}
		got := changedPaths(cands[s.Landed.Commit])
		for p := range changedPaths(own) {
			if !got[p] {
				s.Landed, s.Status = nil, branches.Completed
				if s.Leftover != "" {
					// The landing was hiding what a stopped attempt
					// left: without it, the attempt says not done
					// (the lesser harm where a finished branch may
					// stand beside it too).
					s.Status, s.Interrupted, s.Leftover = branches.Interrupted, s.Leftover, ""
				}
				break
			}
		}
	}
}

// lowerAttemptSquashes: a task interrupted on a retry that went on from its
// earlier branch (one attempt, a line of commits) whose earlier branch's
// whole change landed as a squash made after that branch's last commit has
// landed: landed wins, as it does for a merge of the earlier branch, and the
// stopped retry is a leftover. Only the exact change counts here (no
// patch-id), and the changes are read only for such tasks: one diff-tree
// when there are any.
func lowerAttemptSquashes(ctx context.Context, repo *gitcmd.Repo, states []branches.TaskState, changes, cands gitcmd.Changes, order []squashCand) error {
	type lower struct {
		s   *branches.TaskState
		key string
		at  int64
	}
	var lowers []lower
	var missing []string
	for i := range states {
		s := &states[i]
		if s.Status != branches.Interrupted || s.From == "" || s.Landed != nil {
			continue
		}
		for _, d := range s.Duplicates {
			k := d.OID + " " + s.From
			lowers = append(lowers, lower{s, k, d.CommitTime.Unix()})
			if _, ok := changes[k]; !ok {
				missing = append(missing, k)
			}
		}
	}
	if len(lowers) == 0 || len(order) == 0 {
		return nil
	}
	if len(missing) > 0 {
		read, err := repo.DiffChanges(ctx, missing)
		if err != nil {
			return err
		}
		for k, ch := range read {
			changes[k] = ch
		}
	}
	for _, l := range lowers {
		ch := changes[l.key]
		if ch == "" || l.s.Status != branches.Interrupted {
			continue
		}
		for _, c := range order {
			if c.time >= l.at && cands[c.oid] == ch {
				l.s.Landed = &branches.Landing{How: branches.BySquash, Commit: c.oid, Ref: c.ref}
				l.s.Status = branches.Landed
				l.s.Leftover = l.s.Interrupted
				break
			}
		}
	}
	return nil
}

// squashCand is a landed commit a squash may be: its change is among the
// candidates.
type squashCand struct {
	oid  string
	ref  branches.LandingRef
	time int64
	// pos is its place in the landed log it was read from (newest
	// first): a rebase-merge's copies are consecutive there.
	pos int
}

// samePaths reports whether two change lists touch the same paths.
func samePaths(a, b string) bool {
	pa, pb := changedPaths(a), changedPaths(b)
	if len(pa) == 0 || len(pa) != len(pb) {
		return false
	}
	for p := range pa {
		if !pb[p] {
			return false
		}
	}
	return true
}

// changedPaths are the paths of a change list ("newmode newblob path"
// lines, see gitcmd.Changes).
func changedPaths(ch string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(ch, "\n") {
		if f := strings.SplitN(l, " ", 3); len(f) == 3 {
			m[f[2]] = true
		}
	}
	return m
}

// patchIDs returns the stable patch-id of each record of the diff-tree
// input, keyed by the first id of its line.
func patchIDs(ctx context.Context, repo *gitcmd.Repo, in []byte) (map[string]string, error) {
	diff, err := repo.RunInput(ctx, in, "diff-tree", "-r", "-p", "--no-renames", "--stdin")
	if err != nil {
		return nil, err
	}
	out, err := repo.RunInput(ctx, diff, "patch-id", "--stable")
	if err != nil {
		return nil, err
	}
	res := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			res[f[1]] = f[0]
		}
	}
	return res, nil
}
