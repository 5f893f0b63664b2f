// Command mkrepo builds the large repositories of the benchmark with one
// `git fast-import` stream (standard library only):
//
//   - N commits on main, each changing one of 200 files under src/;
//   - R finished runs of the seven-task plan of examples/demo.sh, each
//     forked from its own point of main: <run>-main is a commit there that
//     adds the plan specs/<run>/plan.md, tasks 1.1 and 1.2 stacked on it,
//     2.1, 2.2, 2.3 each on 1.2, 3.1 on an octopus merge of phase 2, 3.2 on
//     3.1; one or two commits per task;
//   - the measured runs (layouts.go): L1, the run m1b2c3 (its plan
//     specs/<run>/plan.md added by main~100, <run>-main there, tasks 1.1,
//     1.2, 2.1 done, 2.2, 2.3, 3.1, 3.2 pending, no worktrees), seven more
//     layouts of the same plan (L2-L8) and two larger plans (50 and 500
//     tasks) laid out as L1;
//
// then checks out main, packs the refs, writes a commit-graph, writes L3's
// untracked plan into the main checkout, and prints the repository's size.
//
//	go run ./bench/mkrepo -dir /tmp/r20k -commits 20000 -runs 2800
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type task struct {
	phase                 int
	id, slug, title, file string
}

type phase struct {
	n          int
	name, mode string
}

// plan is a plan's phases and tasks, in order.
type plan struct {
	phases []phase
	tasks  []task
}

// demo is the plan of examples/demo.sh.
var demo = plan{
	phases: []phase{{1, "Setup", "Sequential"}, {2, "Core Logic", "Parallel"}, {3, "Integration", "Sequential"}},
	tasks: []task{
		{1, "1.1", "create-database-schema", "Create database schema (M - 1h)", "db/schema.sql"},
		{1, "1.2", "install-dependencies", "Install dependencies (S - 0.5h)", "package.json"},
		{2, "2.1", "user-service", "User service (M - 2h)", "src/services/user-service.ts"},
		{2, "2.2", "product-service", "Product service (M - 2h)", "src/services/product-service.ts"},
		{2, "2.3", "order-service", "Order service (M - 2.5h)", "src/services/order-service.ts"},
		{3, "3.1", "api-integration-tests", "API integration tests (L - 3h)", "tests/integration/api.test.ts"},
		{3, "3.2", "e2e-tests", "E2E tests (L - 3h)", "tests/e2e/workflows.test.ts"},
	},
}

// tasks is the demo plan's task list (the finished runs use it).
var tasks = demo.tasks

func (p plan) text(run string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Implementation Plan\n\nRun ID: %s\n", run)
	for _, ph := range p.phases {
		fmt.Fprintf(&b, "\n## Phase %d: %s (%s)\n", ph.n, ph.name, ph.mode)
		for _, t := range p.tasks {
			if t.phase == ph.n {
				fmt.Fprintf(&b, "\n### Task %s: %s\n- Files: `%s`\n", t.id, t.title, t.file)
			}
		}
	}
	return b.String()
}

func dashed(id string) string { return strings.ReplaceAll(id, ".", "-") }

type gen struct {
	w    *bufio.Writer
	mark int
	t0   int64
	// refs maps a ref name to the mark of its commit; they are created in
	// one update-ref transaction after the import (fast-import writes each
	// branch in a transaction of its own, which takes a minute for 22k).
	refs map[string]int
}

func (g *gen) next() int { g.mark++; return g.mark }

func (g *gen) data(s string) { fmt.Fprintf(g.w, "data %d\n%s\n", len(s), s) }

func (g *gen) blob(content string) int {
	m := g.next()
	fmt.Fprintf(g.w, "blob\nmark :%d\n", m)
	g.data(content)
	return m
}

type change struct {
	path string
	blob int
}

// commit writes a commit on ref with parents from (first) and merges. An
// empty ref makes a commit no ref points at (yet): the caller names it.
func (g *gen) commit(ref string, when int64, msg string, from int, merges []int, changes []change) int {
	m := g.next()
	if ref != "" {
		g.refs[ref] = m
	}
	if ref != "refs/heads/main" {
		ref = scratch
	}
	fmt.Fprintf(g.w, "commit %s\nmark :%d\n", ref, m)
	fmt.Fprintf(g.w, "author Agent <agent@example.com> %d +0000\n", when)
	fmt.Fprintf(g.w, "committer Agent <agent@example.com> %d +0000\n", when)
	g.data(msg)
	if from > 0 {
		fmt.Fprintf(g.w, "from :%d\n", from)
	}
	for _, p := range merges {
		fmt.Fprintf(g.w, "merge :%d\n", p)
	}
	for _, c := range changes {
		fmt.Fprintf(g.w, "M 100644 :%d %s\n", c.blob, c.path)
	}
	g.w.WriteString("\n")
	return m
}

