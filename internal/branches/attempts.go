package branches

// discardWork marks what a clean discarded (a deleted task branch, saved)
// as nobody's work (docs/DESIGN.md, "Work the user discarded"): the user
// asked for the task to run again. A branch of the same name that holds
// the saved tip again (--undo) takes it back.
func (d *decision) discardWork() {
	d.discarded = map[int]string{}
	for _, dc := range d.in.Discarded {
		idx, ok := d.g.index[dc.OID]
		if !ok {
			continue
		}
		if d.takenBack(dc, idx) {
			continue
		}
		set := d.discardedAdds(dc, idx)
		own := d.names.Task(dc.Name)
		set.each(func(c int) {
			if t := d.namings[c].Task; t != "" && t != own {
				return
			}
			if d.discarded[c] == "" {
				d.discarded[c] = dc.Name
				d.notWork[c] = true
			}
		})
	}
}

// takenBack says whether a local branch named like the discarded one holds
// its saved tip (the walk's index idx) again. A remote-tracking copy does
// not: the clean deleted the local branch and left the remote's, so the
// copy holding the tip is what was discarded, not an undo.
func (d *decision) takenBack(dc Discard, idx int) bool {
	back := false
	for i, b := range d.bs {
		back = back || b.Name == dc.Name && b.Remote == "" && d.anc[i] != nil && d.anc[i].has(idx)
	}
	return back
}

// discardedAdds is what the deleted branch added (docs/DESIGN.md, "Work the
// user discarded"): not what the run's other branches below its tip hold
// (a stack's parents keep their finished work), nor what a bound below it
// holds. The caller leaves out the commits whose words name another task.
func (d *decision) discardedAdds(dc Discard, idx int) bitset {
	set := d.g.ancestors(idx)
	for i, b := range d.bs {
		if b.Name != dc.Name && d.anc[i] != nil && b.OID != dc.OID && set.has(d.g.index[b.OID]) {
			set.andNot(d.anc[i])
		}
	}
	for _, b := range d.bounds {
		if set.has(b.tip) && d.in.Walk[b.tip].OID != dc.OID {
			set.andNot(b.anc)
		}
	}
	return set
}

// stoppedAttempts finds what interrupted attempts made (docs/DESIGN.md,
// "Attempts that stopped mid-way: interrupted"): the commits an
// interrupted attempt made are no finished work of the task whose attempt
// stopped, on whatever branch they sit: a copy of the branch, or the next
// task's branch made at its tip, holds nothing the attempt did not. An
// attempt is a line of commits: a branch of the same task stacked right
// on the interrupted one's (a retry made at the first branch's tip, a
// third on the second's) continues that attempt, so what the branches
// below it add is the stopped attempt's too, counted on the top branch.
func (d *decision) stoppedAttempts() {
	d.stopTask = map[int]string{}
	d.stopOn = map[int]int{}
	d.stopWhy = map[string]string{}
	d.stopBranch = map[string]string{}
	for i := range d.bs {
		why := d.in.Interrupted[d.bs[i].Name]
		if why == "" || d.task[i] == "" {
			continue
		}
		if d.stopWhy[d.task[i]] == "" {
			d.stopWhy[d.task[i]], d.stopBranch[d.task[i]] = why, d.bs[i].Name
		}
		for _, j := range d.attemptLine(i) {
			if d.own[j] == nil {
				continue
			}
			d.own[j].each(func(c int) {
				if d.stopTask[c] == "" {
					d.stopTask[c] = d.task[i]
					if j != i {
						d.stopOn[c] = i
					}
				}
			})
		}
	}
}

// attemptLine is branch i and the branches of its task it continues: its
// stack parent when that is a branch of the same task and its work starts
// at that branch's tip (no bound between them), that one's the same way,
// and so on down. A retry made beside the first branch (from the base, or
// from another task's branch) continues nothing.
func (d *decision) attemptLine(i int) []int {
	line := []int{i}
	seen := map[int]bool{i: true}
	for j := i; ; {
		p := d.parent[j]
		if p < 0 || seen[p] || d.task[p] != d.task[i] || d.from[j] != d.bs[p].OID {
			return line
		}
		seen[p] = true
		line = append(line, p)
		j = p
	}
}
