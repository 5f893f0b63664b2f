package branches

// This file holds the rule that editing the plan is not doing a task
// (docs/DESIGN.md, "Step 4: whose work each commit is"): a commit whose
// whole change is to the run's plan file(s) (Input.PlanOnly) is no task's
// work and lands no task, whatever its words say, except for a task whose
// Files name what it changes (a task whose work is the plan itself).

// plansFiles says whether task id's Files name every one of paths, the
// plan's files a plan-only commit changes: that task may count the
// commit as its work.
func (n *Names) plansFiles(id string, paths []string) bool {
	t := n.TaskByID(id)
	if t == nil || len(paths) == 0 {
		return false
	}
	for _, p := range paths {
		if !t.NamesFile(p) {
			return false
		}
	}
	return true
}

// planWork keeps, of the tasks nm names, those whose Files name paths,
// the plan's files a plan-only commit changes; named is false when nm
// named tasks and none is kept: then the commit is no one's work, and no
// evidence (its words still name no other plan's work).
func (n *Names) planWork(nm Naming, paths []string) (kept Naming, named bool) {
	if nm.Task == "" {
		return nm, true
	}
	var ids []string
	for _, id := range append([]string{nm.Task}, nm.Also...) {
		if n.plansFiles(id, paths) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return Naming{}, false
	}
	nm.Task, nm.Also = ids[0], ids[1:]
	if len(nm.Also) == 0 {
		nm.Also = nil
	}
	return nm, true
}

// planOnlyFor says whether commit c of the walk, credited to task id only
// by the branch that adds it (its words name no task), edits nothing but
// the plan, and task id's Files do not name what it changes: then it is
// not the task's work.
func (d *decision) planOnlyFor(c int, id string) bool {
	paths, ok := d.in.PlanOnly[d.in.Walk[c].OID]
	return ok && !d.names.plansFiles(id, paths)
}
