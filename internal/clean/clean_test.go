// Tests of git-taskclean against real repositories, through the real binary
// reached by git's dispatch (`git taskclean ...`), as a user runs it.
package clean_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestCleanRecoversExample is the example of the reference document: after
// the crash, a clean removes exactly the worktrees of the unfinished tasks,
// keeps every branch, saves every uncommitted byte, says which ignored files
// go unsaved, and --undo prints a command that brings the work back exactly.
func TestCleanRecoversExample(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	before := heads(t, s.root)

	out := mustClean(t, s.root, "--run", run)

	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s still exists after the clean", d.path)
		}
		if registered(t, s, d.path) {
			t.Errorf("%s still in git worktree list", d.path)
		}
		if testbin.Exists(filepath.Join(s.root, ".git", "worktrees", d.name)) {
			t.Errorf("admin entry .git/worktrees/%s left behind", d.name)
		}
	}
	for _, keep := range []string{wtMain, wt21} {
		if !testbin.Exists(s.wt(keep)) || !registered(t, s, s.wt(keep)) {
			t.Errorf("worktree %s was removed; only the stale 2.2 and 2.3 may go", keep)
		}
	}
	if got := len(worktrees(t, s.root)); got != 3 {
		t.Errorf("%d worktrees after the clean, want 3 (main, %s, %s)", got, wtMain, wt21)
	}
	if after := heads(t, s.root); !reflect.DeepEqual(after, before) {
		t.Errorf("branches changed:\n%s", strings.Join(diffMaps(before, after), "\n"))
	}

	saved := savedRefs(t, s.root)
	if len(saved) != 4 {
		t.Errorf("saved refs %v, want exactly the two dirty worktrees and their ignored build.log", saved)
	}
	for _, d := range s.dirty {
		rs := savedFor(saved, "worktree", d.name)
		if len(rs) != 1 {
			t.Errorf("saved refs for %s: %v, want one", d.name, rs)
			continue
		}
		if err := savedContentErr(t, s.root, rs[0], d); err != nil {
			t.Error(err)
		}
		rel := s.rel(d.name)
		if _, ok := lineWith(out, "save worktree "+rel, rs[0]); !ok {
			t.Errorf("output does not say that %s was saved as %s:\n%s", rel, rs[0], out)
		}
		if _, ok := lineWith(out, "remove worktree "+rel); !ok {
			t.Errorf("output has no line removing %s:\n%s", rel, out)
		}
		if _, ok := lineWith(out, "save 1 ignored file of "+rel); !ok {
			t.Errorf("output does not say that the ignored build.log of %s was saved:\n%s", rel, out)
		}
	}
	if !strings.Contains(out, "git taskclean --run "+run+" --undo") {
		t.Errorf("output does not say how to undo:\n%s", out)
	}

	undo := mustClean(t, s.root, "--run", run, "--undo")
	cmds := restoreCommands(undo)
	for _, d := range s.dirty {
		cmd, ok := cmds[d.path]
		if !ok {
			t.Errorf("--undo prints no restore command for %s:\n%s", d.path, undo)
			continue
		}
		sh(t, s.root, cmd)
		if err := intactErr(t, s, d, false); err != nil {
			t.Errorf("after %s:\n%v", cmd, err)
		}
		if !testbin.Exists(filepath.Join(d.path, "build.log")) {
			t.Errorf("the ignored build.log was saved but did not come back")
		}
	}
	if after := heads(t, s.root); !reflect.DeepEqual(after, before) {
		t.Errorf("--undo changed branches:\n%s", strings.Join(diffMaps(before, after), "\n"))
	}
}

