package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The measured runs besides L1 (-run, default m1b2c3). bench/run.sh names
// the same ids. None is six hex digits, so no finished run can take one.
const (
	runL2  = "l2a1b1" // L2: plan committed elsewhere (main~50), not on <run>-main
	runL3  = "l3a1b1" // L3: plan only in the main checkout, untracked
	runL4  = "l4a1b1" // L4: plan only on <run>-main, below its tip
	runL5  = "l5a1b1" // L5: tasks landed on main, no <run>-main
	runL6  = "l6a1b1" // L6: as L2, forked 15,000 commits back
	runL7  = "l7a1b1" // L7: an old run, forked 25,000 commits back, one task squashed near main's tip
	runL8  = "l8a1b1" // L8: as L7, forked 50,000 commits back
	run50  = "n50a1b" // 50 tasks (5 parallel phases of 10), laid out as L1
	run500 = "n500ab" // 500 tasks (10 parallel phases of 50), laid out as L1
)

var layoutRuns = []string{runL2, runL3, runL4, runL5, runL6, runL7, runL8, run50, run500}

// Where things sit on main, in commits back from its tip.
const (
	forkBack    = 100   // L1-L5 and the large plans fork (or add the plan) here
	l2PlanBack  = 50    // L2's and L6's plans are added here
	l6ForkBack  = 15000 // L6 forks here (fewer on a shorter main)
	l5FFBack    = 95    // L5's task 1.1 commit, on main itself (fast-forward)
	l5Task12    = 80    // L5's task 1.2, rebased onto main: "[Task 1.2] ..."
	l5Squash    = 60    // L5's task 2.1, squashed: "Add user service (#42)"
	oldPlanBack = 45    // L7's and L8's plans are added here
	l7ForkBack  = 25000 // L7 forks here (L8 50,000; both half of a shorter main)
	l8ForkBack  = 50000
	l7Squash    = 30 // L7's task 2.1, squashed: "Add user service (#43)"
	l8Squash    = 20 // L8's task 2.1, squashed: "Add user service (#44)"
)

// l5 is the demo plan with its files under a directory of L5's own. Its
// landed commits are on main, which every other layout's search for landed
// work reads: with the demo's paths they would be squash candidates of
// every other run's tasks (a patch-id pass those reports would not make
// alone). The titles and ids are the demo's. L7 and L8, whose squashed
// tasks are on main too, have theirs for the same reason.
var l5 = appsPlan(runL5)

var (
	l7 = appsPlan(runL7)
	l8 = appsPlan(runL8)
)

// appsPlan is the demo plan with its files under apps/<run>/.
func appsPlan(run string) plan {
	p := plan{phases: demo.phases}
	for _, t := range demo.tasks {
		t.file = "apps/" + run + "/" + t.file
		p.tasks = append(p.tasks, t)
	}
	return p
}

// l5Trailer marks L5's task commits as L5's: on main, a subject names a task
// by its id and title, which every run of the demo plan shares, so
// without it L5's landed commits would land the other layouts' tasks 1.1
// and 1.2 too. L5's own reading is unchanged: a Run-Id of its own with no
// Task-Id leaves the subject to decide.
const l5Trailer = "\n\nRun-Id: " + runL5

// grid is a plan of phases x per parallel tasks, each with a file of its
// own. Titles carry one fixed-width word ("p01k007"), so that no title's
// words hold another's (a subject names a task by its title's words).
func grid(run string, phases, per int) plan {
	var p plan
	for ph := 1; ph <= phases; ph++ {
		p.phases = append(p.phases, phase{ph, fmt.Sprintf("Stage %d", ph), "Parallel"})
		for k := 1; k <= per; k++ {
			w := fmt.Sprintf("p%02dk%03d", ph, k)
			p.tasks = append(p.tasks, task{ph, fmt.Sprintf("%d.%d", ph, k), "worker-" + w,
				"Worker " + w + " (S - 1h)", fmt.Sprintf("work/%s/p%02d/t%03d.txt", run, ph, k)})
		}
	}
	return p
}

