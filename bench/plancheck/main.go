// Command plancheck parses plan files and prints one row per file: what the
// parser read from it, or the error that refuses it. It is for checking the
// parser against plans by eye:
//
//	go run ./bench/plancheck [-v] PATH...
//
// A PATH is a plan file or a folder, whose *.md files are read (not
// recursively). The modes column has one letter per phase: P parallel, S
// sequential as the plan says, s sequential because the plan gives no mode.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/plan"
)

func main() {
	verbose := flag.Bool("v", false, "print every phase and task, and the warnings")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: plancheck [-v] PATH...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	files, err := expand(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "plancheck:", err)
		os.Exit(2)
	}
	// Pad the file column by hand: an error row has no further columns,
	// which would break a tabwriter's alignment.
	width := len("FILE")
	for _, f := range files {
		width = max(width, len(filepath.Base(f)))
	}
	fmt.Printf("%-*s  %-8s %6s %5s  %s\n", width, "FILE", "RUN", "PHASES", "TASKS", "MODES")
	failed := false
	for _, f := range files {
		if !check(os.Stdout, f, width, *verbose) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// expand turns folders into their *.md files, in name order.
func expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.md"))
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}

// check prints the row of one file (and with verbose its phases, tasks and
// warnings) and reports whether the plan parsed.
func check(w io.Writer, path string, width int, verbose bool) bool {
	name := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(w, "%-*s  ERROR %v\n", width, name, err)
		return false
	}
	p, warns, err := plan.Parse(name, data)
	if err != nil {
		fmt.Fprintf(w, "%-*s  ERROR %v\n", width, name, err)
		return false
	}
	run := p.RunID
	if run == "" {
		run = "-"
	}
	var modes strings.Builder
	for _, ph := range p.Phases {
		switch {
		case ph.Mode == plan.Parallel:
			modes.WriteByte('P')
		case ph.ModeGiven:
			modes.WriteByte('S')
		default:
			modes.WriteByte('s')
		}
	}
	fmt.Fprintf(w, "%-*s  %-8s %6d %5d  %s\n", width, name, run, len(p.Phases), len(p.Tasks()), modes.String())
	if verbose {
		for _, ph := range p.Phases {
			fmt.Fprintf(w, "  line %-5d phase %d %q: %s", ph.Line, ph.Number, ph.Title, ph.Mode)
			if ph.ModeLine != 0 {
				fmt.Fprintf(w, " (line %d)", ph.ModeLine)
			}
			if ph.Estimate != "" {
				fmt.Fprintf(w, ", %s", ph.Estimate)
			}
			fmt.Fprintln(w)
			for _, t := range ph.Tasks {
				fmt.Fprintf(w, "  line %-5d   task %s %q size %q estimate %q depends on %v\n", t.Line, t.ID, t.Title, t.Size, t.Estimate, t.DependsOn)
			}
		}
		for _, wn := range warns {
			fmt.Fprintf(w, "  warning: %s\n", wn)
		}
	}
	return true
}