// TestCleanSavesDetachedCommits: a crashed agent committed on a detached
// HEAD and never made a branch. Removing its (clean) worktree must not orphan
// those commits: they stay reachable from refs/taskclean.
func TestCleanSavesDetachedCommits(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	w := s.wt(wt23)
	gitIn(t, w, "", "add", "--", "src")
	gitIn(t, w, "", "commit", "-q", "-m", "wip 2.3: order service")
	gitIn(t, w, "", "add", "-A")
	gitIn(t, w, "", "commit", "-q", "-m", "wip 2.3: notes")
	orphans := strings.Fields(gitIn(t, w, "", "rev-parse", "HEAD", "HEAD~1"))
	if st := git(t, w, "status", "--porcelain"); st != "" {
		t.Fatalf("setup: %s should be clean apart from ignored files:\n%s", w, st)
	}
	if r := reachableFromRefs(t, s.root, orphans); len(r) != 0 {
		t.Fatalf("setup: the wip commits are already on a ref")
	}

	out := mustClean(t, s.root, "--run", run)

	if testbin.Exists(w) {
		t.Fatalf("%s still exists: a detached, clean worktree of an unfinished task is stale", w)
	}
	fsck := git(t, s.root, "fsck", "--unreachable", "--no-reflogs")
	for _, c := range orphans {
		if strings.Contains(fsck, c) {
			t.Errorf("commit %s is unreachable after the clean (git fsck --unreachable):\n%s", c, fsck)
		}
		if got := strings.TrimSpace(git(t, s.root, "for-each-ref", "--contains", c, "--format=%(refname)", "refs/taskclean/")); got == "" {
			t.Errorf("no refs/taskclean ref contains %s", c)
		}
	}
	refs := savedFor(savedRefs(t, s.root), "worktree", wt23)
	if len(refs) != 1 {
		t.Fatalf("saved refs for %s: %v, want one", wt23, refs)
	}
	if first := strings.TrimSpace(git(t, s.root, "rev-parse", refs[0]+"^1")); first != orphans[0] {
		t.Errorf("%s^1 = %s, want the detached HEAD %s", refs[0], first, orphans[0])
	}
	if _, ok := lineWith(out, "save worktree "+s.rel(wt23), refs[0]); !ok {
		t.Errorf("output does not name the save of %s:\n%s", wt23, out)
	}

	// The printed command brings the worktree back at the saved HEAD.
	cmd, ok := restoreCommands(mustClean(t, s.root, "--run", run, "--undo"))[w]
	if !ok {
		t.Fatalf("--undo prints no restore command for %s", w)
	}
	sh(t, s.root, cmd)
	if head := strings.TrimSpace(git(t, w, "rev-parse", "HEAD")); head != orphans[0] {
		t.Errorf("restored %s at %s, want %s", w, head, orphans[0])
	}
	if b, err := os.ReadFile(filepath.Join(w, "NOTES.md")); err != nil || string(b) != s.dirtyByName(wt23).untracked["NOTES.md"] {
		t.Errorf("restored NOTES.md = %q, %v", b, err)
	}
}

// TestCleanTaskAndUndo: --task 2.1 forces re-execution (branch and worktree
// go, the tip is saved); --undo puts the branch back at the same commit; a
// second --undo changes nothing and says so.
func TestCleanTaskAndUndo(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	before := heads(t, s.root)

	out := mustClean(t, s.root, "--run", run, "--task", "2.1")

	after := heads(t, s.root)
	if _, ok := after[branch21]; ok {
		t.Errorf("branch %s survived --task 2.1", branch21)
	}
	want := map[string]string{}
	for k, v := range before {
		if k != branch21 {
			want[k] = v
		}
	}
	if !reflect.DeepEqual(after, want) {
		t.Errorf("--task 2.1 touched other branches:\n%s", strings.Join(diffMaps(want, after), "\n"))
	}
	if testbin.Exists(s.wt(wt21)) || registered(t, s, s.wt(wt21)) {
		t.Errorf("the worktree of 2.1 survived --task 2.1")
	}
	for _, d := range s.dirty {
		if err := intactErr(t, s, d, true); err != nil {
			t.Errorf("--task 2.1 touched another task's worktree: %v", err)
		}
	}
	saved := savedFor(savedRefs(t, s.root), "branch", branch21)
	if len(saved) != 1 || savedRefs(t, s.root)[saved[0]] != before[branch21] {
		t.Errorf("saved branch refs %v, want one at %s", saved, before[branch21])
	}
	for _, l := range []string{"save branch " + branch21, "delete branch " + branch21, "remove worktree " + s.rel(wt21)} {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q:\n%s", l, out)
		}
	}

	undo := mustClean(t, s.root, "--run", run, "--undo")
	if got := heads(t, s.root); !reflect.DeepEqual(got, before) {
		t.Errorf("after --undo the branches differ from before the clean:\n%s", strings.Join(diffMaps(before, got), "\n"))
	}
	if !strings.Contains(undo, "restore branch "+branch21) {
		t.Errorf("--undo output does not name the restored branch:\n%s", undo)
	}

	allBefore := refs(t, s.root)
	r := testbin.Taskclean(s.root, nil, "--run", run, "--undo")
	if r.Code != 0 {
		t.Fatalf("second --undo: exit %d: %s", r.Code, r.Stderr)
	}
	if l, ok := lineWith(r.Stdout, branch21); !ok || !strings.Contains(l, "already restored") {
		t.Errorf("second --undo does not say %s is already restored:\n%s", branch21, r.Stdout)
	}
	if got := refs(t, s.root); !reflect.DeepEqual(got, allBefore) {
		t.Errorf("second --undo changed refs:\n%s", strings.Join(diffMaps(allBefore, got), "\n"))
	}
}

