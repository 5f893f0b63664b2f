package clean_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestRestoreSaveOfEarlierVersion: a worktree saved by an earlier version
// (a stash-shaped commit whose body names only its path and head, no
// branch or task line, and no ignored or admin save beside it) is listed by
// --backups, offered by --undo, and brought back by --restore with its
// staged, unstaged and untracked work.
func TestRestoreSaveOfEarlierVersion(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	d := s.dirtyByName(wt22)
	// The save as the earlier version made it: HEAD, index and untracked
	// files as the stash's parents, the working tree as its tree.
	idx := t.TempDir() + "/index"
	env := []string{"GIT_INDEX_FILE=" + idx}
	copyIndex := strings.TrimSpace(git(t, d.path, "rev-parse", "--git-path", "index"))
	data, err := os.ReadFile(copyIndex)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		t.Fatal(err)
	}
	indexTree := strings.TrimSpace(testbin.Run(d.path, env, "git", "write-tree").Stdout)
	testbin.Run(d.path, env, "git", "add", "--update", "--", ".")
	workTree := strings.TrimSpace(testbin.Run(d.path, env, "git", "write-tree").Stdout)
	uidx := t.TempDir() + "/u"
	var names []string
	for p := range d.untracked {
		names = append(names, p)
	}
	testbin.RunStdin(d.path, []string{"GIT_INDEX_FILE=" + uidx}, strings.Join(names, "\x00")+"\x00", "git", "update-index", "--add", "-z", "--stdin")
	uTree := strings.TrimSpace(testbin.Run(d.path, []string{"GIT_INDEX_FILE=" + uidx}, "git", "write-tree").Stdout)
	msg := "taskclean " + run + ": worktree " + wt22 + "\n\npath " + strconv.Quote(d.path) + "\nhead " + d.head + "\n"
	u := strings.TrimSpace(git(t, s.root, "commit-tree", uTree, "-m", "untracked files on "+msg))
	ic := strings.TrimSpace(git(t, s.root, "commit-tree", indexTree, "-p", d.head, "-m", "index on "+msg))
	save := strings.TrimSpace(git(t, s.root, "commit-tree", workTree, "-p", d.head, "-p", ic, "-p", u, "-m", msg))
	ref := "refs/taskclean/" + run + "/20260101T000000.000000000Z/worktree/" + wt22
	git(t, s.root, "update-ref", ref, save)
	git(t, s.root, "worktree", "remove", "--force", d.path)

	if out := mustClean(t, s.root, "--run", run, "--backups"); !strings.Contains(out, ref) || !strings.Contains(out, "uncommitted work") {
		t.Errorf("--backups does not list the earlier version's save as work:\n%s", out)
	}
	undo := mustClean(t, s.root, "--run", run, "--undo")
	cmd, ok := restoreCommands(undo)[d.path]
	if !ok || !strings.Contains(cmd, "--restore") {
		t.Fatalf("--undo offers no --restore for %s:\n%s", d.path, undo)
	}
	sh(t, s.root, cmd)
	if err := intactErr(t, s, d, false); err != nil {
		t.Errorf("after %s:\n%v", cmd, err)
	}
}
