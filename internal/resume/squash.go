package resume

import (
	"bytes"
	"context"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// findSquashes marks the tasks whose whole change was squashed into one
// commit of the base or the default branch since the run started: the
// commit's change to the tree equals the task's combined change (cands
// holds the landed commits' changes, read beside the landed commits
// themselves), else their stable patch-ids are equal (the change re-applied
// on a base that moved), asked only for pairs that touch the same paths.
// Per-commit checks such as git cherry miss a squash of several commits.
// Only tasks whose work is on a branch are checked; with no landed commit
// that changes anything, nothing runs.
func findSquashes(ctx context.Context, repo *gitcmd.Repo, states []branches.TaskState, cands gitcmd.Changes, landed, landedDef []gitcmd.LogEntry) error {
	type cand struct{ oid, ref string }
	var order []cand
	for _, l := range []struct {
		cs  []gitcmd.LogEntry
		ref string
	}{{landed, "base"}, {landedDef, "default"}} {
		for _, c := range l.cs {
			if cands[c.OID] != "" {
				order = append(order, cand{c.OID, l.ref})
			}
		}
	}
	var tasks []*branches.TaskState
	var lines []string
	for i := range states {
		s := &states[i]
		if s.Branch != nil && s.From != "" && s.OwnCommits > 0 && (s.Landed == nil || s.Landed.How != "merge") {
			tasks = append(tasks, s)
			lines = append(lines, s.Branch.OID+" "+s.From)
		}
	}
	if len(order) == 0 || len(tasks) == 0 {
		return nil
	}
	// "tip from" reads as the commit tip with from as its parent: the
	// task's combined change, keyed by the tip.
	changes, err := repo.DiffChanges(ctx, lines)
	if err != nil {
		return err
	}
	found := map[*branches.TaskState]cand{}
	pairs := map[*branches.TaskState][]cand{}
	var again bytes.Buffer
	asked := map[string]bool{}
	for _, s := range tasks {
		ch := changes[s.Branch.OID]
		if ch == "" {
			continue
		}
		for _, c := range order {
			if cands[c.oid] == ch {
				found[s] = c
				break
			}
			if samePaths(cands[c.oid], ch) {
				pairs[s] = append(pairs[s], c)
			}
		}
		if _, ok := found[s]; ok || len(pairs[s]) == 0 {
			delete(pairs, s)
			continue
		}
		again.WriteString(s.Branch.OID + " " + s.From + "\n")
		for _, c := range pairs[s] {
			if !asked[c.oid] {
				asked[c.oid] = true
				again.WriteString(c.oid + "\n")
			}
		}
	}
	if again.Len() > 0 {
		ids, err := patchIDs(ctx, repo, again.Bytes())
		if err != nil {
			return err
		}
		for s, cs := range pairs {
			for _, c := range cs {
				if id := ids[s.Branch.OID]; id != "" && ids[c.oid] == id {
					found[s] = c
					break
				}
			}
		}
	}
	for s, c := range found {
		s.Landed = &branches.Landing{How: "squash", Commit: c.oid, Ref: c.ref}
		s.Status = branches.Landed
	}
	return nil
}

// samePaths reports whether two change lists touch the same paths.
func samePaths(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	paths := func(ch string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(ch, "\n") {
			if f := strings.SplitN(l, " ", 3); len(f) == 3 {
				m[f[2]] = true
			}
		}
		return m
	}
	pa, pb := paths(a), paths(b)
	if len(pa) != len(pb) {
		return false
	}
	for p := range pa {
		if !pb[p] {
			return false
		}
	}
	return true
}

// patchIDs returns the stable patch-id of each record of the diff-tree
// input, keyed by the first id of its line.
func patchIDs(ctx context.Context, repo *gitcmd.Repo, in []byte) (map[string]string, error) {
	diff, err := repo.RunInput(ctx, in, "diff-tree", "-r", "-p", "--no-renames", "--stdin")
	if err != nil {
		return nil, err
	}
	out, err := repo.RunInput(ctx, diff, "patch-id", "--stable")
	if err != nil {
		return nil, err
	}
	res := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			res[f[1]] = f[0]
		}
	}
	return res, nil
}