// TestCleanAll: --all removes every branch and worktree of the run, and
// nothing of runs whose names merely start alike.
func TestCleanAll(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// Another run sharing the prefix, and an unrelated one.
	gitIn(t, s.root, "", "branch", "x1y2z3x-task-1-1-a", s.p2)
	gitIn(t, s.root, "", "branch", "ab-task-1-1-b", s.p2)
	other1, other2 := s.wt("x1y2z3x-task-1-1"), s.wt("ab-task-1-1")
	gitIn(t, s.root, "", "worktree", "add", "-q", other1, "x1y2z3x-task-1-1-a")
	gitIn(t, s.root, "", "worktree", "add", "-q", "--detach", other2, s.p2)
	writeFiles(t, other1, map[string]string{"other.txt": "other run's work\n"})
	writeFiles(t, other2, map[string]string{"ab.txt": "ab's work\n"})
	before := heads(t, s.root)

	out := mustClean(t, s.root, "--run", run, "--all")

	want := map[string]string{"main": before["main"], "x1y2z3x-task-1-1-a": before["x1y2z3x-task-1-1-a"], "ab-task-1-1-b": before["ab-task-1-1-b"]}
	if got := heads(t, s.root); !reflect.DeepEqual(got, want) {
		t.Errorf("branches after --all:\n%s", strings.Join(diffMaps(want, got), "\n"))
	}
	var paths []string
	for _, w := range worktrees(t, s.root) {
		paths = append(paths, w.path)
	}
	sort.Strings(paths)
	wantPaths := []string{s.root, other2, other1}
	sort.Strings(wantPaths)
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("worktrees after --all: %q, want %q", paths, wantPaths)
	}
	for _, name := range []string{wtMain, wt21, wt22, wt23} {
		if testbin.Exists(s.wt(name)) {
			t.Errorf("%s still exists after --all", name)
		}
	}
	for p, c := range map[string]string{filepath.Join(other1, "other.txt"): "other run's work\n", filepath.Join(other2, "ab.txt"): "ab's work\n"} {
		if b, err := os.ReadFile(p); err != nil || string(b) != c {
			t.Errorf("another run's file %s: %q, %v", p, b, err)
		}
	}

	saved := savedRefs(t, s.root)
	for _, b := range []string{branchMain, branch11, branch12, branch21} {
		refs := savedFor(saved, "branch", b)
		if len(refs) != 1 || saved[refs[0]] != before[b] {
			t.Errorf("saved refs of branch %s: %v, want one at %s", b, refs, before[b])
		}
		if !strings.Contains(out, "delete branch "+b) {
			t.Errorf("output does not say it deleted %s", b)
		}
	}
	for _, d := range s.dirty {
		if _, err := savedSomewhere(t, s, d); err != nil {
			t.Error(err)
		}
	}
	for ref := range saved {
		if strings.Contains(ref, "x1y2z3x") || strings.Contains(ref, "ab-task") {
			t.Errorf("another run's branch was saved (so taken for this run's): %s", ref)
		}
	}
	var tips []string
	for _, oid := range before {
		tips = append(tips, oid)
	}
	reach := reachableFromRefs(t, s.root, tips)
	for name, oid := range before {
		if !reach[oid] {
			t.Errorf("tip of %s (%s) is reachable from no ref", name, oid)
		}
	}
}

// repoState is everything a dry run must leave as it was.
type repoState struct {
	refs      map[string]string
	worktrees string
	status    map[string]string
	files     map[string]string
}

func stateOf(t *testing.T, s *scenario) repoState {
	t.Helper()
	st := repoState{refs: refs(t, s.root), worktrees: git(t, s.root, "worktree", "list", "--porcelain"), status: map[string]string{}}
	for _, w := range worktrees(t, s.root) {
		st.status[w.path] = git(t, w.path, "status", "--porcelain", "--untracked-files=all", "--ignored")
	}
	st.files = treeHash(t, s.root)
	return st
}

var stampRE = regexp.MustCompile(`[0-9]{8}T[0-9]{6}\.[0-9]{9}Z`)

// actionLines are the lines of a clean's output that name actions, with the
// stamp replaced, so that a dry run can be compared with the real run.
func actionLines(out string) []string {
	var res []string
	for _, l := range lines(out) {
		l = strings.TrimPrefix(l, "would ")
		for _, verb := range []string{"save ", "remove ", "prune ", "delete ", "skip "} {
			if strings.HasPrefix(l, verb) {
				res = append(res, stampRE.ReplaceAllString(l, "STAMP"))
			}
		}
	}
	sort.Strings(res)
	return res
}

