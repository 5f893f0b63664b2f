package resume

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// findSquashes marks the tasks whose whole change was squashed into one
// commit of the base or the default branch since the run started: the
// commit's change to the tree equals the task's combined change (the
// cheap check, one diff-tree), else their patch-ids are equal (the change
// re-applied on a base that moved). Per-commit checks such as git cherry
// miss a squash of several commits. Only tasks whose work is on a branch
// are checked, against the commits that name no task; a task with no such
// candidates costs nothing.
func findSquashes(ctx context.Context, repo *gitcmd.Repo, states []branches.TaskState, landed, landedDef []gitcmd.LogEntry) error {
	type cand struct {
		oid, ref string
	}
	var cands []cand
	for _, l := range []struct {
		cs  []gitcmd.LogEntry
		ref string
	}{{landed, "base"}, {landedDef, "default"}} {
		for _, c := range l.cs {
			if len(c.Parents) == 1 {
				cands = append(cands, cand{c.OID, l.ref})
			}
		}
	}
	var tasks []*branches.TaskState
	for i := range states {
		s := &states[i]
		if s.Branch != nil && s.From != "" && s.OwnCommits > 0 && (s.Landed == nil || s.Landed.How != "merge") {
			tasks = append(tasks, s)
		}
	}
	if len(cands) == 0 || len(tasks) == 0 {
		return nil
	}
	// "tip from" reads as the commit tip with from as its parent: the
	// diff is the task's combined change, keyed by the tip.
	var in bytes.Buffer
	for _, s := range tasks {
		in.WriteString(s.Branch.OID + " " + s.From + "\n")
	}
	for _, c := range cands {
		in.WriteString(c.oid + "\n")
	}
	out, err := repo.RunInput(ctx, in.Bytes(), "diff-tree", "-r", "--no-renames", "--stdin")
	if err != nil {
		return err
	}
	changes := rawChanges(out)
	found := map[*branches.TaskState]cand{}
	for _, s := range tasks {
		ch, ok := changes[s.Branch.OID]
		if !ok || ch == "" {
			continue
		}
		for _, c := range cands {
			if changes[c.oid] == ch {
				found[s] = c
				break
			}
		}
	}
	// A squash re-applied on a base that moved changes the same paths
	// with other blobs: only such pairs need patch-ids.
	var again bytes.Buffer
	pairs := map[*branches.TaskState][]cand{}
	asked := map[string]bool{}
	for _, s := range tasks {
		if _, ok := found[s]; ok || changes[s.Branch.OID] == "" {
			continue
		}
		for _, c := range cands {
			if samePaths(changes[c.oid], changes[s.Branch.OID]) {
				pairs[s] = append(pairs[s], c)
				if !asked[c.oid] {
					asked[c.oid] = true
					again.WriteString(c.oid + "\n")
				}
			}
		}
		if len(pairs[s]) > 0 {
			again.WriteString(s.Branch.OID + " " + s.From + "\n")
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

// rawChanges reads `diff-tree -r --stdin` output: per record (keyed by the
// first id of its header line), the sorted new side of every change.
func rawChanges(out []byte) map[string]string {
	res := map[string]string{}
	key := ""
	var lines []string
	flush := func() {
		if key != "" {
			sort.Strings(lines)
			res[key] = strings.Join(lines, "\n")
		}
		lines = nil
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, ":") {
			flush()
			key = strings.Fields(l)[0]
			continue
		}
		// ":old new oldoid newoid status\tpath": the new mode, blob and
		// path are the change; the old side depends on where it applied.
		meta, path, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if len(f) >= 5 {
			lines = append(lines, f[1]+" "+f[3]+" "+path)
		}
	}
	flush()
	return res
}

// samePaths reports whether two change lists of rawChanges touch the same
// paths.
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
