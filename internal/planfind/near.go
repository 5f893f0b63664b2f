package planfind

import (
	"sort"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// SpecsDirs lists the names of the directories under specs/ in each place,
// once each, sorted: names only, no plan is read, so that it costs a
// directory listing or one tree a place whatever the number of runs. objs
// reads the commits' trees; with nil the commits are skipped.
func SpecsDirs(objs *gitcmd.Objects, places []Place) []string {
	seen := map[string]bool{}
	var out []string
	for _, pl := range places {
		var f files
		switch {
		case pl.Dir != "":
			f = diskFiles{top: pl.Dir}
		case pl.Commit != "" && objs != nil:
			f = &commitFiles{o: objs, commit: pl.Commit}
		default:
			continue
		}
		ents, err := f.list("specs")
		if err != nil {
			continue // a place that cannot be listed names nothing
		}
		for _, e := range ents {
			if e.dir && !seen[e.name] {
				seen[e.name] = true
				out = append(out, e.name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// NearIDs are the run ids the specs/ directories dirs may hold a plan of
// that are near run: as long as run, with exactly one position different
// ("93a61e" beside "91a61e": an orchestrator that wrote the plan under one
// id and named the branches with another). A directory holds id's plan
// when its name is the id or starts with "<id>-" (DirAgrees), so the
// candidate is the directory's first len(run) bytes. Sorted, once each.
func NearIDs(run string, dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if len(d) < len(run) || len(d) > len(run) && d[len(run)] != '-' {
			continue
		}
		id := d[:len(run)]
		if !seen[id] && OneApart(run, id) {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// OneApart says whether a and b have the same length and differ in exactly
// one position.
func OneApart(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	diff := 0
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff == 1
}