// TestDryRunChangesNothing: -n/--dry-run prints what it would do, every line
// saying "would", and changes no ref, worktree, file or lock; what it prints
// is what the real clean then does.
func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	before := stateOf(t, s)
	dry := map[string]string{}
	for _, args := range [][]string{
		{"--dry-run"}, {"-n"}, {"--all", "-n"}, {"--task", "2.1", "--dry-run"},
	} {
		name := strings.Join(args, " ")
		out := mustClean(t, s.root, append([]string{"--run", run}, args...)...)
		dry[name] = out
		ls := lines(out)
		if len(ls) == 0 {
			t.Errorf("%s: no output", name)
		}
		for _, l := range ls {
			if !strings.HasPrefix(l, "would ") {
				t.Errorf("%s: output line does not start with \"would \": %q", name, l)
			}
		}
		after := stateOf(t, s)
		if d := diffMaps(before.refs, after.refs); len(d) > 0 {
			t.Errorf("%s changed refs:\n%s", name, strings.Join(d, "\n"))
		}
		if before.worktrees != after.worktrees {
			t.Errorf("%s changed git worktree list:\n%s\nwas:\n%s", name, after.worktrees, before.worktrees)
		}
		if d := diffMaps(before.status, after.status); len(d) > 0 {
			t.Errorf("%s changed a worktree's status:\n%s", name, strings.Join(d, "\n"))
		}
		if d := diffMaps(before.files, after.files); len(d) > 0 {
			t.Errorf("%s changed files:\n%s", name, strings.Join(d, "\n"))
		}
		if len(savedRefs(t, s.root)) > 0 || testbin.Exists(lockFile(t, s)) {
			t.Errorf("%s saved refs or took the lock", name)
		}
	}
	if !strings.Contains(dry["--dry-run"], "would save worktree "+s.rel(wt22)) ||
		!strings.Contains(dry["--all -n"], "would delete branch "+branchMain) {
		t.Errorf("dry runs do not list the actions:\n%s\n%s", dry["--dry-run"], dry["--all -n"])
	}

	did := mustClean(t, s.root, "--run", run)
	if got, want := actionLines(did), actionLines(dry["--dry-run"]); !reflect.DeepEqual(got, want) {
		t.Errorf("the clean did other than its dry run said:\ndid:\n%s\nsaid:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCleanLockedWorktree: a locked worktree of an unfinished task is left in
// place, and the output says so and why.
func TestCleanLockedWorktree(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	d22 := s.dirtyByName(wt22)
	gitIn(t, s.root, "", "worktree", "lock", "--reason", "agent busy", d22.path)

	out := mustClean(t, s.root, "--run", run)

	if err := intactErr(t, s, d22, true); err != nil {
		t.Errorf("locked worktree touched: %v", err)
	}
	if testbin.Exists(s.wt(wt23)) {
		t.Errorf("the unlocked stale %s was not removed", wt23)
	}
	l, ok := lineWith(out, s.rel(wt22))
	if !ok || !strings.Contains(l, "skip") || !strings.Contains(l, "agent busy") {
		t.Errorf("output does not report skipping the locked %s with its reason %q:\n%s", wt22, "agent busy", out)
	}
}

// TestCleanMissingDirectory: a worktree whose directory was deleted is
// pruned: its admin entry goes.
func TestCleanMissingDirectory(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	if err := os.RemoveAll(s.wt(wt23)); err != nil {
		t.Fatal(err)
	}
	out := mustClean(t, s.root, "--run", run)
	if _, ok := lineWith(out, "prune worktree "+s.rel(wt23)); !ok {
		t.Errorf("output does not say it pruned %s:\n%s", wt23, out)
	}
	if registered(t, s, s.wt(wt23)) || testbin.Exists(filepath.Join(s.root, ".git", "worktrees", wt23)) {
		t.Errorf("admin entry of the missing %s is still there", wt23)
	}
	if testbin.Exists(s.wt(wt22)) {
		t.Errorf("%s not removed", wt22)
	}
	if _, err := savedSomewhere(t, s, s.dirtyByName(wt22)); err != nil {
		t.Error(err)
	}
}

// TestCleanPathWithSpaces: task worktrees under a folder with a space
// (taskresume.worktreeDir) are cleaned and saved, and the printed restore
// command quotes the path correctly.
func TestCleanPathWithSpaces(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{wtDir: "my worktrees"})
	before := heads(t, s.root)
	out := mustClean(t, s.root, "--run", run)
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s not removed", d.path)
		}
		if _, err := savedSomewhere(t, s, d); err != nil {
			t.Error(err)
		}
		if _, ok := lineWith(out, "remove worktree "+s.rel(d.name)); !ok {
			t.Errorf("output does not name %q:\n%s", s.rel(d.name), out)
		}
	}
	if !testbin.Exists(s.wt(wt21)) || !testbin.Exists(s.wt(wtMain)) {
		t.Errorf("complete task's or run's own worktree removed")
	}
	if got := heads(t, s.root); !reflect.DeepEqual(got, before) {
		t.Errorf("branches changed:\n%s", strings.Join(diffMaps(before, got), "\n"))
	}
	cmds := restoreCommands(mustClean(t, s.root, "--run", run, "--undo"))
	for _, d := range s.dirty {
		cmd, ok := cmds[d.path]
		if !ok {
			t.Errorf("no restore command for %q", d.path)
			continue
		}
		sh(t, s.root, cmd)
		if err := intactErr(t, s, d, false); err != nil {
			t.Errorf("after %s: %v", cmd, err)
		}
	}
}