// hash is a small deterministic mixer (splitmix64) for run ids and choices.
func hash(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

const files = 200

// scratch is the one ref fast-import moves for every commit not on main.
const scratch = "refs/bench/scratch"

func srcPath(i int) string { return fmt.Sprintf("src/d%02d/f%03d.go", i%20, i) }

func srcContent(i, rev int) string {
	return fmt.Sprintf("package d%02d\n\n// File %d, revision %d.\nfunc F%d() int {\n\treturn %d\n}\n", i%20, i, rev, i, rev*31+i)
}

func main() {
	dir := flag.String("dir", "", "repository to create (must not exist)")
	n := flag.Int("commits", 20000, "commits on main")
	runs := flag.Int("runs", 2800, "finished runs of the seven-task plan")
	run := flag.String("run", "m1b2c3", "the measured run (layout L1)")
	flag.Parse()
	if *dir == "" || *n < 200 {
		fmt.Fprintln(os.Stderr, "usage: mkrepo -dir DIR [-commits N>=200] [-runs R] [-run ID]")
		os.Exit(2)
	}
	if _, err := os.Stat(*dir); err == nil {
		fail(fmt.Errorf("%s exists", *dir))
	}
	start := time.Now()
	git("", "init", "-q", "-b", "main", *dir)
	git(*dir, "config", "gc.auto", "0")
	git(*dir, "config", "core.logAllRefUpdates", "false")

	marks := filepath.Join(*dir, ".git", "bench-marks")
	cmd := exec.Command("git", "fast-import", "--quiet", "--done", "--export-marks="+marks)
	cmd.Dir = *dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// fast-import grows and trims its heap tens of thousands of times; on a
	// VM where brk costs ~150us that alone takes minutes. A large trim
	// threshold and top pad keep the heap (20k commits: 95s -> a few s).
	cmd.Env = append(os.Environ(), "GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=268435456")
	in, err := cmd.StdinPipe()
	check(err)
	check(cmd.Start())
	g := &gen{w: bufio.NewWriterSize(in, 1<<20), t0: 1_600_000_000, refs: map[string]int{}}
	emit(g, *n, *runs, *run)
	g.w.WriteString("done\n")
	check(g.w.Flush())
	check(in.Close())
	check(cmd.Wait())
	imported := time.Since(start)
	createRefs(*dir, marks, g.refs)
	refsDone := time.Since(start)
	git(*dir, "reset", "-q", "--hard", "main")
	git(*dir, "pack-refs", "--all", "--prune")
	git(*dir, "commit-graph", "write", "--reachable")
	// Last, so that no step above can remove it: L3's plan exists only as
	// an untracked file of the main checkout.
	writeUntrackedPlan(*dir)
	fmt.Printf("%s: %s commits, %s refs, .git %s (built in %.0fs: fast-import %.0fs, refs %.0fs, checkout+pack-refs+commit-graph %.0fs)\n", *dir,
		strings.TrimSpace(gitOut(*dir, "rev-list", "--all", "--count")),
		count(gitOut(*dir, "for-each-ref", "--format=x")),
		human(duSize(filepath.Join(*dir, ".git"))), time.Since(start).Seconds(), imported.Seconds(),
		(refsDone - imported).Seconds(), (time.Since(start) - refsDone).Seconds())
}

// emit writes the whole history: main first, then the runs.
func emit(g *gen, n, runs int, measured string) {
	const step = 600 // ten minutes between commits on main
	mainMarks := make([]int, n+1)
	planAt := n - 100
	// What some commits of main carry instead of the usual change to one
	// src file: the measured runs' plans and L5's landed work.
	special := mainSpecials(g, measured)
	var init []change
	for i := 0; i < files; i++ {
		init = append(init, change{srcPath(i), g.blob(srcContent(i, 0))})
	}
	init = append(init, change{"README.md", g.blob("# bench\n\nA generated repository.\n")})
	mainMarks[1] = g.commit("refs/heads/main", g.t0+step, "Initial commit", 0, nil, init)
	for i := 2; i <= n; i++ {
		f := i % files
		ch := []change{{srcPath(f), g.blob(srcContent(f, i))}}
		msg := fmt.Sprintf("Change %d: touch %s", i, srcPath(f))
		if s, ok := special[n-i]; ok {
			msg = s.msg
			if s.replace {
				ch = nil
			}
			ch = append(ch, s.changes...)
		}
		mainMarks[i] = g.commit("refs/heads/main", g.t0+int64(i)*step, msg, mainMarks[i-1], nil, ch)
	}
	at := func(back int) (mark int, when int64) { return mainMarks[n-back], g.t0 + int64(n-back)*step }

	// The measured runs (layouts.go), then the finished runs.
	emitLayouts(g, n, measured, at)

	// Finished runs, forked from points spread over main (not after the
	// measured run's fork, so that they stay out of its walk).
	used := map[string]bool{measured: true}
	for _, id := range layoutRuns {
		used[id] = true
	}
	for r, seed := 0, uint64(0); r < runs; r++ {
		var h uint64
		var id string
		for id == "" || used[id] {
			seed++
			h = hash(seed)
			id = fmt.Sprintf("%06x", h&0xffffff)
		}
		used[id] = true
		fork := 1 + int(hash(h)%uint64(planAt-1))
		when := g.t0 + int64(fork)*step
		// <run>-main is a commit on the fork that adds the run's plan, as
		// the orchestrators write it: --list (and a report of the run)
		// finds it there, and the tasks start from it.
		when += 60
		start := g.commit("refs/heads/"+id+"-main", when, "Add plan for run "+id, mainMarks[fork], nil,
			[]change{{"specs/" + id + "/plan.md", g.blob(demo.text(id))}})
		tipOf := map[string]int{}
		blobs := map[string]int{}
		for k, t := range tasks {
			var from int
			var merges []int
			var ch []change
			switch t.id {
			case "1.1":
				from = start
			case "1.2":
				from = tipOf["1.1"]
			case "2.1", "2.2", "2.3":
				from = tipOf["1.2"]
			case "3.1":
				from, merges = tipOf["2.1"], []int{tipOf["2.2"], tipOf["2.3"]}
				ch = []change{{tasks[3].file, blobs["2.2"]}, {tasks[4].file, blobs["2.3"]}}
			case "3.2":
				from = tipOf["3.1"]
			}
			ref := branch(id, t)
			if merges != nil {
				when += 60
				from = g.commit(ref, when, "Merge phase 2", from, merges, ch)
			}
			commits := 1 + int(hash(h+uint64(k)+1)%2)
			for c := 0; c < commits; c++ {
				when += 60
				b := g.blob(fmt.Sprintf("// run %s task %s, commit %d\n", id, t.id, c))
				blobs[t.id] = b
				from = g.commit(ref, when, fmt.Sprintf("task %s: %s (%d/%d)", t.id, t.slug, c+1, commits), from, nil,
					[]change{{t.file, b}})
			}
			tipOf[t.id] = from
		}
	}
}

// createRefs creates every ref but main in one transaction, then drops the
// scratch ref and the marks file.
func createRefs(dir, marksFile string, refs map[string]int) {
	data, err := os.ReadFile(marksFile)
	check(err)
	oid := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if mark, sha, ok := strings.Cut(line, " "); ok {
			oid[mark] = sha
		}
	}
	var in strings.Builder
	in.WriteString("start\n")
	for ref, m := range refs {
		if ref != "refs/heads/main" {
			fmt.Fprintf(&in, "create %s %s\n", ref, oid[fmt.Sprintf(":%d", m)])
		}
	}
	fmt.Fprintf(&in, "delete %s\ncommit\n", scratch)
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	check(os.Remove(marksFile))
}

func branch(run string, t task) string {
	return "refs/heads/" + run + "-task-" + dashed(t.id) + "-" + t.slug
}

func git(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("git %s: %w", strings.Join(args, " "), err))
	}
}

func gitOut(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fail(fmt.Errorf("git %s: %w", strings.Join(args, " "), err))
	}
	return string(out)
}

func count(s string) string { return fmt.Sprint(strings.Count(s, "\n")) }

func duSize(root string) int64 {
	var total int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

func human(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func check(err error) {
	if err != nil && err != io.EOF {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mkrepo:", err)
	os.Exit(1)
}
