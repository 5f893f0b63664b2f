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

// planFiles are the plan's files inside the repository, and the files
// those that are symbolic links point to (an edit of the plan is an edit
// of the file it is), read once.
func (g *gathering) planFiles() []string {
	g.planFilesOnce.Do(func() {
		files := planRepoFiles(g.rep.PlanSource)
		at := g.base.Commit
		if ps := g.rep.PlanSource; ps != nil && ps.Commit != "" {
			at = ps.Commit
		}
		g.planFilesRead = files
		if g.objs == nil || at == "" {
			return
		}
		for _, f := range files {
			if target, err := g.linkTarget(at, f); err == nil && target != "" {
				g.planFilesRead = append(g.planFilesRead, target)
			}
		}
	})
	return g.planFilesRead
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
	// The landed commits that name a task, found first: the landed
	// lists' trees are indexed only when one does (a list of many runs
	// asks this of every run's landed commits).
	var named []*gitcmd.LogEntry
	for _, l := range []struct {
		cs     []gitcmd.LogEntry
		shared bool
	}{{in.Landed, in.BaseShared}, {in.LandedDefault, true}} {
		for i := range l.cs {
			if c := &l.cs[i]; in.Names.NameLanded(c, l.shared).Task != "" {
				named = append(named, c)
			}
		}
	}
	lists := [][]gitcmd.LogEntry{in.Walk}
	if len(named) > 0 {
		lists = append(lists, in.Landed, in.LandedDefault)
	}
	trees := make(map[string]string, len(in.Trees)+len(in.Walk))
	for k, v := range in.Trees {
		trees[k] = v
	}
	for _, cs := range lists {
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
	pf := newPlanFiles(files)
	// The walk's commits that change the plan's directories (but
	// cherry-picked copies, which are no one's work), found along its
	// lines of commits; without a reader, all of them.
	var changing map[string]bool
	if objs != nil {
		var err error
		if changing, err = pf.walkChanging(objs, in.Walk, trees); err != nil {
			return nil, err
		}
	}
	for i := range in.Walk {
		if c := &in.Walk[i]; c.PickedFrom == "" && (objs == nil || changing[c.OID]) {
			add(c)
		}
	}
	for _, c := range named {
		add(c)
	}
	if len(cands) == 0 {
		return nil, nil
	}
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
	// First the plan's own directories, asked for at once in every tree
	// concerned: a commit that leaves them as they were changes no plan
	// file, and most commits do (no whole tree is read for them).
	cands, err := pf.touching(objs, cands, trees)
	if err != nil || len(cands) == 0 {
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

// walkChanging finds the commits of walk whose tree holds other objects at
// the plan's directories than their first parent's. It follows the walk's
// lines of first parents and compares the directories at both ends of a
// stretch, halving it where they differ: a line of thousands of commits
// that leave the plan alone costs two questions, not thousands. A stretch
// of eight commits or fewer is read commit by commit; in a longer one, an
// edit of the plan undone further up the same stretch is not seen.
func (pf *planFiles) walkChanging(objs *gitcmd.Objects, walk []gitcmd.LogEntry, trees map[string]string) (map[string]bool, error) {
	dirs := pf.dirsAt()
	keys := map[string]string{}
	// fetch reads the keys of trees not read yet, at once.
	fetch := func(ts []string) error {
		var ask, names []string
		for _, t := range ts {
			if _, ok := keys[t]; ok || t == "" {
				continue
			}
			keys[t] = "" // asked
			ask = append(ask, t)
			for _, d := range dirs {
				names = append(names, treePath(t, d))
			}
		}
		if len(ask) == 0 {
			return nil
		}
		ids, err := objs.GetManyIDs(names)
		if err != nil {
			return err
		}
		for i, t := range ask {
			// Never "": a tree's key.
			keys[t] = "\x00" + strings.Join(ids[i*len(dirs):(i+1)*len(dirs)], "\x00")
		}
		return nil
	}
	key := func(tree string) (string, error) {
		if tree == "" {
			return "", nil
		}
		if k, ok := keys[tree]; ok && k != "" {
			return k, nil
		}
		if err := fetch([]string{tree}); err != nil {
			return "", err
		}
		return keys[tree], nil
	}
	index := make(map[string]int, len(walk))
	for i, c := range walk {
		index[c.OID] = i
	}
	// The lines: their commits, newest first, then the tree below them.
	type lineOf struct {
		commits []int
		below   string
	}
	var lines []lineOf
	var short []string // the trees of short lines, read at once
	visited := make([]bool, len(walk))
	for start := range walk {
		if visited[start] {
			continue
		}
		var l lineOf
		for i := start; ; {
			visited[i] = true
			l.commits = append(l.commits, i)
			if len(walk[i].Parents) == 0 {
				break
			}
			p := walk[i].Parents[0]
			if j, ok := index[p]; ok && !visited[j] {
				i = j
				continue
			}
			l.below = trees[p]
			break
		}
		lines = append(lines, l)
		if len(l.commits) <= 8 {
			for _, i := range l.commits {
				short = append(short, walk[i].Tree)
			}
			short = append(short, l.below)
		}
	}
	if err := fetch(short); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range lines {
		line, below := l.commits, l.below
		treeAt := func(pos int) string {
			if pos == len(line) {
				return below
			}
			return walk[line[pos]].Tree
		}
		var stretch func(lo, hi int) error
		stretch = func(lo, hi int) error {
			if hi-lo <= 8 {
				for pos := lo; pos < hi; pos++ {
					a, err := key(treeAt(pos))
					if err != nil {
						return err
					}
					b, err := key(treeAt(pos + 1))
					if err != nil {
						return err
					}
					if a != b || b == "" {
						out[walk[line[pos]].OID] = true
					}
				}
				return nil
			}
			a, err := key(treeAt(lo))
			if err != nil {
				return err
			}
			b, err := key(treeAt(hi))
			if err != nil || a == b && b != "" {
				return err
			}
			mid := (lo + hi) / 2
			if err := stretch(lo, mid); err != nil {
				return err
			}
			return stretch(mid, hi)
		}
		if err := stretch(0, len(line)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// dirsAt are the directories that hold the plan's files ("" for the top).
func (pf *planFiles) dirsAt() []string {
	seen := map[string]bool{}
	var at []string
	for f := range pf.files {
		d := path.Dir(f)
		if d == "." {
			d = ""
		}
		if !seen[d] {
			seen[d] = true
			at = append(at, d)
		}
	}
	sort.Strings(at)
	return at
}

// treePath names the object at dir in tree (the tree itself for "").
func treePath(tree, dir string) string {
	if dir == "" {
		return tree
	}
	return tree + ":" + dir
}

// touching keeps the candidates whose tree holds other objects than their
// parent's at the plan's directories (the top one for a plan at the top):
// only they can change a plan file. A parent whose tree is not known yet
// keeps its candidate.
func (pf *planFiles) touching(objs *gitcmd.Objects, cands []*gitcmd.LogEntry, trees map[string]string) ([]*gitcmd.LogEntry, error) {
	at := pf.dirsAt()
	name := treePath
	index := map[string]int{}
	var ask []string
	want := func(tree string) {
		for _, d := range at {
			if n := name(tree, d); index[n] == 0 {
				ask = append(ask, n)
				index[n] = len(ask)
			}
		}
	}
	for _, c := range cands {
		want(c.Tree)
		if t := trees[c.Parents[0]]; t != "" {
			want(t)
		}
	}
	got, err := objs.GetManyIDs(ask)
	if err != nil {
		return nil, err
	}
	var out []*gitcmd.LogEntry
	for _, c := range cands {
		parent := trees[c.Parents[0]]
		if parent == "" {
			out = append(out, c)
			continue
		}
		for _, d := range at {
			if got[index[name(c.Tree, d)]-1] != got[index[name(parent, d)]-1] {
				out = append(out, c)
				break
			}
		}
	}
	return out, nil
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
