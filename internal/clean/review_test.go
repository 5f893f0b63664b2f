// Regression tests of git-taskclean and git-taskresume, each guarding against
// one way they once lost or misread work: a stale save reused, a hook's
// environment, a late writer, an interrupted clean, odd run ids and branch
// names, embedded repositories, claims, and a worktree that cannot be saved.
// They use the scenario and helpers of helpers_test.go and the binaries
// testbin.Main builds.
package clean_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// ---- helpers of the review tests ----

// savedAsRE reads "save worktree <rel> (...) as <ref>" lines.
var savedAsRE = regexp.MustCompile(`(?m)^save worktree (.+?) \(.*\) as (\S+)$`)

// savedAs returns the ref the output says rel was saved as.
func savedAs(out, rel string) (string, bool) {
	for _, m := range savedAsRE.FindAllStringSubmatch(out, -1) {
		if m[1] == rel {
			return m[2], true
		}
	}
	return "", false
}

// stampOfRef is the <stamp> of refs/taskclean/<run>/<stamp>/...
func stampOfRef(ref string) string {
	rest, ok := strings.CutPrefix(ref, "refs/taskclean/"+run+"/")
	if !ok {
		return ""
	}
	stamp, _, _ := strings.Cut(rest, "/")
	return stamp
}

// copyDirty is a deep copy of d, for tests that change a worktree's work.
func copyDirty(d *dirtyWT) *dirtyWT {
	c := *d
	cp := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	c.staged, c.work, c.untracked, c.ignored = cp(d.staged), cp(d.work), cp(d.untracked), cp(d.ignored)
	return &c
}

// runBin runs one of the built binaries directly (not through git's
// dispatch), in dir, with extra environment.
func runBin(dir string, env []string, name string, args ...string) testbin.Result {
	return testbin.Run(dir, env, filepath.Join(testbin.BinDir(), name), args...)
}

// oneErrorLine checks that r is a usage failure: exit 2, nothing on stdout,
// one "error:" line on stderr holding every word of says.
func oneErrorLine(t *testing.T, what string, r testbin.Result, says ...string) {
	t.Helper()
	if r.Code != 2 {
		t.Errorf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", what, r.Code, r.Stdout, r.Stderr)
	}
	if !strings.HasPrefix(r.Stderr, "error: ") || strings.Count(r.Stderr, "\n") != 1 || !strings.HasSuffix(r.Stderr, "\n") {
		t.Errorf("%s: stderr is not one \"error:\" line: %q", what, r.Stderr)
	}
	for _, s := range says {
		if !strings.Contains(r.Stderr, s) {
			t.Errorf("%s: message %q does not say %q", what, r.Stderr, s)
		}
	}
	if r.Stdout != "" {
		t.Errorf("%s: wrote to stdout on error: %q", what, r.Stdout)
	}
}

// ---- the regressions ----