var (
	plan50  = grid(run50, 5, 10)
	plan500 = grid(run500, 10, 50)
)

// special is what a commit of main carries instead of (replace) or besides
// its usual change to one src file.
type special struct {
	msg     string
	replace bool
	changes []change
}

// l5Blobs are the contents of L5's tasks, shared by its branch commits and
// the copies of them that landed on main.
var l5Blobs = map[string]int{}

// oldBlobs are the contents of L7's and L8's task 2.1, by run: its branch
// commit and its squashed copy on main share them.
var oldBlobs = map[string]int{}

// mainSpecials returns the special commits of main, keyed by how far back
// from main's tip they are.
func mainSpecials(g *gen, measured string) map[int]special {
	plans := func(runs ...string) []change {
		var ch []change
		for _, r := range runs {
			p := demo
			switch r {
			case runL5:
				p = l5
			case runL7:
				p = l7
			case runL8:
				p = l8
			case run50:
				p = plan50
			case run500:
				p = plan500
			}
			ch = append(ch, change{"specs/" + r + "/plan.md", g.blob(p.text(r))})
		}
		return ch
	}
	for _, t := range l5.tasks[:4] {
		l5Blobs[t.id] = g.blob(fmt.Sprintf("// %s task %s\n", runL5, t.id))
	}
	for _, r := range []string{runL7, runL8} {
		oldBlobs[r] = g.blob(fmt.Sprintf("// %s task 2.1\n", r))
	}
	l5File := func(id string) string {
		for _, t := range l5.tasks {
			if t.id == id {
				return t.file
			}
		}
		panic(id)
	}
	return map[int]special{
		// L1's plan as always (its message too), with the plans of the
		// other runs that start there: L5 and the two large plans.
		forkBack: {msg: "Add plan for run " + measured, changes: plans(measured, runL5, run50, run500)},
		// L5's task 1.1, fast-forwarded: its branch points here.
		l5FFBack: {msg: "task 1.1: create-database-schema" + l5Trailer, replace: true,
			changes: []change{{l5File("1.1"), l5Blobs["1.1"]}}},
		// L5's task 1.2, rebased onto main (a commit of its own; the
		// original stays below 2.1's and 2.2's branches).
		l5Task12: {msg: "[Task 1.2] Install dependencies" + l5Trailer, replace: true,
			changes: []change{{l5File("1.2"), l5Blobs["1.2"]}}},
		// L5's task 2.1, squash-merged by a forge: a subject that names no
		// task, a change equal to the task's own.
		l5Squash: {msg: "Add user service (#42)", replace: true,
			changes: []change{{l5File("2.1"), l5Blobs["2.1"]}}},
		// L2's and L6's plans, committed on main after their runs forked.
		l2PlanBack: {msg: "Add plans for runs " + runL2 + " and " + runL6, changes: plans(runL2, runL6)},
		// L7's and L8's plans, the same way.
		oldPlanBack: {msg: "Add plans for runs " + runL7 + " and " + runL8, changes: plans(runL7, runL8)},
		// L7's and L8's task 2.1, squash-merged near main's tip: the
		// search for landed work walks all the way back to their forks
		// and must find them by their change.
		l7Squash: {msg: "Add user service (#43)", replace: true,
			changes: []change{{l7.tasks[2].file, oldBlobs[runL7]}}},
		l8Squash: {msg: "Add user service (#44)", replace: true,
			changes: []change{{l8.tasks[2].file, oldBlobs[runL8]}}},
	}
}

