package installtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gettingStarted returns the commands of the README's "Getting started"
// block, comments stripped, in order.
func gettingStarted(t *testing.T, readme string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## Getting started\n")
	if !ok {
		t.Fatal(`README.md has no "## Getting started" section`)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("README.md's Getting started has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			cmds = append(cmds, line)
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("Getting started has %d commands, want the resume steps: %q", len(cmds), cmds)
	}
	return cmds
}

// TestGettingStartedOnTheKeptDemo follows the README as a newcomer would:
// `examples/demo.sh --keep` leaves a crashed run, and the README's
// Getting started commands, typed literally in it, resume it. The kept
// repository must be the crash (stale worktrees, nothing saved yet), or the
// steps would show nothing to clean.
func TestGettingStartedOnTheKeptDemo(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	run(t, root, nil, "go", "build", "-o", bin+string(filepath.Separator), "./cmd/git-taskresume", "./cmd/git-taskclean")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir())

	out := run(t, root, env, filepath.Join(root, "examples", "demo.sh"), "--keep")
	m := regexp.MustCompile(`(?m)^repository kept at ([^\s,]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo.sh --keep does not say where it kept the repository:\n%s", out)
	}
	repo := m[1]
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(repo)) })
	// Read through a pipe, the demo writes no escape sequence: colour is
	// for a terminal only.
	if i := strings.IndexByte(out, 0x1b); i >= 0 {
		t.Errorf("demo.sh wrote an escape sequence into a pipe: %q", out[max(0, i-20):min(len(out), i+20)])
	}

	git := func(args ...string) string { return run(t, repo, env, "git", args...) }
	worktrees := git("worktree", "list", "--porcelain")
	for _, wt := range []string{"x1y2z3-task-2-2", "x1y2z3-task-2-3"} {
		if !strings.Contains(worktrees, wt) {
			t.Errorf("kept repository has no worktree %s (the crash is gone):\n%s", wt, worktrees)
		}
	}
	if saved := git("for-each-ref", "refs/taskclean/"); saved != "" {
		t.Errorf("kept repository was already cleaned:\n%s", saved)
	}

	readme := string(readFile(t, filepath.Join(root, "README.md")))
	for _, c := range gettingStarted(t, readme) {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir, cmd.Env = repo, env
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README step %q in the kept demo: %v\n%s", c, err, got)
		}
		t.Logf("$ %s\n%s", c, got)
	}
	// The steps cleaned (the two stale worktrees saved and removed), then
	// undid the clean (the last step): the saves are still there.
	worktrees = git("worktree", "list", "--porcelain")
	if strings.Contains(worktrees, "x1y2z3-task-2-2") {
		t.Errorf("after the README's steps the stale worktree is still there:\n%s", worktrees)
	}
	if saved := git("for-each-ref", "refs/taskclean/x1y2z3/"); !strings.Contains(saved, "worktree/x1y2z3-task-2-2") {
		t.Errorf("after the README's steps no save of 2.2's worktree:\n%s", saved)
	}
}
