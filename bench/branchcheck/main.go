// Command branchcheck compares the task git taskresume gives each branch of
// a run with the task a person mapped it to. It reads a table of
// "branch<TAB>intended_task[<TAB>note]" lines (a header line is skipped;
// "-" means no task of the plan, "MAIN" the run's own branch, "3|-" either
// reading) and runs `git taskresume RUN --json` in the repository.
//
//	go run ./bench/branchcheck -C REPO -run RUN TABLE.tsv [-- extra taskresume flags]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

type report struct {
	Phases []struct {
		Tasks []struct {
			ID         string   `json:"id"`
			Status     string   `json:"status"`
			Branch     *string  `json:"branch"`
			Duplicates []string `json:"duplicate_branches"`
			// Branches: schema 1's branches of a task in conflict, so
			// that an older build can be measured too.
			Branches []string `json:"branches"`
		} `json:"tasks"`
	} `json:"phases"`
	UnknownBranches []string `json:"unknown_branches"`
	Status          string   `json:"status"`
}

func main() {
	dir := flag.String("C", ".", "repository")
	run := flag.String("run", "", "run id")
	flag.Parse()
	if *run == "" || flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: branchcheck -C REPO -run RUN TABLE.tsv [taskresume flags]")
		os.Exit(2)
	}
	args := append([]string{"taskresume", *run, "--json"}, flag.Args()[1:]...)
	cmd := exec.Command("git", args...)
	cmd.Dir = *dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		fmt.Fprintln(os.Stderr, "git taskresume:", err)
		os.Exit(1)
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		fmt.Fprintln(os.Stderr, "read report:", err)
		os.Exit(1)
	}
	got := map[string]string{}
	status := map[string]string{}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			status[t.ID] = t.Status
			if t.Branch != nil {
				got[*t.Branch] = t.ID
			}
			for _, b := range append(t.Duplicates, t.Branches...) {
				got[b] = t.ID
			}
		}
	}
	for _, b := range rep.UnknownBranches {
		got[b] = "-"
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	right, total := 0, 0
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 2 || fields[0] == "branch" || fields[1] == "MAIN" {
			continue
		}
		total++
		g, ok := got[fields[0]]
		if !ok {
			g = "(not reported)"
		}
		want := strings.Split(fields[1], "|")
		hit := false
		for _, w := range want {
			hit = hit || w == g
		}
		mark := "ok  "
		if hit {
			right++
		} else {
			mark = "MISS"
		}
		fmt.Printf("%s %-50s want %-5s got %-5s %s\n", mark, fields[0], fields[1], g, status[g])
	}
	fmt.Printf("%d of %d branches go to their intended task; run status %s\n", right, total, rep.Status)
	if right != total {
		os.Exit(1)
	}
}