// emitLayouts writes the measured runs' branches. at(k) is main~k's mark and
// commit time.
func emitLayouts(g *gen, n int, measured string, at func(back int) (int, int64)) {
	fork, when := at(forkBack)

	// L1: <run>-main at main~100, whose commit adds the plan.
	g.refs["refs/heads/"+measured+"-main"] = fork
	doneStack(g, measured, demo, 0, fork, when)

	// L2 and L3: <run>-main at main~100, which does not hold their plans.
	for _, r := range []string{runL2, runL3} {
		g.refs["refs/heads/"+r+"-main"] = fork
		doneStack(g, r, demo, 0, fork, when)
	}

	// L4: the plan is added by a commit of <run>-main, followed by one more.
	a := g.commit("", when+20, "Add plan for run "+runL4, fork, nil,
		[]change{{"specs/" + runL4 + "/plan.md", g.blob(demo.text(runL4))}})
	b := g.commit("refs/heads/"+runL4+"-main", when+30, "chore: record run start", a, nil,
		[]change{{"notes/" + runL4 + ".md", g.blob("Run " + runL4 + " started.\n")}})
	doneStack(g, runL4, demo, 0, b, when+30)

	// L5: no <run>-main. 1.1's branch is main~95 itself; 1.2's original
	// commit (its branch deleted) under 2.1's and 2.2's branches; 2.1's
	// own commit, squashed onto main at main~60; 2.2 done, not landed.
	ff, whenFF := at(l5FFBack)
	g.refs[branch(runL5, l5.tasks[0])] = ff
	orig12 := g.commit("", whenFF+60, "task 1.2: install-dependencies"+l5Trailer, ff, nil,
		[]change{{l5.tasks[1].file, l5Blobs["1.2"]}})
	for i, t := range l5.tasks[2:4] {
		g.commit(branch(runL5, t), whenFF+120+int64(60*i), fmt.Sprintf("task %s: %s", t.id, t.slug)+l5Trailer, orig12, nil,
			[]change{{t.file, l5Blobs[t.id]}})
	}

	// L6: as L2, forked far back; L7 and L8 the same, further back, with
	// their own files and task 2.1 squashed onto main near its tip.
	for _, r := range []struct {
		id   string
		back int
		p    plan
		b21  int
	}{{runL6, l6ForkBack, demo, 0}, {runL7, l7ForkBack, l7, oldBlobs[runL7]}, {runL8, l8ForkBack, l8, oldBlobs[runL8]}} {
		back := r.back
		if back > n-2 {
			back = n / 2 // a main too short for the distance: half of it
		}
		far, whenFar := at(back)
		g.refs["refs/heads/"+r.id+"-main"] = far
		doneStack(g, r.id, r.p, r.b21, far, whenFar)
	}

	// The large plans: about 40% done (the first 2 of 5 phases, 4 of 10),
	// each done task one branch off <run>-main with one commit.
	for _, r := range []struct {
		id   string
		p    plan
		done int
	}{{run50, plan50, 2}, {run500, plan500, 4}} {
		g.refs["refs/heads/"+r.id+"-main"] = fork
		for k, t := range r.p.tasks {
			if t.phase > r.done {
				continue
			}
			g.commit(branch(r.id, t), when+60+int64(k), fmt.Sprintf("task %s: %s", t.id, t.slug), fork, nil,
				[]change{{t.file, g.blob(fmt.Sprintf("// %s task %s\n", r.id, t.id))}})
		}
	}
}

// doneStack commits tasks 1.1, 1.2 and 2.1 of run (plan p, the demo's or
// one with its files elsewhere), one commit each, stacked on from (1.2 on
// 1.1, 2.1 on 1.2), as the measured run always had; 2.2, 2.3, 3.1 and 3.2
// are not started. b21, when not 0, is 2.1's content (a copy of it is on
// main).
func doneStack(g *gen, run string, p plan, b21 int, from int, when int64) {
	tip := from
	for _, t := range p.tasks[:3] {
		when += 60
		b := b21
		if t.id != "2.1" || b == 0 {
			b = g.blob(fmt.Sprintf("// %s task %s\n", run, t.id))
		}
		tip = g.commit(branch(run, t), when, fmt.Sprintf("task %s: %s", t.id, t.slug), tip, nil,
			[]change{{t.file, b}})
	}
}

// writeUntrackedPlan writes L3's plan into the main checkout, where no
// commit holds it.
func writeUntrackedPlan(dir string) {
	p := filepath.Join(dir, "specs", runL3, "plan.md")
	check(os.MkdirAll(filepath.Dir(p), 0o755))
	check(os.WriteFile(p, []byte(demo.text(runL3)), 0o644))
}
