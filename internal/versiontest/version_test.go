// Package versiontest checks, end to end, what a repository that requires
// a version of the tool gets from binaries of different versions: two
// release builds (stamped at link time, as the release archives are) and
// the development build every other end-to-end test uses, against one
// origin and its clones.
package versiontest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// releases are the stamped builds, by version: dir holding both commands.
var releases = map[string]string{}

func TestMain(m *testing.M) {
	// Built before testbin.Main moves HOME, so the Go build cache is the
	// user's: only the link step differs from the plain build.
	tmp, err := os.MkdirTemp("", "taskresume-versions-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	defer func() { os.RemoveAll(tmp); os.Exit(code) }()
	for _, v := range []string{"1.2.0", "1.5.0"} {
		dir := filepath.Join(tmp, v)
		if err := testbin.BuildInto(dir, "-ldflags=-X github.com/taskresume/git-taskresume/internal/version.stamped="+v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
		releases[v] = dir
	}
	code = testbin.Main(m, testbin.Options{})
}

// with runs the commands of version v (a release built above, or "dev",
// testbin's build) through git's dispatch: its directory first on PATH.
func with(v string) []string {
	dir := testbin.BinDir()
	if v != "dev" {
		dir = releases[v]
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
}

const run = "v3rs10"

// plan is a two-phase plan whose front matter holds front (a line, or "").
func plan(front string) string {
	s := ""
	if front != "" {
		s = "---\nrunId: " + run + "\n" + front + "\n---\n"
	}
	return s + "# Plan\n\nRun ID: " + run + "\n\n## Phase 1: Setup (Sequential)\n\n### Task 1.1: Schema\n\n" +
		"## Phase 2: Services (Parallel)\n\n### Task 2.1: Users\n\n### Task 2.2: Orders\n"
}

// origin makes a bare origin holding the run (its plan with front, task
// 1.1 done) and returns it with two clones of it.
func origin(t *testing.T, front string) (string, string, string) {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	testbin.Git(t, "", "init", "-q", "-b", "main", work)
	testbin.WriteFile(t, filepath.Join(work, "specs", run, "plan.md"), plan(front))
	testbin.Git(t, work, "add", "-A")
	testbin.Git(t, work, "commit", "-q", "-m", "Add plan for run "+run)
	testbin.Git(t, work, "branch", run+"-main")
	testbin.Finish(t, work, run, "1.1", "schema", run+"-main")
	bare := filepath.Join(root, "origin.git")
	testbin.Git(t, "", "clone", "-q", "--bare", work, bare)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	testbin.Git(t, "", "clone", "-q", bare, a)
	testbin.Git(t, "", "clone", "-q", bare, b)
	return bare, a, b
}

// refs is every ref and its value, and the worktrees: what must not change.
func refs(t *testing.T, dir string) string {
	t.Helper()
	return testbin.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)") + "\n" +
		testbin.Git(t, dir, "worktree", "list", "--porcelain")
}

const need = "this repository needs git-taskresume >= 1.4 (this is 1.2.0): upgrade"

// TestOldBinaryRefusesWhatWrites: with the plan's front matter requiring
// >= 1.4, the 1.2.0 binary still reports (its header says why it refuses
// the rest), and refuses every mode that writes or hands out work, with
// one line, exit 2, nothing changed here or on the origin; 1.5.0 claims.
func TestOldBinaryRefusesWhatWrites(t *testing.T) {
	bare, a, b := origin(t, `taskresume-version: ">= 1.4"`)
	old, cur := with("1.2.0"), with("1.5.0")
	src := "(specs/" + run + "/plan.md:3)"

	r := testbin.Must(t, testbin.Taskresume(a, old, run))
	if lines := strings.Split(r.Stdout, "\n"); len(lines) < 2 || lines[1] != need+" "+src {
		t.Errorf("the report's header does not say the version is refused:\n%s", r.Stdout)
	}
	var rep struct {
		Tool *struct {
			Version  string
			Dev      bool
			Allowed  bool
			Requires []struct{ Constraint, Source string }
		}
	}
	if err := json.Unmarshal([]byte(testbin.Must(t, testbin.Taskresume(a, old, run, "--json")).Stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if tl := rep.Tool; tl == nil || tl.Version != "1.2.0" || tl.Dev || tl.Allowed || len(tl.Requires) != 1 ||
		tl.Requires[0].Constraint != ">= 1.4" || tl.Requires[0].Source != "specs/"+run+"/plan.md:3" {
		t.Errorf("JSON tool: %+v", rep.Tool)
	}

	// --check-plan says what the plan requires, and whether it allows
	// this binary.
	r = testbin.Must(t, testbin.Taskresume(a, old, "--check-plan", filepath.Join("specs", run, "plan.md")))
	if !strings.Contains(r.Stdout, "\nneeds git-taskresume >= 1.4 (this is 1.2.0: not allowed: upgrade before resuming this run)\n") {
		t.Errorf("--check-plan does not say the plan needs >= 1.4:\n%s", r.Stdout)
	}
	r = testbin.Must(t, testbin.Taskresume(a, cur, "--check-plan", filepath.Join("specs", run, "plan.md"), "--json"))
	if !strings.Contains(r.Stdout, `"this": "1.5.0",`+"\n    \"allowed\": true") {
		t.Errorf("--check-plan --json with 1.5.0:\n%s", r.Stdout)
	}

	// A worktree left by a crashed task, so that the clean has something
	// to do, and a saved clean for --undo, --restore and --expire-backups,
	// made by the allowed binary.
	testbin.Git(t, a, "worktree", "add", "-q", "-b", run+"-task-2-2-orders", filepath.Join(a, ".worktrees", "2-2"), "origin/"+run+"-main")
	testbin.WriteFile(t, filepath.Join(a, ".worktrees", "2-2", "wip.txt"), "half done\n")
	testbin.Must(t, testbin.Taskclean(a, cur, "--run", run))
	testbin.Git(t, a, "worktree", "add", "-q", "-b", run+"-task-2-1-users", filepath.Join(a, ".worktrees", "2-1"), "origin/"+run+"-main")
	testbin.WriteFile(t, filepath.Join(a, ".worktrees", "2-1", "wip.txt"), "half done\n")

	before, beforeOrigin := refs(t, a), refs(t, bare)
	for _, c := range [][]string{
		{"taskresume", run, "--claim", "--remote", "origin"},
		{"taskresume", run, "--next"},
		{"taskresume", run, "--exit-code"},
		{"taskresume", run, "--short", "--exit-code"},
		{"taskresume", run, "--renew", "2.1", "--as", "x", "--remote", "origin"},
		{"taskresume", run, "--release", "2.1", "--as", "x", "--remote", "origin"},
		{"taskclean", "--run", run},
		{"taskclean", "--run", run, "--dry-run"},
		{"taskclean", "--run", run, "--all"},
		{"taskclean", "--run", run, "--task", "2.1"},
		{"taskclean", "--run", run, "--undo"},
		{"taskclean", "--run", run, "--restore", ".worktrees/2-2"},
		{"taskclean", "--run", run, "--expire-backups", "0s"},
	} {
		r := testbin.Run(a, old, "git", c...)
		if want := "error: " + need + " " + src + "\n"; r.Code != 2 || r.Stderr != want || r.Stdout != "" {
			t.Errorf("git %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c, " "), r.Code, r.Stdout, r.Stderr, want)
		}
	}
	if after := refs(t, a); after != before {
		t.Errorf("the refused commands changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if after := refs(t, bare); after != beforeOrigin {
		t.Errorf("the refused commands changed the origin:\nbefore:\n%s\nafter:\n%s", beforeOrigin, after)
	}
	if !testbin.Exists(filepath.Join(a, ".worktrees", "2-1", "wip.txt")) {
		t.Error("a refused clean removed the worktree")
	}

	// The allowed binary, in the other clone, hands out and claims; its
	// claim records its version.
	if r := testbin.Must(t, testbin.Taskresume(b, cur, run, "--next")); r.Stdout != "2.1\n2.2\n" {
		t.Errorf("1.5.0 --next = %q", r.Stdout)
	}
	testbin.Must(t, testbin.Taskresume(b, cur, run, "--claim", "--remote", "origin", "--as", "bee"))
	body := testbin.Git(t, bare, "log", "-1", "--format=%B", "refs/taskclaims/"+run+"/2.1")
	if !strings.Contains(body, "\nversion 1.5.0") {
		t.Errorf("the claim does not record its version:\n%s", body)
	}
	// The development build is allowed, and says it did not check.
	r = testbin.Must(t, testbin.Taskresume(b, with("dev"), run, "--next"))
	if r.Stdout != "2.2\n" {
		t.Errorf("dev --next = %q", r.Stdout)
	}
	r = testbin.Must(t, testbin.Taskresume(b, with("dev"), run))
	if !strings.Contains(r.Stdout, "development build dev") || !strings.Contains(r.Stdout, "(>= 1.4) is not checked") {
		t.Errorf("the dev build's header does not say it did not check:\n%s", r.Stdout)
	}
}

// TestConfigRequirement: git config taskresume.minVersion, set in one
// clone only, holds there, and both it and the plan's must hold.
func TestConfigRequirement(t *testing.T) {
	_, a, b := origin(t, `taskresume-version: "< 2"`)
	old, cur := with("1.2.0"), with("1.5.0")
	testbin.Git(t, a, "config", "taskresume.minVersion", "1.4")
	r := testbin.Taskresume(a, old, run, "--next")
	if want := "error: " + need + " (git config taskresume.minVersion)\n"; r.Code != 2 || r.Stderr != want {
		t.Errorf("1.2.0 with the config: exit %d %q, want %q", r.Code, r.Stderr, want)
	}
	testbin.Must(t, testbin.Taskresume(b, old, run, "--next")) // the other clone has no such config
	testbin.Must(t, testbin.Taskresume(a, cur, run, "--next"))
	// Both hold: 1.5.0 passes >= 1.4 and < 2; nothing passes < 1.3 too.
	testbin.Git(t, a, "config", "taskresume.minVersion", "< 1.3")
	r = testbin.Taskresume(a, cur, run, "--next")
	if r.Code != 2 || !strings.Contains(r.Stderr, "needs git-taskresume < 1.3 (this is 1.5.0): install a version it allows (git config taskresume.minVersion)") {
		t.Errorf("1.5.0 with < 1.3: exit %d %q", r.Code, r.Stderr)
	}
	// A constraint that does not parse: one line naming the key, exit 2,
	// for every command, the report too.
	testbin.Git(t, a, "config", "taskresume.minVersion", "latest")
	for _, c := range [][]string{{"taskresume", run}, {"taskresume", "--list"}, {"taskclean", "--run", run, "--dry-run"}} {
		r = testbin.Run(a, cur, "git", c...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, `error: git config taskresume.minVersion "latest" is not a version constraint`) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("git %s with a bad constraint: exit %d %q", strings.Join(c, " "), r.Code, r.Stderr)
		}
	}
}

// TestBadFrontMatter: a plan whose constraint does not parse is refused
// with its file:line.
func TestBadFrontMatter(t *testing.T) {
	_, a, _ := origin(t, "taskresume-version: soon")
	r := testbin.Taskresume(a, with("1.5.0"), run)
	want := "specs/" + run + "/plan.md:3: taskresume-version \"soon\" is not a version constraint"
	if r.Code != 2 || !strings.Contains(r.Stderr, want) || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("exit %d %q, want exit 2 and one line with %q", r.Code, r.Stderr, want)
	}
}

// TestOldClaims: claims written by a version the repository does not
// allow, or by a binary that records no version while the repository asks
// for a minimum, are named (claim_old_version), so a team sees the machine
// that still runs an older rule.
func TestOldClaims(t *testing.T) {
	bare, a, b := origin(t, "")
	// 1.2.0 claims 2.1 while nothing is required.
	testbin.Must(t, testbin.Taskresume(a, with("1.2.0"), run, "--claim", "--remote", "origin", "--as", "old-machine"))
	// A binary from before versions were recorded claims 2.2: its claim
	// commit, as it wrote them.
	oldBody := fmt.Sprintf("claim %s task 2.2\n\nholder older\nhost h\npid 1\nsince 2026-11-28T00:00:00Z\nexpires 2099-01-01T00:00:00Z\nremote origin\n", run)
	tree := testbin.GitStdin(t, bare, "", "hash-object", "-t", "tree", "-w", "--stdin")
	c := testbin.GitStdin(t, bare, oldBody, "commit-tree", tree)
	testbin.Git(t, bare, "update-ref", "refs/taskclaims/"+run+"/2.2", c)

	problems := func(dir string) map[string]string {
		var rep struct {
			Problems []struct{ Kind, Task, Message string }
		}
		out := testbin.Must(t, testbin.Taskresume(dir, with("1.5.0"), run, "--json", "--remote", "origin")).Stdout
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, p := range rep.Problems {
			if p.Kind == "claim_old_version" {
				got[p.Task] = p.Message
			}
		}
		return got
	}
	if got := problems(b); len(got) != 0 {
		t.Errorf("claim_old_version with nothing required: %v", got)
	}
	// An upper bound only: a claim with no version may be any version.
	testbin.Git(t, b, "config", "taskresume.minVersion", "< 2")
	if got := problems(b); len(got) != 0 {
		t.Errorf("claim_old_version with an upper bound only: %v", got)
	}
	testbin.Git(t, b, "config", "taskresume.minVersion", ">= 1.4")
	got := problems(b)
	if m := got["2.1"]; !strings.Contains(m, "claimed by old-machine with git-taskresume 1.2.0") || !strings.Contains(m, ">= 1.4") {
		t.Errorf("the 1.2.0 claim: %q", m)
	}
	if m := got["2.2"]; !strings.Contains(m, "claimed by older with a git-taskresume too old to record its version") {
		t.Errorf("the claim without a version: %q", m)
	}
	if len(got) != 2 {
		t.Errorf("claim_old_version: %v", got)
	}
	// The human report names them too.
	r := testbin.Must(t, testbin.Taskresume(b, with("1.5.0"), run, "--remote", "origin"))
	if !strings.Contains(r.Stdout, "claim_old_version") {
		t.Errorf("the report does not name the old claims:\n%s", r.Stdout)
	}
}

// TestBackupModesReadThePlan: --undo, --restore and --expire-backups
// refuse under the plan's constraint even when the report fails for
// another reason (here a taskresume.base naming nothing), and refuse a
// plan constraint that does not parse; only a run that is gone altogether
// leaves git config's constraint alone.
func TestBackupModesReadThePlan(t *testing.T) {
	_, a, _ := origin(t, `taskresume-version: ">= 1.4"`)
	old, cur := with("1.2.0"), with("1.5.0")
	wt := filepath.Join(a, ".worktrees", "2-2")
	testbin.Git(t, a, "worktree", "add", "-q", "-b", run+"-task-2-2-orders", wt, "origin/"+run+"-main")
	testbin.WriteFile(t, filepath.Join(wt, "wip.txt"), "half done\n")
	testbin.Must(t, testbin.Taskclean(a, cur, "--run", run))
	testbin.Git(t, a, "config", "taskresume.base", "no-such-ref")
	for _, c := range [][]string{{"--restore", "2.2"}, {"--undo"}, {"--expire-backups", "0s"}} {
		r := testbin.Taskclean(a, old, append([]string{"--run", run}, c...)...)
		if r.Code != 2 || testbin.Exists(filepath.Join(wt, "wip.txt")) {
			t.Errorf("1.2.0 %s with a broken taskresume.base: exit %d %q", c[0], r.Code, r.Stderr)
		}
	}
	if n := testbin.Git(t, a, "for-each-ref", "--count=1", "refs/taskclean/"); n == "" {
		t.Error("a refused --expire-backups deleted the saves")
	}

	_, b, _ := origin(t, "taskresume-version: soon")
	for _, c := range [][]string{{"--expire-backups", "1000d"}, {"--backups"}} {
		r := testbin.Taskclean(b, cur, append([]string{"--run", run}, c...)...)
		if c[0] == "--backups" {
			// A listing reads no plan: allowed, whatever the plan says.
			if r.Code != 0 {
				t.Errorf("--backups with a plan constraint that does not parse: exit %d %q", r.Code, r.Stderr)
			}
			continue
		}
		if r.Code != 2 || !strings.Contains(r.Stderr, "plan.md:3: taskresume-version \"soon\"") {
			t.Errorf("%s with a plan constraint that does not parse: exit %d %q", c[0], r.Code, r.Stderr)
		}
	}
	testbin.Git(t, b, "config", "taskresume.minVersion", "latest")
	if r := testbin.Taskclean(b, cur, "--run", run, "--backups"); r.Code != 2 || !strings.Contains(r.Stderr, "git config taskresume.minVersion") {
		t.Errorf("--backups with a config constraint that does not parse: exit %d %q", r.Code, r.Stderr)
	}

	// The whole run cleaned and its plan gone: --undo reads git config's
	// constraint alone, and it holds.
	_, c, _ := origin(t, "")
	wt = filepath.Join(c, ".worktrees", "2-2")
	testbin.Git(t, c, "worktree", "add", "-q", "-b", run+"-task-2-2-orders", wt, "origin/"+run+"-main")
	testbin.WriteFile(t, filepath.Join(wt, "wip.txt"), "half done\n")
	testbin.Must(t, testbin.Taskclean(c, cur, "--run", run, "--all"))
	for _, b := range strings.Fields(testbin.Git(t, c, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/"+run+"-*")) {
		testbin.Git(t, c, "update-ref", "-d", b)
	}
	testbin.Git(t, c, "rm", "-q", "-r", "specs")
	testbin.Git(t, c, "commit", "-q", "-m", "drop the plan")
	testbin.Git(t, c, "config", "taskresume.minVersion", ">= 1.4")
	if r := testbin.Taskclean(c, old, "--run", run, "--undo"); r.Code != 2 || r.Stderr != "error: "+need+" (git config taskresume.minVersion)\n" {
		t.Errorf("1.2.0 --undo of a run gone: exit %d %q", r.Code, r.Stderr)
	}
	testbin.Must(t, testbin.Taskclean(c, cur, "--run", run, "--undo"))
}

// TestEveryCopyOfThePlanCounts: the constraint of a copy of the plan the
// report does not read (a diverged copy, the run's own plan when --plan
// names another) holds all the same: no copy can be chosen to leave it out.
func TestEveryCopyOfThePlanCounts(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	testbin.Git(t, "", "init", "-q", "-b", "main", work)
	p := filepath.Join(work, "specs", run, "plan.md")
	testbin.WriteFile(t, p, plan(""))
	testbin.Git(t, work, "add", "-A")
	testbin.Git(t, work, "commit", "-q", "-m", "Add plan for run "+run)
	testbin.Git(t, work, "branch", run+"-main")
	testbin.WriteFile(t, p, plan(`taskresume-version: ">= 1.4"`))
	testbin.Must(t, testbin.Run(work, []string{"GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"}, "git", "commit", "-q", "-am", "require 1.4"))
	testbin.Git(t, work, "checkout", "-q", run+"-main")
	testbin.WriteFile(t, p, plan("")+"\nMore detail.\n")
	testbin.Must(t, testbin.Run(work, []string{"GIT_COMMITTER_DATE=2026-06-01T00:00:00Z"}, "git", "commit", "-q", "-am", "detail"))
	testbin.Git(t, work, "checkout", "-q", "main")
	if r := testbin.Taskresume(work, with("1.2.0"), run, "--next"); r.Code != 2 || !strings.Contains(r.Stderr, need) {
		t.Errorf("1.2.0 --next where main's copy of the plan requires >= 1.4: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	testbin.Must(t, testbin.Taskresume(work, with("1.5.0"), run, "--next"))

	other := filepath.Join(root, "plan-without.md")
	testbin.WriteFile(t, other, plan(""))
	for _, args := range [][]string{{"--plan", other}, {"--plan", run + "-main:specs/" + run + "/plan.md"}} {
		r := testbin.Taskresume(work, with("1.2.0"), append([]string{run, "--next"}, args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, need) {
			t.Errorf("1.2.0 --next %s: exit %d %q %q", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
}

// TestRefusedCleanTakesNoLock: a clean refused for its version does not
// take the run's lock (an allowed clean would wait for it) nor rewrite
// the lock file.
func TestRefusedCleanTakesNoLock(t *testing.T) {
	_, a, _ := origin(t, `taskresume-version: ">= 1.4"`)
	testbin.Must(t, testbin.Taskclean(a, with("1.5.0"), "--run", run)) // makes the lock file
	lock := filepath.Join(a, ".git", "taskclean-"+run+".lock")
	before, err := os.Stat(lock)
	if err != nil {
		t.Fatal(err)
	}
	old := before.ModTime().Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	r := testbin.Taskclean(a, with("1.2.0"), "--run", run)
	if r.Code != 2 {
		t.Fatalf("1.2.0 clean: exit %d %q", r.Code, r.Stderr)
	}
	if after, err := os.Stat(lock); err != nil || !after.ModTime().Equal(old) {
		t.Errorf("the refused clean touched the lock file: %v", err)
	}
}

// TestAliasClaimIsNoOldVersion: a claim ref that is a symbolic ref on the
// remote is claim_alias, not a claim of an old version.
func TestAliasClaimIsNoOldVersion(t *testing.T) {
	bare, _, b := origin(t, `taskresume-version: ">= 1.4"`)
	testbin.Git(t, bare, "symbolic-ref", "refs/taskclaims/"+run+"/2.1", "refs/heads/main")
	r := testbin.Must(t, testbin.Taskresume(b, with("1.5.0"), run, "--remote", "origin"))
	if strings.Contains(r.Stdout, "claim_old_version") || !strings.Contains(r.Stdout, "claim_alias") {
		t.Errorf("an alias claim:\n%s", r.Stdout)
	}
}

// TestClaimJSONCarriesVersion: --claim --json gives the version its claim
// records.
func TestClaimJSONCarriesVersion(t *testing.T) {
	_, a, _ := origin(t, "")
	r := testbin.Must(t, testbin.Taskresume(a, with("1.5.0"), run, "--claim", "--remote", "origin", "--json"))
	if !strings.Contains(r.Stdout, `"version": "1.5.0"`) {
		t.Errorf("--claim --json:\n%s", r.Stdout)
	}
}