// TestCleanOlderThan: --older-than leaves worktrees changed recently (an agent
// may still be at work) and says why; older stale ones go. A change time
// cannot be set back, so "older" is made by waiting: everything is written,
// the test waits past the limit, then touches one file of wt22.
func TestCleanOlderThan(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	time.Sleep(5 * time.Second)
	now := time.Now()
	for f := range s.dirtyByName(wt22).untracked {
		if err := os.Chtimes(filepath.Join(s.wt(wt22), f), now, now); err != nil {
			t.Fatal(err)
		}
		break
	}

	out := mustClean(t, s.root, "--run", run, "--older-than", "4s")

	if err := intactErr(t, s, s.dirtyByName(wt22), true); err != nil {
		t.Errorf("fresh worktree touched: %v", err)
	}
	l, ok := lineWith(out, s.rel(wt22))
	if !ok || !strings.Contains(l, "skip") || !strings.Contains(l, "--older-than") {
		t.Errorf("output does not say why the fresh %s stays:\n%s", wt22, out)
	}
	if testbin.Exists(s.wt(wt23)) {
		t.Errorf("%s (unchanged for 5s) was not removed with --older-than 4s:\n%s", wt23, out)
	}
	if _, err := savedSomewhere(t, s, s.dirtyByName(wt23)); err != nil {
		t.Error(err)
	}
}

// finalState is what a clean leaves, comparable between repositories.
type finalState struct {
	heads     map[string]string
	worktrees []string
	// work: worktree name -> "intact" or "saved"; branches: name -> "kept"
	// or "saved" (at the original tip).
	work     map[string]string
	branches map[string]string
}

func finalOf(t *testing.T, s *scenario) (finalState, []string) {
	t.Helper()
	var problems []string
	all := refs(t, s.root)
	wts := worktrees(t, s.root)
	f := finalState{heads: map[string]string{}, worktrees: worktreeSummary(s, wts), work: map[string]string{}, branches: map[string]string{}}
	saved := map[string]string{}
	for name, oid := range all {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			f.heads[b] = oid
		}
		if strings.HasPrefix(name, "refs/taskclean/"+run+"/") {
			saved[name] = oid
		}
	}
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			if err := intactErrIn(t, wts, d, true); err != nil {
				problems = append(problems, err.Error())
				f.work[d.name] = "damaged"
			} else {
				f.work[d.name] = "intact"
			}
			continue
		}
		if _, err := savedIn(t, s, saved, d); err != nil {
			problems = append(problems, "LOST: "+err.Error())
			f.work[d.name] = "lost"
		} else {
			f.work[d.name] = "saved"
		}
	}
	var tips []string
	for _, oid := range s.tips {
		tips = append(tips, oid)
	}
	reach := reachableFrom(t, s.root, all, tips)
	for b, oid := range s.tips {
		if !reach[oid] {
			problems = append(problems, fmt.Sprintf("LOST: tip of %s (%s) is on no ref", b, oid))
		}
		if f.heads[b] == oid {
			f.branches[b] = "kept"
			continue
		}
		f.branches[b] = "gone"
		for _, ref := range savedFor(saved, "branch", b) {
			if saved[ref] == oid {
				f.branches[b] = "saved"
			}
		}
	}
	return f, problems
}

