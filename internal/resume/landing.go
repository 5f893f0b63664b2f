package resume

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// defaultBranches are the branches other runs share, other than the base:
// the remote's HEAD, main, master, and origin's main and master (a fresh
// clone, or a remote added by hand, may have no origin/HEAD while an agent
// synced with origin/main). Names and commits, deduplicated by commit.
func defaultBranches(refs map[string]gitcmd.Ref, base BaseRef) (names, oids []string) {
	seen := map[string]bool{base.Commit: true}
	add := func(name, oid string) {
		if oid != "" && !seen[oid] && name != base.Ref {
			seen[oid] = true
			names, oids = append(names, name), append(oids, oid)
		}
	}
	if r, ok := refs["refs/remotes/origin/HEAD"]; ok && r.Symref != "" {
		add(strings.TrimPrefix(r.Symref, "refs/remotes/"), r.OID)
	}
	for _, ref := range []string{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"} {
		if r, ok := refs[ref]; ok && r.Type == "commit" {
			add(strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/remotes/"), r.OID)
		}
	}
	return names, oids
}

// runStart finds where the run started, which bounds every search for
// landing evidence: the commit that added the plan, when the base's tip
// has the plan (so the search for it stops at the run's own start, never
// walking the whole history); else the oldest merge-base of the run's tips
// and worktree HEADs with the base. why says, when there is no start, why
// landing evidence cannot be searched. near is how many commits below the
// base's tip the commit that added the plan is looked for in-process
// (addedNear) before git is asked. inProcess, when not nil, is called
// once what runStart reads through objs is done, before it starts a git
// process (the caller holds back other reads of objs until then).
func runStart(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, planPath string, base string, heads []string, near int, inProcess func()) (start, why string, fromPlan bool, err error) {
	s, err := findRunStart(ctx, repo, objs, planPath, base, heads, near, inProcess)
	return s.start, s.why, s.fromPlan, err
}

// runStartFound is what findRunStart found: runStart's answer, and when it
// is the commit that added the plan, the plan's changes from the base's tip
// back to it (newest first), where a re-plan is looked for.
type runStartFound struct {
	start, why string
	fromPlan   bool
	changes    []gitcmd.PathChange
}

// findRunStart is runStart, with the plan's history it read.
func findRunStart(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, planPath string, base string, heads []string, near int, inProcess func()) (runStartFound, error) {
	if inProcess == nil {
		inProcess = func() {}
	}
	inProcess = sync.OnceFunc(inProcess)
	defer inProcess()
	if planPath != "" {
		has := false
		if objs != nil {
			o, err := objs.Get(base + ":" + planPath)
			if err != nil {
				return runStartFound{}, err
			}
			has = o.Type == "blob"
		} else {
			_, err := repo.Run(ctx, "cat-file", "-e", "--end-of-options", base+":"+planPath)
			has = err == nil
		}
		if has {
			changes, err := planChanges(ctx, repo, objs, base, planPath, near, inProcess)
			if err != nil {
				return runStartFound{}, err
			}
			if n := len(changes); n > 0 && changes[n-1].Added {
				return runStartFound{start: changes[n-1].Commit, fromPlan: true, changes: changes}, nil
			}
		}
	}
	inProcess()
	var revs []string
	seen := map[string]bool{base: true}
	for _, h := range heads {
		if h != "" && !seen[h] {
			seen[h] = true
			revs = append(revs, h)
		}
	}
	if len(revs) == 0 {
		return runStartFound{why: "the base's history does not hold the plan and the run has no branch or worktree to date its start by, so landed work cannot be searched for"}, nil
	}
	// The oldest merge-base of each tip with the base is the common
	// ancestor of all of them with it.
	mb, err := repo.MergeBaseAll(ctx, append([]string{base}, revs...))
	if err != nil {
		return runStartFound{}, err
	}
	if mb == "" {
		return runStartFound{why: "the run's branches share no history with the base, so landed work cannot be searched for"}, nil
	}
	return runStartFound{start: mb}, nil
}

// planChanges lists the commits that changed the plan at path, newest
// first, from rev (which holds it) back to the commit that added it:
// through the running reader when that commit is near rev on a line of
// single-parent commits, else from git. inProcess is called before git
// is asked.
func planChanges(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, rev, path string, near int, inProcess func()) ([]gitcmd.PathChange, error) {
	if objs != nil && !grafted(repo) {
		changes, ok, err := planChangesNear(objs, rev, path, max(near, 1))
		if err != nil || ok {
			return changes, err
		}
	}
	inProcess()
	return repo.PathChanges(ctx, rev, path)
}

// addedNearLimit bounds the commits addedNear reads before it leaves the
// question to git, on the run's own <run>-main, where the plan's commit is
// the first and only the run's work is above it: it saves a process where
// the plan was added a few commits below the tip, and costs little (two
// round trips a commit) where it gives up. On a shared base (main) the
// plan is mostly far below, with other work above it: only the tip is
// read there.
const addedNearLimit = 32

// addedNear answers `git log -1 --diff-filter=A rev -- path` through the
// running reader where the answer is near rev (planChangesNear).
func addedNear(objs *gitcmd.Objects, rev, path string, limit int) (added string, ok bool, err error) {
	changes, ok, err := planChangesNear(objs, rev, path, limit)
	if !ok || err != nil || len(changes) == 0 {
		return "", false, err
	}
	return changes[len(changes)-1].Commit, true, nil
}

// planChangesNear answers `git log rev -- path` back to the newest commit
// that added path, through the running reader, where that commit is near
// rev on a line of single-parent commits: walking back from rev (which
// holds path as a file), each commit whose parent holds another blob there
// changed it, and the first whose parent does not hold it added it. On such
// a line git's path-limited walk visits the same commits, and the diff
// against the one parent is what it reads. ok is false, and git is to be
// asked, at a merge below the tip, a submodule where the plan was, or past
// limit commits. A merge at the tip that none of its parents holds the
// plan in added it (a <run>-main whose first commit merged the plan in).
func planChangesNear(objs *gitcmd.Objects, rev, path string, limit int) (changes []gitcmd.PathChange, ok bool, err error) {
	o, err := objs.Get(rev + ":" + path)
	if err != nil || o.Type != "blob" {
		return nil, false, err
	}
	c, blob := rev, o.OID
	for step := 0; step < limit; step++ {
		e, found, err := objs.Commit(c)
		if err != nil || !found {
			return nil, false, err
		}
		if len(e.Parents) == 0 {
			return append(changes, gitcmd.PathChange{Commit: c, Blob: blob, Added: true}), true, nil // a root commit adds what it holds
		}
		if len(e.Parents) > 1 && step > 0 {
			return nil, false, nil
		}
		next, nextBlob := "", ""
		for _, parent := range e.Parents {
			o, err := objs.Get(parent + ":" + path)
			if err != nil {
				return nil, false, err
			}
			switch o.Type {
			case "blob":
				next, nextBlob = parent, o.OID
			case "tree":
				// A directory there: the file is added beside its removal.
			case "":
				// Absent, or a submodule's commit this repository
				// lacks: only the tree entry tells (a submodule
				// turned file is a type change, not an addition).
				sub, err := gitlinkAt(objs, parent, path)
				if err != nil || sub {
					return nil, false, err
				}
			default:
				return nil, false, nil // a submodule's commit
			}
			if next != "" {
				break
			}
		}
		if next == "" {
			return append(changes, gitcmd.PathChange{Commit: c, Blob: blob, Added: true}), true, nil
		}
		if len(e.Parents) > 1 {
			return nil, false, nil
		}
		if nextBlob != blob {
			changes = append(changes, gitcmd.PathChange{Commit: c, Blob: blob})
		}
		c, blob = next, nextBlob
	}
	return nil, false, nil
}

// gitlinkAt says whether commit's tree has a submodule at path.
func gitlinkAt(objs *gitcmd.Objects, commit, path string) (bool, error) {
	e, ok, err := entryAt(objs, commit, path)
	return ok && e.Mode == "160000", err
}

// entryAt is the tree entry at path in commit's tree (ok false when there
// is none): its mode tells a file from a link or a submodule.
func entryAt(objs *gitcmd.Objects, commit, path string) (e gitcmd.TreeEntry, ok bool, err error) {
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	tree := commit + "^{tree}"
	if dir != "" {
		tree = commit + ":" + dir
	}
	entries, err := objs.Tree(tree)
	if err != nil {
		return gitcmd.TreeEntry{}, false, err
	}
	for _, e := range entries {
		if e.Name == name {
			return e, true, nil
		}
	}
	return gitcmd.TreeEntry{}, false, nil
}

// grafted says whether the repository has a grafts file, which changes
// commits' parents for git's walks but not in the objects the reader shows.
func grafted(repo *gitcmd.Repo) bool {
	if repo.CommonDir == "" {
		return true
	}
	_, err := os.Stat(filepath.Join(repo.CommonDir, "info", "grafts"))
	return err == nil
}

// allHoldStart reports whether the history read shows every branch
// holding start, the commit that added the plan, so that no `for-each-ref
// --contains` is needed. A branch holds it when every way out of the walk
// from its tip (or its tip itself, when the walk does not hold it) is a
// commit that reaches start among landed, the base's commits since start
// (start included): a path from a commit down to start runs through
// commits that are start's descendants, all of which landed holds when the
// commit is the base's. false means "not shown", never "not held".
func allHoldStart(walk []gitcmd.LogEntry, bs []branches.Branch, start string, landed []gitcmd.LogEntry) bool {
	in := make(map[string]bool, len(walk))
	for _, c := range walk {
		in[c.OID] = true
	}
	holds := holdingCommit(start, landed)
	for _, b := range bs {
		if !in[b.OID] && !holds[b.OID] {
			return false
		}
	}
	for _, c := range walk {
		for _, p := range c.Parents {
			if !in[p] && !holds[p] {
				return false
			}
		}
	}
	return true
}

// madeBeforePlan names the branches made before the commit that added the
// plan, or that last re-planned it: they do not hold that commit, and the
// plan they hold (if any) is none of the versions at the known revisions
// (that commit's, and the base's unless the base holds the earlier plan).
// A branch that holds a rebased copy of the run's history holds the same
// plan, and stays the run's. nil when the question was not asked (the
// start is not the plan's commit, or the plan was given by --plan).
func madeBeforePlan(objs *gitcmd.Objects, bs []branches.Branch, holding map[string]bool, planPath string, known []string) (map[string]bool, error) {
	if holding == nil || objs == nil || planPath == "" {
		return nil, nil
	}
	blob := func(rev string) (string, error) {
		o, err := objs.Get(rev + ":" + planPath)
		if err != nil || o.Type != "blob" {
			return "", err
		}
		return o.OID, nil
	}
	plans := map[string]bool{}
	for _, rev := range known {
		id, err := blob(rev)
		if err != nil {
			return nil, err
		}
		if id != "" {
			plans[id] = true
		}
	}
	before := map[string]bool{}
	for _, b := range bs {
		if holding[b.Ref] {
			continue
		}
		id, err := blob(b.OID)
		if err != nil {
			return nil, err
		}
		if !plans[id] || id == "" {
			before[b.Name] = true
		}
	}
	return before, nil
}
