package resume

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// reflogRepo creates a repository, isolated from the user's and the
// system's configuration, with one commit "base" on main. It returns the
// repository's directory.
func reflogRepo(t *testing.T) string {
	t.Helper()
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	reflogGit(t, filepath.Dir(dir), "init", "-q", dir)
	reflogCommit(t, dir, "base")
	return dir
}

// reflogGit runs the real git for test setup, apart from the code under
// test (and from its process count).
func reflogGit(t *testing.T, dir string, args ...string) string { return testbin.Git(t, dir, args...) }

// reflogCommit makes an empty commit and returns its id. Messages must
// differ between tests' commits: with fixed dates, equal messages on the
// same parent would be the same commit.
func reflogCommit(t *testing.T, dir, msg string) string {
	t.Helper()
	reflogGit(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return reflogGit(t, dir, "rev-parse", "HEAD")
}

// reflogTips returns the current tips of the named branches.
func reflogTips(t *testing.T, dir string, branches ...string) map[string]string {
	t.Helper()
	tips := map[string]string{}
	for _, b := range branches {
		tips[b] = reflogGit(t, dir, "rev-parse", "--verify", "refs/heads/"+b)
	}
	return tips
}

// runReflogLost opens dir and calls reflogLost, returning its result and
// how many git processes it started (Open's own is not counted).
func runReflogLost(t *testing.T, dir string, tips map[string]string) (map[string]LostWork, int64) {
	t.Helper()
	ctx := context.Background()
	repo, err := gitcmd.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	before := gitcmd.Processes()
	got, err := ReflogLost(ctx, repo, tips)
	if err != nil {
		t.Fatalf("reflogLost: %v", err)
	}
	return got, gitcmd.Processes() - before
}

// resetTask makes branch with two commits and resets it back to where it
// started; it returns the two commits, oldest first.
func resetTask(t *testing.T, dir, branch string) (string, string) {
	t.Helper()
	reflogGit(t, dir, "switch", "-q", "-c", branch)
	a := reflogCommit(t, dir, branch+" first")
	b := reflogCommit(t, dir, branch+" second")
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~2")
	return a, b
}

func TestReflogResetLosesWork(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-1-a"
	_, b := resetTask(t, dir, br)
	got, n := runReflogLost(t, dir, reflogTips(t, dir, br))
	want := LostWork{Branch: br, Commit: b, Subject: br + " second", Count: 2, Tips: []string{b}}
	if !reflect.DeepEqual(got[br], want) || len(got) != 1 {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if n != 1 {
		t.Errorf("%d git processes, want 1", n)
	}
}

// The lost commits are read whatever encoding git is told to write its
// output in: in UTF-16 the subjects could not be read (the report failed),
// in Latin-1 they were no longer the subjects every other read gives.
func TestReflogIgnoresOutputEncoding(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-1-caf\u00e9"
	reflogGit(t, dir, "switch", "-q", "-c", br)
	reflogCommit(t, dir, "Caf\u00e9 first")
	b := reflogCommit(t, dir, "Caf\u00e9 second")
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~2")
	for _, enc := range []string{"UTF-16", "ISO-8859-1"} {
		reflogGit(t, dir, "config", "i18n.logOutputEncoding", enc)
		got, _ := runReflogLost(t, dir, reflogTips(t, dir, br))
		if w := got[br]; w.Commit != b || w.Subject != "Caf\u00e9 second" || w.Count != 2 {
			t.Errorf("i18n.logOutputEncoding %s: got %+v", enc, got)
		}
	}
}

func TestReflogNormalBranchNoProcess(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-2-b"
	reflogGit(t, dir, "switch", "-q", "-c", br)
	reflogCommit(t, dir, "b one")
	reflogCommit(t, dir, "b two")
	// Main moves on and is merged in twice: as a real merge, then as a
	// fast-forward after main merges the branch back. Both only move the
	// branch forward.
	reflogGit(t, dir, "switch", "-q", "main")
	reflogCommit(t, dir, "main moves")
	reflogGit(t, dir, "switch", "-q", br)
	reflogGit(t, dir, "merge", "-q", "--no-edit", "main")
	reflogGit(t, dir, "switch", "-q", "main")
	reflogGit(t, dir, "merge", "-q", "--no-ff", "--no-edit", br)
	reflogGit(t, dir, "switch", "-q", br)
	reflogGit(t, dir, "merge", "-q", "main")
	reflogCommit(t, dir, "b three")
	reflogGit(t, dir, "branch", "-m", br, br+"-renamed")

	got, n := runReflogLost(t, dir, reflogTips(t, dir, br+"-renamed", "main"))
	if len(got) != 0 {
		t.Errorf("got %+v, want nothing", got)
	}
	if n != 0 {
		t.Errorf("%d git processes, want none", n)
	}
}

func TestReflogHeldByRefs(t *testing.T) {
	for _, hold := range []string{"refs/heads/keep", "refs/tags/keep", "refs/taskclean/keep"} {
		t.Run(hold, func(t *testing.T) {
			dir := reflogRepo(t)
			const br = "x-task-1-3-c"
			reflogGit(t, dir, "switch", "-q", "-c", br)
			reflogCommit(t, dir, "c one")
			b := reflogCommit(t, dir, "c two")
			reflogGit(t, dir, "update-ref", hold, b)
			reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~2")

			got, n := runReflogLost(t, dir, reflogTips(t, dir, br))
			if len(got) != 0 {
				t.Errorf("got %+v, want nothing: %s holds the work", got, hold)
			}
			if n != 1 {
				t.Errorf("%d git processes, want 1", n)
			}
		})
	}
}

func TestReflogHeldByWorktreeHead(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-4-d"
	reflogGit(t, dir, "switch", "-q", "-c", br)
	reflogCommit(t, dir, "d one")
	b := reflogCommit(t, dir, "d two")
	wt := filepath.Join(filepath.Dir(dir), "wt")
	reflogGit(t, dir, "worktree", "add", "-q", "--detach", wt, b)
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~2")
	tips := reflogTips(t, dir, br)

	// Asked from either worktree, the linked worktree's detached HEAD
	// holds the work.
	for _, from := range []string{dir, wt} {
		got, n := runReflogLost(t, from, tips)
		if len(got) != 0 {
			t.Errorf("from %s: got %+v, want nothing: the worktree's HEAD holds the work", from, got)
		}
		if n != 1 {
			t.Errorf("from %s: %d git processes, want 1", from, n)
		}
	}

	// Once that HEAD moves away, nothing holds the work.
	reflogGit(t, wt, "switch", "-q", "--detach", "main")
	got, _ := runReflogLost(t, dir, tips)
	want := LostWork{Branch: br, Commit: b, Subject: "d two", Count: 2}
	if !reflect.DeepEqual(noTips(got[br]), want) {
		t.Errorf("after the worktree moved: got %+v, want %+v", got, want)
	}
}

func TestReflogMissingFile(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-5-e"
	resetTask(t, dir, br)
	if err := os.Remove(filepath.Join(dir, ".git", "logs", "refs", "heads", br)); err != nil {
		t.Fatal(err)
	}
	// A branch that never existed has no file either.
	tips := reflogTips(t, dir, br)
	tips["x-task-9-9-none"] = tips[br]

	got, n := runReflogLost(t, dir, tips)
	if len(got) != 0 {
		t.Errorf("got %+v, want nothing", got)
	}
	if n != 0 {
		t.Errorf("%d git processes, want none", n)
	}
}

func TestReflogBranchWithSlash(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-1-1-a/wip"
	_, b := resetTask(t, dir, br)
	got, _ := runReflogLost(t, dir, reflogTips(t, dir, br))
	want := LostWork{Branch: br, Commit: b, Subject: br + " second", Count: 2, Tips: []string{b}}
	if !reflect.DeepEqual(got[br], want) || len(got) != 1 {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestReflogSharedLossCountsForEach(t *testing.T) {
	dir := reflogRepo(t)
	// Branch g is made at f's second commit; then both go back to base.
	reflogGit(t, dir, "switch", "-q", "-c", "x-task-1-6-f")
	reflogCommit(t, dir, "f one")
	b := reflogCommit(t, dir, "f two")
	reflogGit(t, dir, "branch", "x-task-1-7-g")
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~2")
	reflogGit(t, dir, "branch", "-f", "x-task-1-7-g", "main")
	// A third branch that lost nothing, in the same call.
	reflogGit(t, dir, "switch", "-q", "-c", "x-task-1-8-h", "main")
	reflogCommit(t, dir, "h one")

	got, n := runReflogLost(t, dir, reflogTips(t, dir, "x-task-1-6-f", "x-task-1-7-g", "x-task-1-8-h"))
	for _, br := range []string{"x-task-1-6-f", "x-task-1-7-g"} {
		want := LostWork{Branch: br, Commit: b, Subject: "f two", Count: 2}
		if !reflect.DeepEqual(noTips(got[br]), want) {
			t.Errorf("%s: got %+v, want %+v", br, got[br], want)
		}
	}
	if len(got) != 2 {
		t.Errorf("got %d entries, want 2: %+v", len(got), got)
	}
	if n != 1 {
		t.Errorf("%d git processes, want 1 for all branches", n)
	}
}

func TestReflogRewoundStepByStep(t *testing.T) {
	dir := reflogRepo(t)
	const br = "x-task-2-1-i"
	reflogGit(t, dir, "switch", "-q", "-c", br)
	reflogCommit(t, dir, "i one")
	b := reflogCommit(t, dir, "i two")
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~1")
	reflogGit(t, dir, "reset", "-q", "--hard", "HEAD~1")
	// Later work on the branch keeps it moving forward again.
	reflogCommit(t, dir, "i again")

	got, _ := runReflogLost(t, dir, reflogTips(t, dir, br))
	// The last entry naming lost work is the first reset's (to "i one");
	// the commit reported is the furthest work, "i two".
	want := LostWork{Branch: br, Commit: b, Subject: "i two", Count: 2}
	if !reflect.DeepEqual(noTips(got[br]), want) {
		t.Errorf("got %+v, want %+v", got[br], want)
	}
}

func TestReflogParseAndForwardMoves(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{id('0') + " " + id('a') + " Ada <a@x> 1700000000 +0000\tbranch: Created from HEAD", true},
		{id('a') + " " + id('b') + " Ada <a@x> 1700000000 +0000", true},
		{id('a') + " " + id('b'), false},
		{"", false},
		{id('a')[:20], false},
		{"-" + id('a')[1:] + " " + id('b') + " Ada <a@x> 1 +0000\tx", false},
	} {
		if _, ok := parseReflogLine(c.line); ok != c.ok {
			t.Errorf("parseReflogLine(%q) ok = %v, want %v", c.line, ok, c.ok)
		}
	}
	for _, c := range []struct {
		msg  string
		want bool
	}{
		{"commit: x", true},
		{"commit (merge): x", true},
		{"merge main: Fast-forward", true},
		{"merge main: Merge made by the 'ort' strategy.", true},
		{"pull -q --no-rebase origin main: Fast-forward", true},
		{"pull: Fast-forward", true},
		{"cherry-pick: x", true},
		{"revert: Revert \"x\"", true},
		{"commit (amend): x: Fast-forward", false},
		{"reset: moving to HEAD~2", false},
		{"rebase (finish): refs/heads/x onto " + id('c'), false},
		{"pull --rebase (finish): refs/heads/x onto " + id('c'), false},
		{"branch: Reset to main", false},
		{"", false},
	} {
		if got := movesForward(reflogEntry{old: id('a'), new: id('b'), msg: c.msg}); got != c.want {
			t.Errorf("movesForward(%q) = %v, want %v", c.msg, got, c.want)
		}
	}
	for _, name := range []string{"", "../x", "a/../../x", "a//b", "/a", "a\\b", "a/./b"} {
		if usableBranchName(name) {
			t.Errorf("usableBranchName(%q) = true", name)
		}
	}
}

// noTips is w without its Tips, for comparing the rest.
func noTips(w LostWork) LostWork {
	w.Tips = nil
	return w
}