func compareFinal(t *testing.T, what string, got, want finalState) {
	t.Helper()
	if !reflect.DeepEqual(got.heads, want.heads) {
		t.Errorf("%s: branches differ from a clean that never crashed:\n%s", what, strings.Join(diffMaps(want.heads, got.heads), "\n"))
	}
	if !reflect.DeepEqual(got.worktrees, want.worktrees) {
		t.Errorf("%s: worktrees %q, want %q", what, got.worktrees, want.worktrees)
	}
	if !reflect.DeepEqual(got.work, want.work) {
		t.Errorf("%s: worktree contents %v, want %v", what, got.work, want.work)
	}
	if !reflect.DeepEqual(got.branches, want.branches) {
		t.Errorf("%s: branches %v, want %v", what, got.branches, want.branches)
	}
}

// TestCrashSafety kills the clean right after each of its changes to the
// repository in turn (GIT_TASKCLEAN_CRASH_AFTER=k). After every crash nothing
// is lost: each branch tip is on some ref, and each dirty worktree is either
// intact or saved; a rerun then finishes the job and leaves what a clean that
// never crashed leaves.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"task", []string{"--task", "2.1"}},
		{"all", []string{"--all"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--run", run}, mode.args...)
			type rerun struct {
				k     int
				state finalState
			}
			var reruns []rerun
			var want finalState
			n := 0
			for k := 1; ; k++ {
				if k > 40 {
					t.Fatalf("still crashing at k=%d: the seam counts more changes than a clean can make", k)
				}
				s := newScenario(t, scenarioOpts{})
				r := testbin.Taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_AFTER=" + strconv.Itoa(k)}, args...)
				if r.Code == 0 {
					// k is past the last change: this is a clean that never
					// crashed, the reference for the reruns.
					var problems []string
					want, problems = finalOf(t, s)
					for _, p := range problems {
						t.Errorf("a clean that never crashed: %s", p)
					}
					break
				}
				if r.Code != 99 {
					t.Fatalf("k=%d: exit %d, want 99 (crash) or 0\n%s%s", k, r.Code, r.Stdout, r.Stderr)
				}
				n = k
				_, problems := finalOf(t, s)
				for _, p := range problems {
					t.Errorf("after a crash at change %d: %s", k, p)
				}
				if fsck := testbin.Run(s.root, nil, "git", "fsck", "--no-progress"); fsck.Code != 0 {
					t.Errorf("after a crash at change %d: git fsck exit %d: %s", k, fsck.Code, fsck.Stderr)
				}
				again := testbin.Taskclean(s.root, nil, args...)
				if again.Code != 0 {
					t.Errorf("rerun after a crash at change %d: exit %d\n%s%s", k, again.Code, again.Stdout, again.Stderr)
					continue
				}
				got, problems := finalOf(t, s)
				for _, p := range problems {
					t.Errorf("rerun after a crash at change %d: %s", k, p)
				}
				reruns = append(reruns, rerun{k, got})
			}
			for _, r := range reruns {
				compareFinal(t, fmt.Sprintf("rerun after a crash at change %d", r.k), r.state, want)
			}
			if n < 2 {
				t.Errorf("the clean made %d change(s); the save and the removal must be separate changes", n)
			}
			t.Logf("%s: a full clean makes %d changes; crashed after each", mode.name, n)
		})
	}
}

