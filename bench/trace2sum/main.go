// Command trace2sum summarises git trace2 event files (GIT_TRACE2_EVENT) of
// repeated runs of one command, to show where its wall time goes: the git
// processes it starts, how long each ran inside git, and the time outside
// any git child (the program itself, and starting each process).
//
//	GIT_TRACE2_EVENT=/tmp/t/1 git taskresume m1b2c3 --json; ...
//	go run ./bench/trace2sum /tmp/t/*
//	go run ./bench/trace2sum -group /tmp/t/1   # per git subcommand (one run)
//
// Each file must hold one run: the outer git process (`git taskresume`,
// which execs git-taskresume) and the git processes started below it.
// Standard library only.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Event string   `json:"event"`
	SID   string   `json:"sid"`
	Time  string   `json:"time"`
	TAbs  float64  `json:"t_abs"`
	Argv  []string `json:"argv"`
}

type proc struct {
	sid         string
	argv        string
	start, exit time.Time
	inGit       float64 // seconds from git's main() to exit
}

type run struct {
	root     *proc
	children []*proc // in start order
}

func main() {
	group := flag.Bool("group", false, "one run: sum the git processes by subcommand (for commands that run git concurrently)")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: trace2sum [-group] FILE...")
		os.Exit(2)
	}
	var runs []run
	for _, f := range flag.Args() {
		r, err := read(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "trace2sum:", err)
			os.Exit(1)
		}
		runs = append(runs, r)
	}
	if *group {
		groupBy(runs[0])
		return
	}
	// Match processes across runs by command line (and occurrence), since
	// concurrent ones may start in a different order from run to run.
	type key struct {
		argv string
		nth  int
	}
	keyed := make([]map[key]*proc, len(runs))
	for i, r := range runs {
		keyed[i] = map[key]*proc{}
		seen := map[string]int{}
		for _, c := range r.children {
			keyed[i][key{c.argv, seen[c.argv]}] = c
			seen[c.argv]++
		}
	}
	ms := func(d float64) string { return fmt.Sprintf("%7.1f", d*1000) }
	fmt.Printf("median over %d runs, ms:\n", len(runs))
	fmt.Printf("%7s %7s %7s  %s\n", "start", "in git", "idle", "process (start: from the outer git's start; idle: before it, no git process running)")
	seen := map[string]int{}
	var sumIn float64
	for _, c0 := range runs[0].children {
		k := key{c0.argv, seen[c0.argv]}
		seen[c0.argv]++
		var st, in, idle []float64
		overlap := 0
		for i, r := range runs {
			c := keyed[i][k]
			if c == nil {
				continue
			}
			st = append(st, c.start.Sub(r.root.start).Seconds())
			in = append(in, c.inGit)
			// Idle: since the latest exit of the processes that started
			// before this one; zero when one of them was still running.
			last := r.root.start
			busy := false
			for _, o := range r.children {
				if o == c || !o.start.Before(c.start) {
					continue
				}
				if o.exit.After(c.start) {
					busy = true
				}
				if o.exit.After(last) {
					last = o.exit
				}
			}
			if busy {
				overlap++
				idle = append(idle, 0)
			} else {
				idle = append(idle, c.start.Sub(last).Seconds())
			}
		}
		sumIn += median(in)
		note := ""
		if overlap*2 > len(st) {
			note = "  [concurrent with another git process]"
		}
		fmt.Printf("%s %s %s  %s%s\n", ms(median(st)), ms(median(in)), ms(median(idle)), c0.argv, note)
	}
	var total, uncovered []float64
	for _, r := range runs {
		t := r.root.exit.Sub(r.root.start)
		total = append(total, t.Seconds())
		uncovered = append(uncovered, (t - coveredWall(r)).Seconds())
	}
	fmt.Printf("\n%d git processes: %s ms inside git (summed); total %s ms from the outer git's start to its exit, of which %s ms with no git process running (starting processes, the program itself) (%s)\n",
		len(runs[0].children), strings.TrimSpace(ms(sumIn)), strings.TrimSpace(ms(median(total))),
		strings.TrimSpace(ms(median(uncovered))), runs[0].root.argv)
}

// coveredWall is the wall time during which at least one git child ran.
func coveredWall(r run) time.Duration {
	var covered time.Duration
	var end time.Time
	for _, c := range r.children { // sorted by start
		s, e := c.start, c.exit
		if s.Before(end) {
			s = end
		}
		if e.After(s) {
			covered += e.Sub(s)
		}
		if e.After(end) {
			end = e
		}
	}
	return covered
}

// groupBy prints, per git subcommand, how many processes ran and their time
// inside git, then how much of the wall time no git process covered.
func groupBy(r run) {
	type agg struct {
		n  int
		in float64
	}
	by := map[string]*agg{}
	var keys []string
	for _, c := range r.children {
		f := strings.Fields(c.argv)[1:]
		for len(f) > 0 && strings.HasPrefix(f[0], "-") { // git's own options
			if (f[0] == "-C" || f[0] == "-c") && len(f) > 1 {
				f = f[1:]
			}
			f = f[1:]
		}
		k := strings.Join(f[:min(len(f), 1)], " ")
		if k == "worktree" && len(f) > 1 {
			k += " " + f[1]
		}
		if strings.Count(c.sid, "/") > strings.Count(r.root.sid, "/")+1 {
			k += " (started by a git process)"
		}
		if by[k] == nil {
			by[k] = &agg{}
			keys = append(keys, k)
		}
		by[k].n++
		by[k].in += c.inGit
	}
	sort.SliceStable(keys, func(i, j int) bool { return by[keys[i]].in > by[keys[j]].in })
	fmt.Printf("%6s %9s  %s\n", "procs", "in git ms", "git subcommand")
	var sum float64
	for _, k := range keys {
		fmt.Printf("%6d %9.1f  %s\n", by[k].n, by[k].in*1000, k)
		sum += by[k].in
	}
	covered := coveredWall(r)
	total := r.root.exit.Sub(r.root.start)
	fmt.Printf("\n%d git processes, %.0f ms inside git (summed); wall %.0f ms, of which %.0f ms with no git process running (starting processes, the program itself)\n",
		len(r.children), sum*1000, total.Seconds()*1000, (total-covered).Seconds()*1000)
}

func read(name string) (run, error) {
	f, err := os.Open(name)
	if err != nil {
		return run{}, err
	}
	defer f.Close()
	procs := map[string]*proc{}
	var order []*proc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil {
			continue
		}
		p := procs[e.SID]
		switch e.Event {
		case "start":
			p = &proc{sid: e.SID, argv: strings.Join(e.Argv, " "), start: t.Add(-time.Duration(e.TAbs * float64(time.Second)))}
			if len(p.argv) > 110 {
				p.argv = p.argv[:107] + "..."
			}
			procs[e.SID] = p
			order = append(order, p)
		case "atexit":
			if p != nil {
				p.exit, p.inGit = t, e.TAbs
			}
		}
	}
	if err := sc.Err(); err != nil {
		return run{}, err
	}
	if len(order) == 0 {
		return run{}, fmt.Errorf("%s: no trace2 start event", name)
	}
	r := run{root: order[0]}
	for _, p := range order[1:] {
		if strings.HasPrefix(p.sid, r.root.sid+"/") {
			r.children = append(r.children, p)
		}
	}
	sort.SliceStable(r.children, func(i, j int) bool { return r.children[i].start.Before(r.children[j].start) })
	return r, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
