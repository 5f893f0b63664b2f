package resume

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// This file finds the commits that only edit the plan (docs/DESIGN.md,
// "Step 4: whose work each commit is"): editing the plan is not doing a
// task, so the rule counts such a commit as no task's work and no landing,
// whatever its words say (branches.Input.PlanOnly).

// planRepoFiles are the plan's files inside the repository (several for a
// split plan); none for a plan read from outside it.
func planRepoFiles(src *PlanSource) []string {
	if src == nil {
		return nil
	}
	var out []string
	for _, f := range src.Files {
		if f != "" && !path.IsAbs(f) && !strings.HasPrefix(f, "../") && !strings.Contains(f, "\\") {
			out = append(out, f)
		}
	}
	return out
}

// planOnlyCommits maps the commits of in whose whole change against their
// one parent is to the plan's files to the files they change. Only the
// commits the rule could count are asked about: those of the walk (but
// cherry-picked copies), and the landed ones naming a task. Merges, root
// commits and commits that change nothing are left to the rule's other
// steps.
//
// The trees are compared through the running reader: the root trees must
// differ only in the entry on the way to a plan file, and so on down, so a
// commit that touches anything else costs one or two tree reads (the
// parent's is most often the commit before's, read already). Without a
// reader (--plan), one diff-tree reads the candidates' changes.
func planOnlyCommits(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, files []string, in branches.Input) (map[string][]string, error) {
	if len(files) == 0 || in.Names == nil {
		return nil, nil
	}
	trees := make(map[string]string, len(in.Walk)+len(in.Landed)+len(in.LandedDefault))
	for k, v := range in.Trees {
		trees[k] = v
	}
	for _, cs := range [][]gitcmd.LogEntry{in.Walk, in.Landed, in.LandedDefault} {
		for _, c := range cs {
			if c.Tree != "" {
				trees[c.OID] = c.Tree
			}
		}
	}
	var cands []*gitcmd.LogEntry
	seen := map[string]bool{}
	add := func(c *gitcmd.LogEntry) {
		if !seen[c.OID] && len(c.Parents) == 1 && c.Tree != "" && trees[c.Parents[0]] != c.Tree {
			seen[c.OID] = true
			cands = append(cands, c)
		}
	}
	// The walk's commits are few and most are some task's work: each is
	// asked about (reading its words costs as much as its root trees), but
	// a cherry-picked copy, which is no one's work.
	for i := range in.Walk {
		if c := &in.Walk[i]; c.PickedFrom == "" {
			add(c)
		}
	}
	for _, l := range []struct {
		cs     []gitcmd.LogEntry
		shared bool
	}{{in.Landed, in.BaseShared}, {in.LandedDefault, true}} {
		for i := range l.cs {
			if c := &l.cs[i]; in.Names.Name(c, l.shared).Task != "" {
				add(c)
			}
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	pf := newPlanFiles(files)
	out := map[string][]string{}
	if objs == nil {
		lines := make([]string, len(cands))
		for i, c := range cands {
			lines[i] = c.OID + " " + c.Parents[0]
		}
		changes, err := repo.DiffChanges(ctx, lines)
		if err != nil {
			return nil, err
		}
		for i, c := range cands {
			if changed := pf.onlyIn(changes[lines[i]]); changed != nil {
				out[c.OID] = changed
			}
		}
		return out, nil
	}
	// The root trees, asked for at once: most candidates differ from
	// their parent outside the plan's directories, which the root trees
	// alone show.
	var roots []string
	for _, c := range cands {
		roots = append(roots, c.Tree)
		if t := trees[c.Parents[0]]; t != "" {
			roots = append(roots, t)
		}
	}
	if _, err := objs.Trees(roots); err != nil {
		return nil, err
	}
	for _, c := range cands {
		parent := trees[c.Parents[0]]
		if parent == "" {
			// The parent of the oldest landed commit: read it.
			pc, ok, err := objs.Commit(c.Parents[0])
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			parent = pc.Tree
			trees[c.Parents[0]] = parent
			if parent == c.Tree {
				continue
			}
		}
		changed, err := pf.onlyInTrees(objs, parent, c.Tree)
		if err != nil {
			return nil, err
		}
		if changed != nil {
			out[c.OID] = changed
		}
	}
	return out, nil
}

// planFiles are the plan's files, and the directories on the way to them.
type planFiles struct {
	files, dirs map[string]bool
}

func newPlanFiles(files []string) *planFiles {
	pf := &planFiles{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, f := range files {
		pf.files[f] = true
		for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
			pf.dirs[d] = true
		}
	}
	return pf
}

// onlyIn reads a change of diff-tree ("newmode newblob path" lines): the
// plan's files it changes when it changes nothing else, else nil.
func (pf *planFiles) onlyIn(change string) []string {
	var changed []string
	for _, l := range strings.Split(change, "\n") {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 || !pf.files[f[2]] {
			return nil
		}
		changed = append(changed, f[2])
	}
	return changed
}

// onlyInTrees compares two trees: the plan's files the change from a to b
// changes when it changes nothing else, else nil. Only the directories on
// the way to the plan's files are read.
func (pf *planFiles) onlyInTrees(objs *gitcmd.Objects, a, b string) ([]string, error) {
	ta, err := rootTree(objs, a)
	if err != nil || ta == nil {
		return nil, err
	}
	tb, err := rootTree(objs, b)
	if err != nil || tb == nil {
		return nil, err
	}
	var changed []string
	ok, err := pf.walk(objs, ta, tb, "", &changed)
	if err != nil || !ok || len(changed) == 0 {
		return nil, err
	}
	sort.Strings(changed)
	return changed, nil
}

// rootTree reads a commit's tree; nil when there is none. The empty tree
// (a first commit made with --allow-empty) reads as no entries, not nil.
func rootTree(objs *gitcmd.Objects, oid string) ([]gitcmd.TreeEntry, error) {
	t, err := objs.Tree(oid)
	if err != nil || t != nil {
		return t, err
	}
	obj, err := objs.Get(oid)
	if err != nil || obj.Type != "tree" {
		return nil, err
	}
	return []gitcmd.TreeEntry{}, nil
}

// walk compares the entries of two trees at prefix (a side may be nil: a
// directory added or removed); ok is false as soon as an entry off the way
// to a plan file differs.
func (pf *planFiles) walk(objs *gitcmd.Objects, a, b []gitcmd.TreeEntry, prefix string, changed *[]string) (bool, error) {
	byName := make(map[string]*gitcmd.TreeEntry, len(a))
	for i := range a {
		byName[a[i].Name] = &a[i]
	}
	type pair struct{ a, b *gitcmd.TreeEntry }
	var diff []pair
	for i := range b {
		ea := byName[b[i].Name]
		delete(byName, b[i].Name)
		if ea == nil || ea.OID != b[i].OID || ea.Mode != b[i].Mode {
			diff = append(diff, pair{ea, &b[i]})
		}
	}
	for _, ea := range byName {
		diff = append(diff, pair{ea, nil})
	}
	for _, d := range diff {
		name := d.b
		if name == nil {
			name = d.a
		}
		full := prefix + name.Name
		switch {
		case pf.files[full]:
			// The plan's file itself, a file on both sides it has.
			if d.a != nil && d.a.IsDir() || d.b != nil && d.b.IsDir() {
				return false, nil
			}
			*changed = append(*changed, full)
		case pf.dirs[full]:
			sa, ok, err := subtree(objs, d.a)
			if err != nil || !ok {
				return false, err
			}
			sb, ok, err := subtree(objs, d.b)
			if err != nil || !ok {
				return false, err
			}
			if ok, err := pf.walk(objs, sa, sb, full+"/", changed); err != nil || !ok {
				return false, err
			}
		default:
			return false, nil
		}
	}
	return true, nil
}

// subtree reads the directory e is (nil for no entry); ok is false when e
// is not a directory (a file where the plan's directory is).
func subtree(objs *gitcmd.Objects, e *gitcmd.TreeEntry) (t []gitcmd.TreeEntry, ok bool, err error) {
	if e == nil {
		return nil, true, nil
	}
	if !e.IsDir() {
		return nil, false, nil
	}
	t, err = objs.Tree(e.OID)
	return t, err == nil && t != nil, err
}