// TestConcurrentCleans starts four cleans of one run at once: one does the
// work, the others either find nothing left or are refused by the lock with a
// message naming it; nothing is lost and the repository stays sound.
func TestConcurrentCleans(t *testing.T) {
	t.Parallel()
	for rep := 0; rep < 5; rep++ {
		s := newScenario(t, scenarioOpts{})
		before := heads(t, s.root)
		type proc struct {
			cmd            *exec.Cmd
			stdout, stderr bytes.Buffer
		}
		procs := make([]*proc, 4)
		for i := range procs {
			p := &proc{cmd: exec.Command("git", "taskclean", "--run", run)}
			p.cmd.Dir = s.root
			p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
			procs[i] = p
		}
		for _, p := range procs {
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		ok := 0
		for i, p := range procs {
			err := p.cmd.Wait()
			code := 0
			if ee, isExit := err.(*exec.ExitError); isExit {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			switch {
			case code == 0:
				ok++
			case code == 2 && strings.Contains(p.stderr.String(), "another git taskclean"):
			default:
				t.Errorf("rep %d, process %d: exit %d; want 0, or 2 with \"another git taskclean\" on stderr\nstdout:\n%s\nstderr:\n%s",
					rep, i, code, p.stdout.String(), p.stderr.String())
			}
		}
		if ok == 0 {
			t.Errorf("rep %d: no clean succeeded", rep)
		}
		for _, d := range s.dirty {
			if testbin.Exists(d.path) || registered(t, s, d.path) {
				t.Errorf("rep %d: %s still there", rep, d.name)
			}
			if _, err := savedSomewhere(t, s, d); err != nil {
				t.Errorf("rep %d: %v", rep, err)
			}
		}
		if got := heads(t, s.root); !reflect.DeepEqual(got, before) {
			t.Errorf("rep %d: branches changed:\n%s", rep, strings.Join(diffMaps(before, got), "\n"))
		}
		if fsck := testbin.Run(s.root, nil, "git", "fsck", "--no-progress"); fsck.Code != 0 {
			t.Errorf("rep %d: git fsck exit %d: %s", rep, fsck.Code, fsck.Stderr)
		}
	}
}

// TestBadInput: mistakes exit 2 with one "error:" line and change nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	beforeRefs := refs(t, s.root)
	beforeWts := git(t, s.root, "worktree", "list", "--porcelain")
	for _, c := range []struct {
		args []string
		says string // a word the message must hold, so it names what to fix
	}{
		{nil, "--run"},
		{[]string{"--run", ".."}, ".."},
		{[]string{"--run", "--upload-pack=x"}, "upload-pack"},
		{[]string{"--run", run, "--task", "9.9"}, "9.9"},
		{[]string{"--run", run, "--undo"}, "undo"},
		{[]string{"--run", "nosuchrun"}, "nosuchrun"},
		{[]string{"--run", run, "--all", "--task", "2.1"}, "--all"},
		{[]string{"--run", run, "stray"}, "stray"},
	} {
		name := strings.Join(c.args, " ")
		r := testbin.Taskclean(s.root, nil, c.args...)
		if r.Code != 2 {
			t.Errorf("git taskclean %s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", name, r.Code, r.Stdout, r.Stderr)
		}
		if !strings.HasPrefix(r.Stderr, "error: ") || strings.Count(r.Stderr, "\n") != 1 || !strings.HasSuffix(r.Stderr, "\n") {
			t.Errorf("git taskclean %s: stderr is not one \"error:\" line: %q", name, r.Stderr)
		}
		if !strings.Contains(r.Stderr, c.says) {
			t.Errorf("git taskclean %s: message %q does not name %q", name, r.Stderr, c.says)
		}
		if r.Stdout != "" {
			t.Errorf("git taskclean %s: wrote to stdout on error: %q", name, r.Stdout)
		}
		if got := refs(t, s.root); !reflect.DeepEqual(got, beforeRefs) {
			t.Errorf("git taskclean %s changed refs:\n%s", name, strings.Join(diffMaps(beforeRefs, got), "\n"))
		}
		if got := git(t, s.root, "worktree", "list", "--porcelain"); got != beforeWts {
			t.Errorf("git taskclean %s changed worktrees", name)
		}
	}
}

// TestExpireBackups: --expire-backups D deletes the run's saved states older
// than D and nothing else.
func TestExpireBackups(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	mustClean(t, s.root, "--run", run)
	saved := savedRefs(t, s.root)
	if len(saved) == 0 {
		t.Fatal("the clean saved nothing")
	}
	// Another run whose name starts with this one's keeps its backups.
	otherRef := "refs/taskclean/" + run + "x/20200101T000000.000000000Z/branch/" + run + "x-task-1-1-a"
	gitIn(t, s.root, "", "update-ref", otherRef, s.p2)

	mustClean(t, s.root, "--run", run, "--expire-backups", "1000h")
	if got := savedRefs(t, s.root); !reflect.DeepEqual(got, saved) {
		t.Errorf("--expire-backups 1000h deleted fresh backups:\n%s", strings.Join(diffMaps(saved, got), "\n"))
	}

	out := mustClean(t, s.root, "--run", run, "--expire-backups", "1ns")
	if got := savedRefs(t, s.root); len(got) != 0 {
		t.Errorf("--expire-backups 1ns left %v", got)
	}
	for ref := range saved {
		if !strings.Contains(out, ref) {
			t.Errorf("output does not name the deleted %s:\n%s", ref, out)
		}
	}
	if refs(t, s.root, otherRef)[otherRef] != s.p2 {
		t.Errorf("--expire-backups of run %s deleted run %sx's backup", run, run)
	}
}

// TestCleanAfterCrashAtLastChange: a clean killed right after its last change
// has nothing left to finish, so its rerun does nothing. A later clean is a
// new clean: it must not present itself as finishing the old one nor file
// its saves under the old stamp, where --expire-backups (which goes by the
// stamp) would take fresh work for old.
func TestCleanAfterCrashAtLastChange(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// The plain clean of the scenario makes 3 changes (see TestCrashSafety):
	// the save, then one removal per worktree.
	r := testbin.Taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_AFTER=3"}, "--run", run)
	if r.Code != 99 {
		t.Fatalf("crash at the last change: exit %d, want 99\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if testbin.Exists(s.wt(wt22)) || testbin.Exists(s.wt(wt23)) {
		t.Fatalf("setup: the crash was meant to come after both removals")
	}
	var crashed string
	for ref := range savedRefs(t, s.root) {
		crashed = savedRefRE.FindStringSubmatch(ref)[1]
	}
	if out := mustClean(t, s.root, "--run", run); !strings.Contains(out, "nothing to clean") {
		t.Fatalf("setup: change 3 was not the clean's last (the rerun still had work):\n%s", out)
	}

	// Later, another agent crashes in 2.2.
	w := s.wt(wt22)
	gitIn(t, s.root, "", "worktree", "add", "-q", "--detach", w, s.p2)
	writeFiles(t, w, map[string]string{"late.txt": "work of a later agent\n"})
	out := mustClean(t, s.root, "--run", run)

	if strings.Contains(out, "interrupted") {
		t.Errorf("a new clean claims to finish the crashed one:\n%s", out)
	}
	for _, ref := range savedFor(savedRefs(t, s.root), "worktree", wt22) {
		if m := savedRefRE.FindStringSubmatch(ref); m[1] == crashed && catBatch(t, s.root, []string{ref + "^3:late.txt"})[ref+"^3:late.txt"].content != "" {
			t.Errorf("the later clean's save %s is filed under the crashed clean's stamp %s: expiring backups older than the crash would delete it", ref, crashed)
		}
	}
}

// TestCleanRacingAnotherClean: clean B has read the run's worktrees when
// clean A starts and finishes the whole job; then B goes on. B must act on
// what is there now (or be refused by the lock), not fail on the worktrees A
// already removed. B is paused deterministically: its git is a wrapper that
// waits at the first `status --ignored=matching` (run per worktree while the
// state it acts on is read).
func TestCleanRacingAnotherClean(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	gate, wrap := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\n" +
		"case \" $* \" in *\" --ignored=matching \"*)\n" +
		"  : > \"$TASKCLEAN_GATE/reached\"\n" +
		"  while [ ! -e \"$TASKCLEAN_GATE/go\" ]; do sleep 0.05; done;;\n" +
		"esac\n" +
		"exec " + strconv.Quote(realGit) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrap, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// B runs the binary directly: git's dispatch would put its exec-path (and
	// the real git) ahead of the wrapper on PATH.
	b := exec.Command(filepath.Join(testbin.BinDir(), "git-taskclean"), "--run", run)
	b.Dir = s.root
	b.Env = append(os.Environ(), "PATH="+wrap+string(os.PathListSeparator)+os.Getenv("PATH"), "TASKCLEAN_GATE="+gate)
	var bout, berr bytes.Buffer
	b.Stdout, b.Stderr = &bout, &berr
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	release := func() { os.WriteFile(filepath.Join(gate, "go"), nil, 0o644) }
	defer release()
	deadline := time.Now().Add(60 * time.Second)
	for !testbin.Exists(filepath.Join(gate, "reached")) {
		if time.Now().After(deadline) {
			release()
			b.Wait()
			t.Fatalf("clean B never read worktree status with ignored files; the pause point is gone:\n%s%s", bout.String(), berr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	a := testbin.Taskclean(s.root, nil, "--run", run)
	release()
	bErr := b.Wait()
	bCode := 0
	if ee, ok := bErr.(*exec.ExitError); ok {
		bCode = ee.ExitCode()
	} else if bErr != nil {
		t.Fatal(bErr)
	}

	okOrLocked := func(who string, code int, stdout, stderr string) bool {
		if code == 0 || code == 2 && strings.Contains(stderr, "another git taskclean") {
			return code == 0
		}
		t.Errorf("clean %s: exit %d; want 0, or 2 refused by the lock\nstdout:\n%s\nstderr:\n%s", who, code, stdout, stderr)
		return false
	}
	aOK := okOrLocked("A (ran while B was paused)", a.Code, a.Stdout, a.Stderr)
	bOK := okOrLocked("B (paused after reading the state)", bCode, bout.String(), berr.String())
	if !aOK && !bOK {
		t.Errorf("neither clean did the work")
	}
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s still there", d.name)
		}
		if _, err := savedSomewhere(t, s, d); err != nil {
			t.Error(err)
		}
	}
}
