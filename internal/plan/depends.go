package plan

import (
	"sort"
	"strings"
)

// This file decides which dependencies scheduling honours. The commands
// run a plan phase by phase; a dependency that order cannot honour (on a
// later phase, on a later task of the task's own sequential phase, on the
// task itself, or in a cycle) would make a task wait forever, so it is a
// warning at the line that names it and is ignored, as a dependency on an
// id the plan lacks is. A dependency on a task of the same parallel phase
// is honoured (the task waits inside the phase) and warned, since the
// phase's tasks were meant to start together.

// orderDependencies fills each task's Needs and warns about the
// dependencies it leaves out or that change when a task starts.
func (p *parser) orderDependencies() {
	phaseAt := map[*Phase]int{}
	for i, ph := range p.plan.Phases {
		phaseAt[ph] = i
	}
	taskAt := map[*Task]int{}
	for _, ph := range p.plan.Phases {
		for i, t := range ph.Tasks {
			taskAt[t] = i
		}
	}
	type edge struct {
		d        dependency
		from, to *Task // from depends on to
	}
	var kept []edge
	seen := map[[2]*Task]bool{}
	for _, d := range p.deps {
		t, dt := d.task, p.tasks[CanonicalID(d.id)]
		if t == nil || dt == nil || t.Phase == nil || dt.Phase == nil || seen[[2]*Task{t, dt}] {
			continue // an unknown id is warned above; a repeat is said once
		}
		seen[[2]*Task{t, dt}] = true
		p.path, p.file = d.path, p.fileOf[d.path]
		tp, dp := phaseAt[t.Phase], phaseAt[dt.Phase]
		switch {
		case dt == t:
			p.warnf(d.line, "dependency %s of task %s is the task itself: ignored for scheduling", d.id, t.ID)
		case dp > tp:
			p.warnf(d.line, "dependency %s of task %s is a task of a later phase (%d): phase order cannot honour it; ignored for scheduling", d.id, t.ID, dt.Phase.Number)
		case dp == tp && t.Phase.Mode != Parallel && taskAt[dt] > taskAt[t]:
			p.warnf(d.line, "dependency %s of task %s is a later task of sequential phase %d: phase order cannot honour it; ignored for scheduling", d.id, t.ID, t.Phase.Number)
		default:
			kept = append(kept, edge{d, t, dt})
		}
	}
	// Only dependencies inside one parallel phase can close a cycle: every
	// other kept one points to an earlier task in plan order.
	pairs := make([][2]*Task, len(kept))
	for i, e := range kept {
		pairs[i] = [2]*Task{e.from, e.to}
	}
	cyc := cycles(pairs)
	for _, e := range kept {
		if c := cyc[e.from]; c != nil && cyc[e.to] == c {
			p.path, p.file = e.d.path, p.fileOf[e.d.path]
			p.warnf(e.d.line, "dependency %s of task %s is in a cycle of tasks %s: ignored for scheduling", e.d.id, e.from.ID, strings.Join(c.ids, ", "))
			continue
		}
		if e.from.Phase == e.to.Phase && e.from.Phase.Mode == Parallel {
			p.path, p.file = e.d.path, p.fileOf[e.d.path]
			p.warnf(e.d.line, "dependency %s of task %s is a task of the same parallel phase %d: %s waits for it rather than start with the phase", e.d.id, e.from.ID, e.from.Phase.Number, e.from.ID)
		}
		e.from.Needs = append(e.from.Needs, e.to)
	}
}

// cycle is one strongly connected set of tasks (more than one task).
type cycle struct{ ids []string }

// cycles finds the tasks that lie on a cycle of the edges, each a task
// and the one it depends on (Tarjan's strongly connected components), each
// mapped to its component. Tasks are visited in the edges' order, so the
// result is the same on every run.
func cycles(edges [][2]*Task) map[*Task]*cycle {
	out := map[*Task][]*Task{}
	var order []*Task
	add := func(t *Task) {
		if _, ok := out[t]; !ok {
			out[t] = nil
			order = append(order, t)
		}
	}
	for _, e := range edges {
		from, to := e[0], e[1]
		add(from)
		add(to)
		out[from] = append(out[from], to)
	}
	index, low := map[*Task]int{}, map[*Task]int{}
	onStack := map[*Task]bool{}
	var stack []*Task
	res := map[*Task]*cycle{}
	n := 0
	var visit func(*Task)
	visit = func(v *Task) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range out[v] {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []*Task
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) < 2 {
			return
		}
		sort.Slice(comp, func(i, j int) bool {
			return comp[i].Line < comp[j].Line || comp[i].Line == comp[j].Line && comp[i].Path < comp[j].Path
		})
		c := &cycle{}
		for _, t := range comp {
			c.ids = append(c.ids, t.ID)
			res[t] = c
		}
	}
	for _, t := range order {
		if _, ok := index[t]; !ok {
			visit(t)
		}
	}
	return res
}
