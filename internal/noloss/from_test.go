package noloss

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// A restore command as --undo and --backups print it: the path and the
// clean whose save it brings back (printed by every version but the
// earliest ones, whose commands named only the path).
var restoreFromCmd = regexp.MustCompile(`^git taskclean --run ` + run + ` --restore (\S+)(?: --from (\S+))?$`)

// taskclean runs git taskclean --run x1y2z3 args... in repo, as text.
func taskclean(repo string, args ...string) testbin.Result {
	return testbin.Run(repo, nil, "git", append([]string{"taskclean", "--run", run}, args...)...)
}

// printedRestores are the restore commands out holds (an --undo's or a
// --backups' text), by the path each restores, in the order printed.
func printedRestores(out string) map[string][]string {
	cmds := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "restore:"))
		if m := restoreFromCmd.FindStringSubmatch(line); m != nil {
			cmds[m[1]] = append(cmds[m[1]], line)
		}
	}
	return cmds
}

// runPrinted runs a printed command through the shell, as a user pasting it.
func runPrinted(t *testing.T, repo, cmd string) {
	t.Helper()
	if r := testbin.Run(repo, nil, "sh", "-c", cmd); r.Code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", cmd, r.Code, r.Stdout, r.Stderr)
	}
}

// removeRestored takes a restored worktree away again, so that another
// save of the same path can be restored there.
func removeRestored(t *testing.T, repo, wt string) {
	t.Helper()
	git(t, repo, "worktree", "remove", "--force", wt)
}

// twoCleans is task 2.2's worktree cleaned twice at the same path: the
// first attempt left first.txt (and work of every kind), the task was run
// again in a new worktree at that path, whose retry left second.txt; the
// second clean also saved task 2.1's worktree. It returns the stamps of
// the two cleans and what the worktree held before each.
func twoCleans(t *testing.T) (repo, wt, first, second string, firstState, secondState wtState) {
	t.Helper()
	repo = newRepo(t)
	wt = addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "first")
	testbin.WriteFile(t, filepath.Join(wt, "first.txt"), "the first attempt\n")
	firstState = stateOf(t, wt)
	doc := cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	first = doc.Stamp

	// The task run again at the same path, on its branch (a clean without
	// --task keeps it), beside task 2.1's worktree.
	git(t, repo, "worktree", "add", "-q", wt, br22)
	makeDirty(t, wt, "second")
	testbin.WriteFile(t, filepath.Join(wt, "second.txt"), "the retry\n")
	secondState = stateOf(t, wt)
	makeDirty(t, addWorktree(t, repo, "2.1"), "other")
	doc = cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	second = doc.Stamp
	if first == "" || second == "" || first == second {
		t.Fatalf("fixture: want two stamps, got %q and %q", first, second)
	}
	if firstState.files == secondState.files {
		t.Fatal("fixture: the two attempts hold the same files")
	}
	return repo, wt, first, second, firstState, secondState
}

// --undo of the first of two cleans of one path prints a command that
// brings back that clean's save (first.txt), not the newest (second.txt),
// which --restore PATH alone takes; --from the second stamp gives the
// second; --undo of the last clean prints its own.
func TestNoLossRestoreFromFirstOfTwoCleans(t *testing.T) {
	t.Parallel()
	repo, wt, first, second, firstState, secondState := twoCleans(t)

	u := taskclean(repo, "--undo", first)
	if u.Code != 0 {
		t.Fatalf("--undo %s: exit %d\n%s%s", first, u.Code, u.Stdout, u.Stderr)
	}
	cmds := printedRestores(u.Stdout)[wt]
	if len(cmds) != 1 {
		t.Fatalf("--undo %s prints %q for %s, want one restore command:\n%s", first, cmds, wt, u.Stdout)
	}
	runPrinted(t, repo, cmds[0])
	if testbin.Exists(filepath.Join(wt, "second.txt")) {
		t.Errorf("%s, printed by --undo %s, brought back second.txt, the later clean's save", cmds[0], first)
	}
	compareState(t, wt, firstState, stateOf(t, wt))
	if !strings.HasSuffix(cmds[0], " --from "+first) {
		t.Errorf("--undo %s prints %q, want it to name the clean: --from %s", first, cmds[0], first)
	}

	removeRestored(t, repo, wt)
	if r := taskclean(repo, "--restore", "2.2", "--from", second); r.Code != 0 {
		t.Fatalf("--restore 2.2 --from %s: exit %d\n%s%s", second, r.Code, r.Stdout, r.Stderr)
	}
	compareState(t, wt, secondState, stateOf(t, wt))

	// --undo of the last clean names it too: a clean of the path after it
	// would otherwise change what the printed command brings back.
	removeRestored(t, repo, wt)
	u = taskclean(repo, "--undo")
	if cmds := printedRestores(u.Stdout)[wt]; len(cmds) != 1 || !strings.HasSuffix(cmds[0], " --from "+second) {
		t.Fatalf("--undo prints %q for %s, want one --restore %s --from %s:\n%s", cmds, wt, wt, second, u.Stdout)
	}
}

