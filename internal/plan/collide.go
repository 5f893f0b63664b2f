package plan

// branchKey is the part of a task's branch name that follows "<run>-task-":
// the dashed id, then "-" and the slug unless the slug is empty, exactly as
// BranchName builds it. Two tasks with equal keys get the same branch in
// every run, so the run id does not need to be known to compare them.
func branchKey(t *Task) string {
	key := DashedID(t.ID)
	if s := Slug(t.Title); s != "" {
		key += "-" + s
	}
	return key
}

// checkBranchNames refuses a plan in which two tasks get the same branch
// name, such as 1.1 "2 Step verify" and 1.1.2 "Step verify" (both
// "<run>-task-1-1-2-step-verify"): the work done on that branch would count
// for both tasks. Only equal names collide; a task whose name merely starts
// with another's ("1-1-2" and "1-1-2-x") keeps a branch of its own. One map
// over the tasks keeps the cost linear in the size of the plan. Each task
// that shares the name of an earlier one is an error.
func (p *parser) checkBranchNames() {
	seen := make(map[string]*Task, p.ntasks)
	for _, t := range p.plan.Tasks() {
		key := branchKey(t)
		first, dup := seen[key]
		if !dup {
			seen[key] = t
			continue
		}
		run := p.plan.RunID
		if run == "" {
			run = "<run>" // the caller takes it from the directory later
		}
		p.path, p.file = t.Path, p.fileOf[t.Path]
		p.errorf(t.Line, "task %s %s gets the same branch name as task %s %s (%s): %s; retitle or renumber one of them",
			t.ID, quote(t.Title), first.ID, quote(first.Title), p.where(first.Path, first.Line), shorten(run+"-task-"+key))
	}
}