// TestReviewCrashRerunSavesChangedWorktree guards against a rerun that reuses
// an old save: a clean killed right after its save transaction, rerun after
// the worktrees changed, must save them again. The rerun's save holds the new
// content, not the old save reused because the tracked tree (or HEAD) looked
// the same.
func TestReviewCrashRerunSavesChangedWorktree(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r := testbin.Taskclean(s.root, []string{"GIT_TASKCLEAN_CRASH_AFTER=1"}, "--run", run)
	if r.Code != 99 {
		t.Fatalf("crash after the save: exit %d, want 99\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The crash came after the save and before any removal: both
	// directories are still aside, where the clean moved them to stop
	// writers by path.
	if !testbin.Exists(s.wt(wt22)+".taskclean-removing") || !testbin.Exists(s.wt(wt23)+".taskclean-removing") {
		t.Fatalf("setup: the crash was meant to come before any removal")
	}

	// The agents go on, inside the moved directories (their current
	// directory moved with them): 2.2 changes only untracked files (its
	// tracked tree stays as saved), 2.3 a tracked file and a new untracked
	// one.
	d22, d23 := copyDirty(s.dirtyByName(wt22)), copyDirty(s.dirtyByName(wt23))
	d22.path, d23.path = d22.path+".taskclean-removing", d23.path+".taskclean-removing"
	d22.untracked["NOTES.md"] = "notes of task 2.2, rewritten after the crash\n"
	d22.untracked["after-crash.txt"] = "new work of 2.2 after the crash\n"
	d23.work["README.md"] = readme + "Task 2.3 changed this after the crash.\n"
	d23.untracked["after-crash.txt"] = "new work of 2.3 after the crash\n"
	for _, d := range []*dirtyWT{d22, d23} {
		writeFiles(t, d.path, d.work)
		writeFiles(t, d.path, d.untracked)
	}

	d22.path, d23.path = s.wt(wt22), s.wt(wt23)
	out := mustClean(t, s.root, "--run", run)

	saved := savedRefs(t, s.root)
	for _, d := range []*dirtyWT{d22, d23} {
		if testbin.Exists(d.path) || testbin.Exists(d.path+".taskclean-removing") {
			t.Errorf("%s still exists after the rerun:\n%s", d.name, out)
		}
		ref, ok := savedAs(out, s.rel(d.name))
		if !ok {
			t.Errorf("the rerun does not say where it saved %s:\n%s", d.name, out)
			continue
		}
		for _, other := range savedFor(saved, "worktree", d.name) {
			if stampOfRef(other) > stampOfRef(ref) {
				t.Errorf("the rerun saved %s as %s, older than %s", d.name, ref, other)
			}
		}
		if err := savedContentErr(t, s.root, ref, d); err != nil {
			t.Errorf("the rerun's save of %s lacks the work done since the crash:\n%v", d.name, err)
		}
	}
}

// TestReviewCleanUnderHookEnv guards against reading every worktree through
// the main worktree's index when a git hook runs the clean: with GIT_DIR and
// GIT_INDEX_FILE of the main worktree in the environment, the clean must
// still read each linked worktree's own status, and save its staged and
// unstaged changes before removing it. The sharpest case is the 3.1 worktree:
// its files equal the main worktree's index, so read through that index it
// looks clean, yet its own index holds a staged change (MM).
func TestReviewCleanUnderHookEnv(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	wt31 := run + "-task-3-1"
	d31 := &dirtyWT{task: "3.1", name: wt31, path: s.wt(wt31), head: s.tips["main"],
		staged: map[string]string{"README.md": "important staged work of 3.1\n"},
		work:   map[string]string{"README.md": readme}}
	gitIn(t, s.root, "", "worktree", "add", "-q", "--detach", d31.path, "main")
	writeFiles(t, d31.path, d31.staged)
	gitIn(t, d31.path, "", "add", "README.md")
	writeFiles(t, d31.path, d31.work)
	d31.status = git(t, d31.path, "status", "--porcelain", "--untracked-files=all")
	if d31.status != "MM README.md\n" {
		t.Fatalf("setup: %s status %q, want MM README.md", wt31, d31.status)
	}
	all := append([]*dirtyWT{d31}, s.dirty...)

	env := []string{"GIT_DIR=" + filepath.Join(s.root, ".git"), "GIT_INDEX_FILE=" + filepath.Join(s.root, ".git", "index")}
	r := testbin.Taskclean(s.root, env, "--run", run)
	if r.Code != 0 {
		t.Fatalf("git taskclean under a hook's environment: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, d := range all {
		if testbin.Exists(d.path) {
			if err := intactErr(t, s, d, true); err != nil {
				t.Errorf("LOST: %v", err)
			}
			t.Errorf("%s was not removed:\n%s", d.name, r.Stdout)
			continue
		}
		ref, err := savedSomewhere(t, s, d)
		if err != nil {
			t.Errorf("LOST: %s removed without its work saved:\n%v\noutput:\n%s", d.name, err, r.Stdout)
			continue
		}
		for p, c := range d.staged {
			if got := catBatch(t, s.root, []string{ref + "^2:" + p})[ref+"^2:"+p]; got.content != c {
				t.Errorf("%s^2:%s = %q, want the staged %q", ref, p, got.content, c)
			}
		}
	}
}

// lateWriter is a git wrapper, first on PATH, that plays an agent writing
// late-work.txt by path into every directory listed in $LATE_DIRS when the
// clean records its saves (`git update-ref --stdin`). A write that succeeds
// is noted in $LATE_MARKS, so a test can tell a write that failed (not a
// loss) from one that landed (it must be kept).
func lateWriter(t *testing.T) string {
	t.Helper()
	hook := "if [ \"$1\" = update-ref ] && [ \"$2\" = --stdin ]; then\n" +
		"  IFS=:\n" +
		"  for d in $LATE_DIRS; do printf 'agent result\\n' 2>/dev/null > \"$d/late-work.txt\" && echo \"$d\" >> \"$LATE_MARKS\"; done\n" +
		"  unset IFS\n" +
		"fi\n"
	dir := t.TempDir()
	script := "#!/bin/sh\n" + hook + "exec " + strconv.Quote(realGit) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReviewChangedWhileSaved guards against losing what an agent writes by
// path into a worktree between its save and its removal. The clean has
// renamed the directory aside before saving it, so such a write fails; a
// write that succeeded anyway must still be there afterwards, and a branch
// checked out in a worktree that stays stays too. The binary runs directly,
// so that the git it finds on PATH is the wrapper.
func TestReviewChangedWhileSaved(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, s *scenario, out, marks string, names []string, branch string) {
		t.Helper()
		landed := map[string]bool{}
		if data, err := os.ReadFile(marks); err == nil {
			for _, l := range lines(string(data)) {
				landed[l] = true
			}
		}
		kept := true
		for _, name := range names {
			late := filepath.Join(s.wt(name), "late-work.txt")
			if !landed[s.wt(name)] {
				if testbin.Exists(late) {
					t.Errorf("%s exists although the agent's write failed", late)
				}
				if _, ok := lineWith(out, "remove worktree "+s.rel(name)); !ok {
					t.Errorf("the write failed, yet %s was not removed:\n%s", name, out)
				}
				kept = false
				continue
			}
			if b, err := os.ReadFile(late); err != nil || string(b) != "agent result\n" {
				t.Errorf("LOST: %s after the clean: %q, %v (a write that succeeded was removed)\noutput:\n%s", late, b, err, out)
			}
		}
		if branch != "" && kept {
			if got := heads(t, s.root)[branch]; got != s.tips[branch] {
				t.Errorf("branch %s is at %q after the clean, want it kept at %s", branch, got, s.tips[branch])
			}
		}
	}
	clean := func(t *testing.T, s *scenario, env []string, args ...string) string {
		t.Helper()
		env = append(env, "PATH="+lateWriter(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
		r := runBin(s.root, env, "git-taskclean", append([]string{"--run", run}, args...)...)
		if r.Code != 0 {
			t.Fatalf("git-taskclean: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}

	t.Run("write after the save", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, scenarioOpts{})
		marks := filepath.Join(t.TempDir(), "marks")
		dirs := "LATE_DIRS=" + s.wt(wt22) + ":" + s.wt(wt23)
		out := clean(t, s, []string{dirs, "LATE_MARKS=" + marks})
		check(t, s, out, marks, []string{wt22, wt23}, "")
	})
	t.Run("write after the save, worktree on a branch", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, scenarioOpts{})
		w := s.wt(wt21)
		gitIn(t, w, "", "checkout", "-q", branch21)
		writeFiles(t, w, map[string]string{"wip.txt": "uncommitted work on 2.1\n"})
		marks := filepath.Join(t.TempDir(), "marks")
		out := clean(t, s, []string{"LATE_DIRS=" + w, "LATE_MARKS=" + marks}, "--task", "2.1")
		check(t, s, out, marks, []string{wt21}, branch21)
	})
}

// TestReviewInterruptedCleanNewStamp guards against an expiry that drops the
// saves of an interrupted clean: a clean after an interrupted one files its
// saves under a stamp of its own (the stamp's date is what --expire-backups
// goes by), links it to the interrupted clean, and both survive an expiry
// that the new stamp is young for; --undo restores the branches of both.
func TestReviewInterruptedCleanNewStamp(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	const old = "20260101T000000.000000000Z"
	before := heads(t, s.root)
	// The interrupted clean (of --task 2.1) saved and deleted 2.1's branch,
	// then died.
	oldRef := "refs/taskclean/" + run + "/" + old + "/branch/" + branch21
	gitIn(t, s.root, "", "update-ref", oldRef, s.tips[branch21])
	gitIn(t, s.root, "", "update-ref", "-d", "refs/heads/"+branch21, s.tips[branch21])
	if err := os.WriteFile(lockFile(t, s), []byte("stamp "+old+"\nstate running\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out := mustClean(t, s.root, "--run", run, "--task", "1.2")

	saved := savedRefs(t, s.root)
	got := savedFor(saved, "branch", branch12)
	if len(got) != 1 {
		t.Fatalf("saved refs of %s: %v, want one\noutput:\n%s", branch12, got, out)
	}
	stamp := stampOfRef(got[0])
	if stamp == old {
		t.Errorf("the new clean saved %s under the interrupted clean's stamp %s", branch12, old)
	}
	if saved[got[0]] != s.tips[branch12] {
		t.Errorf("%s = %s, want %s", got[0], saved[got[0]], s.tips[branch12])
	}
	for ref := range saved {
		if st := stampOfRef(ref); st != old && st != stamp {
			t.Errorf("saved ref %s is under neither the interrupted stamp nor the new one", ref)
		}
		if stampOfRef(ref) == old && ref != oldRef {
			t.Errorf("the new clean wrote %s under the interrupted clean's stamp", ref)
		}
	}
	link := "refs/taskclean/" + run + "/" + stamp + "/continues/" + old
	if _, ok := saved[link]; !ok {
		t.Errorf("no %s linking the new clean to the interrupted one; saved: %v", link, saved)
	}

	mustClean(t, s.root, "--run", run, "--expire-backups", "720h")
	after := savedRefs(t, s.root)
	for _, ref := range []string{got[0], oldRef, link} {
		if _, ok := after[ref]; !ok {
			t.Errorf("--expire-backups 720h deleted %s (the new clean is minutes old)", ref)
		}
	}

	undo := mustClean(t, s.root, "--run", run, "--undo")
	if h := heads(t, s.root); !reflect.DeepEqual(h, before) {
		t.Errorf("after --undo the branches differ from before both cleans:\n%s\noutput:\n%s", strings.Join(diffMaps(before, h), "\n"), undo)
	}
}

// TestReviewRunIDWithTask guards against one run taking another's branches
// and worktrees: run ids holding "-task-" are refused (run "ab-task-1" would
// own what reads as task 1 of run "ab"), and a worktree outside the worktree
// folder whose directory merely starts with "<run>-task-" is not the run's:
// no clean touches it.
func TestReviewRunIDWithTask(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// A plan for run ab-task-1 exists, so nothing but the id can refuse it.
	writeFiles(t, s.root, map[string]string{"specs/ab-task-1/plan.md": testbin.SevenTaskPlan("ab-task-1")})
	gitIn(t, s.root, "", "add", "specs")
	gitIn(t, s.root, "", "commit", "-q", "-m", "plan of ab-task-1")
	beforeRefs := refs(t, s.root)
	oneErrorLine(t, "git taskresume ab-task-1", testbin.Taskresume(s.root, nil, "ab-task-1"), "-task")
	oneErrorLine(t, "git taskclean --run ab-task-1", testbin.Taskclean(s.root, nil, "--run", "ab-task-1"), "-task")
	if got := refs(t, s.root); !reflect.DeepEqual(got, beforeRefs) {
		t.Errorf("refused commands changed refs:\n%s", strings.Join(diffMaps(beforeRefs, got), "\n"))
	}

	notes := filepath.Join(filepath.Dir(s.root), run+"-task-notes")
	gitIn(t, s.root, "", "worktree", "add", "-q", "-b", "docs", notes, "main")
	files := map[string]string{"README.md": readme + "docs work in progress\n", "draft.md": "a draft\n"}
	writeFiles(t, notes, files)
	docs := heads(t, s.root)["docs"]
	status := git(t, notes, "status", "--porcelain", "--untracked-files=all")
	for _, args := range [][]string{{"--run", run}, {"--run", run, "--all"}} {
		out := mustClean(t, s.root, args...)
		name := strings.Join(args, " ")
		if !registered(t, s, notes) {
			t.Errorf("git taskclean %s removed the worktree %s, which is not the run's:\n%s", name, notes, out)
		}
		for p, c := range files {
			if b, err := os.ReadFile(filepath.Join(notes, p)); err != nil || string(b) != c {
				t.Errorf("git taskclean %s: %s/%s = %q, %v", name, notes, p, b, err)
			}
		}
		if testbin.Exists(notes) {
			if st := git(t, notes, "status", "--porcelain", "--untracked-files=all"); st != status {
				t.Errorf("git taskclean %s changed %s:\n%s\nwas:\n%s", name, notes, st, status)
			}
		}
		if got := heads(t, s.root)["docs"]; got != docs {
			t.Errorf("git taskclean %s: branch docs is %q, want %s", name, got, docs)
		}
		if strings.Contains(out, run+"-task-notes") {
			t.Errorf("git taskclean %s acted on %s:\n%s", name, notes, out)
		}
	}
}

// TestReviewEmbeddedRepoUpFront guards against deleting history no save can
// hold: a stale worktree holding an embedded repository is never removed,
// with --no-backup too, and the dry run says it would be skipped; also when
// the embedded repository is under an ignored directory.
func TestReviewEmbeddedRepoUpFront(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// 2.3: an embedded repository in plain sight; 2.2: one under an ignored
	// directory.
	f, err := os.OpenFile(filepath.Join(s.root, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("vendor-cache/\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	embedded := map[string]string{wt23: "sub", wt22: "vendor-cache/lib"}
	tips := map[string]string{}
	for name, rel := range embedded {
		dir := filepath.Join(s.wt(name), rel)
		gitIn(t, s.root, "", "init", "-q", dir)
		writeFiles(t, dir, map[string]string{"inner.txt": "history only this repository has\n"})
		gitIn(t, dir, "", "add", "inner.txt")
		gitIn(t, dir, "", "commit", "-q", "-m", "inner commit")
		tips[name] = strings.TrimSpace(gitIn(t, dir, "", "rev-parse", "HEAD"))
	}
	if st := git(t, s.wt(wt22), "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "vendor-cache") {
		t.Fatalf("setup: vendor-cache/ is not ignored in %s:\n%s", wt22, st)
	}

	dry := mustClean(t, s.root, "--run", run, "--no-backup", "--dry-run")
	for name := range embedded {
		if _, ok := lineWith(dry, "would remove worktree "+s.rel(name)); ok {
			t.Errorf("the dry run says it would remove %s, which holds an embedded repository:\n%s", name, dry)
		}
		if l, ok := lineWith(dry, s.rel(name)); !ok || !strings.Contains(l, "skip") {
			t.Errorf("the dry run does not say it would skip %s:\n%s", name, dry)
		}
	}

	out := mustClean(t, s.root, "--run", run, "--no-backup")
	for name, rel := range embedded {
		dir := filepath.Join(s.wt(name), rel)
		if !testbin.Exists(s.wt(name)) || !registered(t, s, s.wt(name)) {
			t.Errorf("LOST: %s (holding the embedded repository %s) was removed with --no-backup:\n%s", name, rel, out)
			continue
		}
		if got := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); got != tips[name] {
			t.Errorf("embedded repository %s of %s is at %s, want %s", rel, name, got, tips[name])
		}
		if l, ok := lineWith(out, "skip worktree "+s.rel(name)); !ok || !strings.Contains(l, "embedded") {
			t.Errorf("output does not say %s was skipped for its embedded repository:\n%s", name, out)
		}
	}
	for _, d := range s.dirty {
		for _, m := range []map[string]string{d.work, d.untracked, d.ignored} {
			for p, c := range m {
				if b, err := os.ReadFile(filepath.Join(d.path, p)); err != nil || string(b) != c {
					t.Errorf("%s/%s = %q, %v, want %q", d.name, p, b, err, c)
				}
			}
		}
	}
}

// TestReviewClaimedWorktreeNotStale guards against removing claimed work: the
// worktree of a task an orchestrator holds a live claim on is live work, so a
// plain clean leaves it; --task removes it (saved).
func TestReviewClaimedWorktreeNotStale(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	r := testbin.Taskresume(s.root, nil, run, "--claim", "--as", "orch-a", "--ttl", "2h")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "2.2" {
		t.Fatalf("--claim: exit %d, stdout %q, want 2.2\n%s", r.Code, r.Stdout, r.Stderr)
	}
	d22 := s.dirtyByName(wt22)

	out := mustClean(t, s.root, "--run", run)
	if err := intactErr(t, s, d22, true); err != nil {
		t.Errorf("a plain clean touched the worktree of the claimed task 2.2: %v\noutput:\n%s", err, out)
	}
	if testbin.Exists(s.wt(wt23)) {
		t.Errorf("the unclaimed stale %s was not removed:\n%s", wt23, out)
	}

	out = mustClean(t, s.root, "--run", run, "--task", "2.2")
	if testbin.Exists(d22.path) {
		t.Errorf("--task 2.2 left the claimed task's worktree:\n%s", out)
	}
	if _, err := savedSomewhere(t, s, d22); err != nil {
		t.Error(err)
	}
}

// TestReviewDefaultClaimHolder guards against two agents sharing a default
// holder name: two claims without --as, one after the other from one shell
// script (one parent process), are two holders and get different tasks;
// --renew and --release without --as are refused with a message that asks for
// it.
func TestReviewDefaultClaimHolder(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// The binary itself, not `git taskresume`: through git each call would
	// have a parent of its own. Each line of the script is a child of the
	// one shell.
	script := "git-taskresume " + run + " --claim > a\n" +
		"git-taskresume " + run + " --claim > b\n" +
		"git-taskresume " + run + " --renew \"$(cat a)\" > renew.out 2> renew.err; echo $? > renew.rc\n" +
		"git-taskresume " + run + " --release \"$(cat a)\" > release.out 2> release.err; echo $? > release.rc\n"
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = s.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(s.root, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b := strings.TrimSpace(read("a")), strings.TrimSpace(read("b"))
	if a == "" || b == "" || a == b {
		t.Errorf("two unnamed claims from one script got %q and %q, want two different tasks", a, b)
	}
	for _, op := range []string{"renew", "release"} {
		code, _ := strconv.Atoi(strings.TrimSpace(read(op + ".rc")))
		oneErrorLine(t, "git-taskresume "+run+" --"+op+" "+a+" (no --as, same script)",
			testbin.Result{Stdout: read(op + ".out"), Stderr: read(op + ".err"), Code: code}, "--as")
	}
	for _, args := range [][]string{{"--renew", "2.1"}, {"--release", "2.1"}} {
		name := "git-taskresume " + run + " " + strings.Join(args, " ")
		oneErrorLine(t, name, runBin(s.root, nil, "git-taskresume", append([]string{run}, args...)...), "--as")
	}

	// The same from one parent without a shell: this test process.
	s2 := newScenario(t, scenarioOpts{})
	var got []string
	for i := 0; i < 2; i++ {
		r := runBin(s2.root, nil, "git-taskresume", run, "--claim")
		if r.Code != 0 {
			t.Errorf("unnamed claim %d: exit %d\n%s", i+1, r.Code, r.Stderr)
		}
		got = append(got, strings.TrimSpace(r.Stdout))
	}
	if got[0] == got[1] {
		t.Errorf("two unnamed claims from one parent process both got %q", got[0])
	}
}

// TestReviewUndoKeepsBranchName guards against a restore under a mangled
// name: --undo restores a deleted task branch under exactly its name, "+"
// included.
func TestReviewUndoKeepsBranchName(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	name := run + "-task-2-1-user+service"
	gitIn(t, s.root, "", "branch", "-m", branch21, name)
	before := heads(t, s.root)

	out := mustClean(t, s.root, "--run", run, "--task", "2.1")
	if _, ok := heads(t, s.root)[name]; ok {
		t.Fatalf("--task 2.1 did not delete %s:\n%s", name, out)
	}
	undo := mustClean(t, s.root, "--run", run, "--undo")
	if got := heads(t, s.root); !reflect.DeepEqual(got, before) {
		t.Errorf("after --undo the branches differ from before:\n%s\noutput:\n%s", strings.Join(diffMaps(before, got), "\n"), undo)
	}
}

// TestReviewSuggestedCleanKeepsPlan guards against a suggested command that
// cannot find the plan: with the plan at a path of its own, the report's
// suggested clean repeats --plan, and running it removes the stale worktrees.
func TestReviewSuggestedCleanKeepsPlan(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	if err := os.MkdirAll(filepath.Join(s.root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, s.root, "", "mv", "specs/"+run+"/plan.md", "docs/"+run+"-plan.md")
	gitIn(t, s.root, "", "commit", "-q", "-m", "move the plan")
	const flag = "--plan docs/" + run + "-plan.md"

	r := testbin.Taskresume(s.root, nil, run, "--plan", "docs/"+run+"-plan.md")
	if r.Code != 0 {
		t.Fatalf("git taskresume: exit %d\n%s", r.Code, r.Stderr)
	}
	l, ok := lineWith(r.Stdout, "git taskclean --run "+run)
	if !ok || !strings.Contains(l, flag) {
		t.Errorf("the report's suggested clean does not repeat %q:\n%s", flag, r.Stdout)
	}
	cmdline := testbin.ReadReport(t, s.root, run, "--plan", "docs/"+run+"-plan.md").CleanCommand
	if !strings.Contains(cmdline, flag) {
		t.Errorf("clean_command %q does not repeat %q", cmdline, flag)
	}
	if !strings.HasPrefix(cmdline, "git taskclean ") {
		t.Fatalf("clean_command %q is not a git taskclean command", cmdline)
	}
	sh(t, s.root, cmdline)
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s: the suggested %q left the stale %s", d.name, cmdline, d.path)
		}
		if _, err := savedSomewhere(t, s, d); err != nil {
			t.Error(err)
		}
	}
}

// TestReviewTaskBranchWithSlash guards against overlooking finished work on a
// branch with a "/" after the task prefix: 2.2 with x1y2z3-task-2-2-fix/wip
// and a commit of its own is completed.
func TestReviewTaskBranchWithSlash(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	name := run + "-task-2-2-fix/wip"
	tree := strings.TrimSpace(gitIn(t, s.root, "", "rev-parse", s.p2+"^{tree}"))
	c := strings.TrimSpace(gitIn(t, s.root, "", "commit-tree", "-p", s.p2, "-m", "task 2.2: product service", tree))
	gitIn(t, s.root, "", "branch", name, c)

	rep := testbin.ReadReport(t, s.root, run)
	found := false
	for _, ph := range rep.Phases {
		for _, task := range ph.Tasks {
			if task.ID != "2.2" {
				continue
			}
			found = true
			if task.Status != "completed" {
				t.Errorf("task 2.2 is %q with branch %s holding a commit of its own, want completed", task.Status, name)
			}
			if task.Branch == nil || *task.Branch != name {
				t.Errorf("task 2.2's branch is %v, want %s", task.Branch, name)
			}
		}
	}
	if !found {
		t.Fatalf("no task 2.2 in the report")
	}
}

// TestReviewProblemsTaskKey guards against JSON readers that meet a missing
// key: every entry of problems[] has a "task" key, "" when the problem is
// about no one task.
func TestReviewProblemsTaskKey(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	// One problem about a task (two branches for 2.2), one about none (a
	// branch of no task), and the stale worktrees.
	gitIn(t, s.root, "", "branch", run+"-task-2-2-a", s.tips[branch21])
	gitIn(t, s.root, "", "branch", run+"-task-2-2-b", s.tips[branch21])
	gitIn(t, s.root, "", "branch", run+"-task-9-9-nothing", s.p2)

	rep := testbin.ReadReport(t, s.root, run)
	if len(rep.Problems) == 0 {
		t.Fatal("setup: the report has no problems")
	}
	empty := 0
	for _, p := range rep.Problems {
		if p.Task == nil {
			t.Errorf("problem without a \"task\" key: kind %s, message %s", p.Kind, p.Message)
			continue
		}
		if *p.Task == "" {
			empty++
		}
	}
	if empty == 0 {
		t.Errorf("no problem with task \"\": the case of a problem about no task is not exercised: %v", rep.Problems)
	}
}

// TestReviewUnsaveableWorktreeSkipped guards against both deleting what
// cannot be saved and giving up on the rest: a worktree that cannot be saved
// is skipped and named, and the clean goes on: exit 0, the other stale
// worktree saved and removed. 2.2 cannot be saved because the blob of a file
// staged there is gone from the object store: git status still reads the
// worktree (it compares object ids), but the save's write-tree fails.
func TestReviewUnsaveableWorktreeSkipped(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	w22 := s.wt(wt22)
	writeFiles(t, w22, map[string]string{"lost-blob.txt": "staged content whose blob goes missing\n"})
	gitIn(t, w22, "", "add", "lost-blob.txt")
	oid := strings.TrimSpace(git(t, w22, "rev-parse", ":lost-blob.txt"))
	if err := os.Remove(filepath.Join(s.root, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatalf("setup: remove the loose blob: %v", err)
	}
	status := git(t, w22, "status", "--porcelain", "--untracked-files=all")
	if !strings.Contains(status, "A  lost-blob.txt") {
		t.Fatalf("setup: git status of %s does not read it:\n%s", wt22, status)
	}

	r := testbin.Taskclean(s.root, nil, "--run", run)
	if r.Code != 0 {
		t.Fatalf("git taskclean with one unsaveable worktree: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !testbin.Exists(w22) || !registered(t, s, w22) {
		t.Errorf("LOST: %s, which could not be saved, was removed:\n%s", wt22, r.Stdout)
	} else if st := git(t, w22, "status", "--porcelain", "--untracked-files=all"); st != status {
		t.Errorf("the unsaveable %s changed:\n%s\nwas:\n%s", wt22, st, status)
	}
	if l, ok := lineWith(r.Stdout, "skip worktree "+s.rel(wt22)); !ok || !strings.Contains(l, "cannot save it") {
		t.Errorf("output does not say %s was skipped because it cannot be saved:\n%s", wt22, r.Stdout)
	}
	if _, ok := savedAs(r.Stdout, s.rel(wt22)); ok {
		t.Errorf("output claims %s was saved:\n%s", wt22, r.Stdout)
	}
	d23 := s.dirtyByName(wt23)
	if testbin.Exists(d23.path) {
		t.Errorf("the other stale %s was not removed:\n%s", wt23, r.Stdout)
	}
	if _, err := savedSomewhere(t, s, d23); err != nil {
		t.Error(err)
	}
}