// Every saved worktree --backups lists comes with the command that
// restores exactly it; the clean's own JSON names its save the same way.
func TestNoLossBackupsRestoreEach(t *testing.T) {
	t.Parallel()
	repo, wt, first, second, firstState, secondState := twoCleans(t)
	r := taskclean(repo, "--backups")
	if r.Code != 0 {
		t.Fatalf("--backups: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	cmds := printedRestores(r.Stdout)
	if len(cmds[wt]) != 2 || len(cmds[wtPath(repo, "2.1")]) != 1 {
		t.Fatalf("--backups prints %q, want two restore commands for %s and one for task 2.1's:\n%s", cmds, wt, r.Stdout)
	}
	want := map[string]wtState{first: firstState, second: secondState}
	for _, cmd := range cmds[wt] {
		stamp := restoreFromCmd.FindStringSubmatch(cmd)[2]
		runPrinted(t, repo, cmd)
		compareState(t, wt, want[stamp], stateOf(t, wt))
		removeRestored(t, repo, wt)
	}
	// --backups --json carries the same command with each worktree save.
	j := taskclean(repo, "--backups", "--json")
	for _, s := range []string{first, second} {
		if !strings.Contains(j.Stdout, `"command": "git taskclean --run `+run+` --restore `+wt+` --from `+s+`"`) {
			t.Errorf("--backups --json has no command restoring the save of %s by clean %s:\n%s", wt, s, j.Stdout)
		}
	}
	// A clean's JSON names the restore of its own save with its stamp.
	wt23 := addWorktree(t, repo, "2.3")
	makeDirty(t, wt23, "third")
	before := stateOf(t, wt23)
	doc := cleanOK(t, repo, nil)
	saves := doc.Find("save_worktree", wt23)
	if len(saves) != 1 || saves[0].Command != "git taskclean --run "+run+" --restore "+wt23+" --from "+doc.Stamp {
		t.Fatalf("the clean's save of %s: %v, want the command --restore %s --from %s", wt23, saves, wt23, doc.Stamp)
	}
	runPrinted(t, repo, saves[0].Command)
	compareState(t, wt23, before, stateOf(t, wt23))
}

// An interrupted clean and the rerun that finished it are one clean:
// --from either stamp finds a save the other holds. Task 2.1's worktree
// was deleted by the interrupted clean (its save is only there), 2.2's
// was put back and saved again by the rerun (both hold one), and 2.3's
// was made after the crash (only the rerun saved it).
func TestNoLossRestoreFromInterruptedClean(t *testing.T) {
	t.Parallel()
	repo, wts, before := twoDirtyWorktrees(t)
	wt21, wt22 := wts[0], wts[1]
	if r, doc := clean(t, repo, []string{"GIT_TASKCLEAN_CRASH_AFTER=1"}); r.Code != 99 {
		t.Fatalf("GIT_TASKCLEAN_CRASH_AFTER=1: exit %d, want 99\n%s", r.Code, printed(r, doc))
	}
	refs := strings.Fields(git(t, repo, "for-each-ref", "--format=%(refname)", "refs/taskclean/"+run+"/"))
	if len(refs) == 0 {
		t.Fatal("fixture: the interrupted clean recorded no save")
	}
	interrupted := strings.Split(strings.TrimPrefix(refs[0], "refs/taskclean/"+run+"/"), "/")[0]
	// 2.1's directory deleted before its entry was dropped.
	if err := os.RemoveAll(wt21 + ".taskclean-removing"); err != nil || testbin.Exists(wt21) {
		t.Fatalf("fixture: %s was not aside (%v)", wt21, err)
	}
	if !testbin.Exists(wt22 + ".taskclean-removing") {
		t.Fatalf("fixture: %s was not aside", wt22)
	}
	wt23 := addWorktree(t, repo, "2.3")
	makeDirty(t, wt23, filepath.Base(wt23))
	before[wt23] = treeState(t, wt23)

	doc := cleanOK(t, repo, nil)
	rerun := doc.Stamp
	if v := testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/taskclean/"+run+"/"+rerun+"/continues/"+interrupted); v.Code != 0 {
		t.Fatalf("fixture: the rerun %s does not continue %s", rerun, interrupted)
	}
	for _, c := range []struct{ wt, from string }{
		{wt21, rerun}, {wt21, interrupted},
		{wt22, interrupted}, {wt22, rerun},
		{wt23, interrupted}, {wt23, rerun},
	} {
		if r := taskclean(repo, "--restore", c.wt, "--from", c.from); r.Code != 0 {
			t.Errorf("--restore %s --from %s: exit %d\n%s%s", c.wt, c.from, r.Code, r.Stdout, r.Stderr)
			continue
		}
		if got := treeState(t, c.wt); got != before[c.wt] {
			t.Errorf("--restore %s --from %s restored other files:\nbefore:\n%s\nafter:\n%s", c.wt, c.from, before[c.wt], got)
		}
		removeRestored(t, repo, c.wt)
	}
	// --undo of either prints, for each of the three, a command that works.
	for _, stamp := range []string{rerun, interrupted} {
		u := taskclean(repo, "--undo", stamp)
		cmds := printedRestores(u.Stdout)
		for _, wt := range []string{wt21, wt22} {
			if len(cmds[wt]) != 1 {
				t.Errorf("--undo %s prints %q for %s, want one command:\n%s", stamp, cmds[wt], wt, u.Stdout)
				continue
			}
			runPrinted(t, repo, cmds[wt][0])
			if got := treeState(t, wt); got != before[wt] {
				t.Errorf("%s restored other files:\nbefore:\n%s\nafter:\n%s", cmds[wt][0], before[wt], got)
			}
			removeRestored(t, repo, wt)
		}
	}
}

// --from refused: one error line that says what to do, exit 2, and
// nothing changed (refs, worktrees, no directory made at the path).
func TestNoLossRestoreFromRefused(t *testing.T) {
	t.Parallel()
	repo, wt, first, _, _, _ := twoCleans(t)
	unknown := "20200101T000000.000000000Z"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--restore", "2.2", "--from", unknown}, "no saved clean " + unknown},
		{[]string{"--restore", wt, "--from", unknown}, "--backups"},
		{[]string{"--restore", "2.2", "--from", "yesterday"}, "not a stamp"},
		{[]string{"--restore", "2.2", "--from", ""}, "not a stamp"},
		// Task 2.1 has a save, of the second clean only.
		{[]string{"--restore", "2.1", "--from", first}, "saved no worktree of that task or path"},
		{[]string{"--restore", "2.1", "--from", first, "-n"}, "saved no worktree of that task or path"},
		{[]string{"--restore", "9.9", "--from", first}, "saved no worktree of that task or path"},
		{[]string{"--from", first}, "goes with --restore"},
		{[]string{"--from", first, "-n"}, "goes with --restore"},
		{[]string{"--undo", "--from", first}, "--undo " + first},
		{[]string{"--undo", first, "--from", first}, "--from is for --restore"},
		{[]string{"--backups", "--from", first}, "goes with --restore"},
		{[]string{"--expire-backups", "1d", "--from", first}, "goes with --restore"},
		{[]string{"--task", "2.2", "--from", first}, "goes with --restore"},
		{[]string{"--all", "--from", first}, "goes with --restore"},
	} {
		before := refState(t, repo)
		r := taskclean(repo, c.args...)
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		if r.Code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one error line with %q", c.args, r.Code, r.Stderr, c.want)
		}
		if after := refState(t, repo); after != before {
			t.Errorf("%q changed the repository:\nbefore:\n%s\nafter:\n%s", c.args, before, after)
		}
		if testbin.Exists(wt) {
			t.Fatalf("%q made %s", c.args, wt)
		}
	}
}

// The clean's closing line names its own stamp in the undo it offers:
// "--undo" alone is the last clean, another one once the run is cleaned
// again, and the line is read in logs long after.
func TestNoLossCleanOffersItsOwnUndo(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	makeDirty(t, addWorktree(t, repo, "2.2"), "own")
	r := taskclean(repo)
	m := regexp.MustCompile(`(?m)^saved under refs/taskclean/` + run + `/(\S+)/; undo with: (.*)$`).FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("the clean: exit %d, no closing line\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if want := "git taskclean --run " + run + " --undo " + m[1]; m[2] != want {
		t.Errorf("the clean offers %q, want %q", m[2], want)
	}
}
