package clean_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// git config taskclean.preRemove runs inside each worktree the clean
// removes, before the save: what it writes is saved with the rest, it sees
// the run and the task, and it runs once per worktree.
func TestPreRemoveOutputIsSaved(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	git(t, s.root, "config", "taskclean.preRemove",
		`printf '%s %s\n' "$GIT_TASKCLEAN_RUN" "$GIT_TASKCLEAN_TASK" > flushed.txt; echo "$PWD" >> "$HOOKLOG"`)
	hookLog := filepath.Join(t.TempDir(), "hook.log")
	r := testbin.Taskclean(s.root, []string{"HOOKLOG=" + hookLog}, "--run", run)
	if r.Code != 0 {
		t.Fatalf("git taskclean: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	saved := savedRefs(t, s.root)
	for _, d := range s.dirty {
		if testbin.Exists(d.path) {
			t.Errorf("%s still exists after the clean", d.path)
		}
		rs := savedFor(saved, "worktree", d.name)
		if len(rs) != 1 {
			t.Fatalf("saved refs for %s: %v, want one", d.name, rs)
		}
		// Untracked files are the save's third parent.
		got := catBatch(t, s.root, []string{rs[0] + "^3:flushed.txt"})[rs[0]+"^3:flushed.txt"]
		if want := run + " " + d.task + "\n"; got.missing || got.content != want {
			t.Errorf("%s: what the hook wrote is %q (missing %v), want %q", d.name, got.content, got.missing, want)
		}
		if err := savedContentErr(t, s.root, rs[0], d); err != nil {
			t.Error(err)
		}
	}
	logged, err := os.ReadFile(hookLog)
	if err != nil {
		t.Fatalf("the hook never ran: %v", err)
	}
	ran := lines(string(logged))
	if len(ran) != len(s.dirty) {
		t.Errorf("the hook ran in %v, want once in each of the %d removed worktrees", ran, len(s.dirty))
	}
	for _, dir := range ran {
		if !strings.HasPrefix(filepath.Base(dir), run+"-task-2-") {
			t.Errorf("the hook ran in %s, not a removed task worktree", dir)
		}
	}
}

// A hook that fails keeps its worktree, every byte of it, and the branch
// checked out there; the output and the JSON say why, with the hook's last
// line; the other worktrees are cleaned as usual.
func TestPreRemoveFailureKeepsWorktree(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	keep := s.dirty[0]
	git(t, s.root, "config", "taskclean.preRemove",
		`if [ "$GIT_TASKCLEAN_TASK" = "`+keep.task+`" ]; then echo "checking"; echo "cache still uploading" >&2; exit 3; fi`)
	before := heads(t, s.root)
	r := testbin.Taskclean(s.root, nil, "--run", run, "--json")
	if r.Code != 0 {
		t.Fatalf("git taskclean: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !testbin.Exists(keep.path) || !registered(t, s, keep.path) {
		t.Fatalf("%s was removed although its preRemove command failed", keep.path)
	}
	wts := worktrees(t, s.root)
	if err := intactErrIn(t, wts, keep, true); err != nil {
		t.Error(err)
	}
	for _, d := range s.dirty[1:] {
		if testbin.Exists(d.path) {
			t.Errorf("%s stayed; only %s's hook failed", d.path, keep.name)
		}
	}
	if !strings.Contains(r.Stdout, `"action": "skip_worktree"`) || !strings.Contains(r.Stdout, "exit 3: cache still uploading") {
		t.Errorf("the JSON does not say the worktree stays with the hook's last line:\n%s", r.Stdout)
	}
	if after := heads(t, s.root); len(after) != len(before) {
		t.Errorf("branches changed: %v -> %v", before, after)
	}
	// The human output says it too.
	git(t, s.root, "config", "taskclean.preRemove", `echo "still uploading"; exit 1`)
	h := testbin.Taskclean(s.root, nil, "--run", run)
	if h.Code != 0 || !strings.Contains(h.Stdout, "exit 1: still uploading") {
		t.Errorf("human output (exit %d) does not give the hook's last line:\n%s%s", h.Code, h.Stdout, h.Stderr)
	}
	if !testbin.Exists(keep.path) {
		t.Errorf("%s removed by the second clean, whose hook failed too", keep.path)
	}
}

// A dry run says it would run the hook, and runs nothing.
func TestPreRemoveDryRun(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	marker := filepath.Join(t.TempDir(), "ran")
	git(t, s.root, "config", "taskclean.preRemove", "touch "+marker)
	r := testbin.Taskclean(s.root, nil, "--run", run, "-n", "--json")
	if r.Code != 0 {
		t.Fatalf("git taskclean -n: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if testbin.Exists(marker) {
		t.Error("a dry run ran the preRemove command")
	}
	if strings.Count(r.Stdout, `"action": "pre_remove"`) != len(s.dirty) {
		t.Errorf("the dry run does not list the command once per worktree:\n%s", r.Stdout)
	}
}

// A taskclean.preRemoveTimeout that is no duration stops the clean before
// anything changes, with one error line; the report, which runs no hook,
// is not stopped by it.
func TestPreRemoveBadTimeout(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	git(t, s.root, "config", "taskclean.preRemove", "true")
	git(t, s.root, "config", "taskclean.preRemoveTimeout", "soon")
	before := heads(t, s.root)
	r := testbin.Taskclean(s.root, nil, "--run", run)
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, `error: git config taskclean.preRemoveTimeout "soon": want a duration`) {
		t.Errorf("exit %d, stderr %q; want exit 2 and one error line naming the setting", r.Code, r.Stderr)
	}
	for _, d := range s.dirty {
		if !testbin.Exists(d.path) {
			t.Errorf("%s removed although the clean refused", d.path)
		}
	}
	if len(savedRefs(t, s.root)) != 0 || len(heads(t, s.root)) != len(before) {
		t.Error("the refused clean changed refs")
	}
	if rep := testbin.Run(s.root, nil, "git", "taskresume", run); rep.Code != 0 {
		t.Errorf("git taskresume: exit %d, %s; a clean's setting must not stop the report", rep.Code, rep.Stderr)
	}
}
