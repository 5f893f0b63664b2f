package noloss

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Adversary, round 31 (symbolic refs, second pass). Tests that fail on the
// code they were written against; no fixes.

// remoteWithDanglingClaimAlias is remoteClaimAlias with the remote's
// feature deleted afterwards: the claim ref of task 2.1 there is a
// symbolic ref to a branch that does not exist.
func remoteWithDanglingClaimAlias(t *testing.T) (repo, origin string) {
	repo, origin, _ = remoteClaimAlias(t)
	git(t, origin, "update-ref", "-d", "refs/heads/feature")
	if got := symrefOf(origin, "refs/taskclaims/"+run+"/2.1"); got != "refs/heads/feature" {
		t.Fatalf("fixture: the claim alias is %q", got)
	}
	return repo, origin
}

// A claim on the remote that is a symbolic ref to a branch the remote no
// longer has (refs/taskclaims/<run>/2.1 -> refs/heads/feature, feature
// deleted). ls-remote lists no dangling symbolic ref, in v2 as in v0, so
// the claim reads as absent; the take pushes to it expecting it absent,
// and receive-pack writes through it: the remote gains a branch feature at
// the claim's commit (an empty tree), and the taker's claim reads next as
// the alias it is, which it can neither renew nor release.
func TestAdv31RemoteDanglingClaimAliasTakeCreatesBranch(t *testing.T) {
	t.Parallel()
	repo, origin := remoteWithDanglingClaimAlias(t)
	r := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what := fmt.Sprintf("--claim: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if res := testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/feature"); res.Code == 0 {
		t.Errorf("the take created the remote's branch feature at %s through the dangling claim alias refs/taskclaims/%s/2.1\n%s",
			strings.TrimSpace(res.Stdout), run, what)
	}
	if got := symrefOf(origin, "refs/taskclaims/"+run+"/2.1"); got != "refs/heads/feature" {
		t.Errorf("the remote's claim alias is %q, want it left as the symbolic ref it was\n%s", got, what)
	}
	if r.Code == 0 && strings.TrimSpace(r.Stdout) == "2.1" {
		rel := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--release", "2.1", "--as", "agent-a")
		if rel.Code != 0 {
			t.Errorf("the claim of 2.1 it was given cannot be released: exit %d\n%s%s", rel.Code, rel.Stdout, rel.Stderr)
		}
	}
}

// --undo killed (SIGKILL) between the transaction that creates the alias
// as a plain branch at its saved tip and the `git symbolic-ref` that makes
// it an alias again: the kill comes from a reference-transaction hook
// once that transaction is committed, the moment a crash would leave. The
// rerun of --undo finds <run>-main a plain branch, takes it for a branch
// of the user's and leaves it so: the alias never comes back, and main's
// new commits are no longer what <run>-main names.
func TestAdv31UndoKilledBeforeSymbolicRef(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	makeAlias(t, repo, mainAlias, "refs/heads/main")
	mainTip := git(t, repo, "rev-parse", "refs/heads/main")
	cleanOK(t, repo, nil, "--all")

	marker := filepath.Join(filepath.Dir(repo), "killed")
	hook := `#!/bin/sh
# Kill git-taskclean (the parent of the git update-ref running this hook)
# once the transaction creating the alias's branch is committed.
[ "$1" = committed ] || exit 0
grep -q ' refs/heads/` + mainAlias + `$' || exit 0
[ -e '` + marker + `' ] && exit 0
: > '` + marker + `'
# /proc/PID/stat's 4th field is the parent; macOS has no /proc, but ps.
gp=$(awk '{print $4}' /proc/$PPID/stat 2>/dev/null || ps -o ppid= -p $PPID)
kill -9 $gp
`
	testbin.WriteFile(t, filepath.Join(repo, ".git", "hooks", "reference-transaction"), hook)
	testbin.Run(repo, nil, "chmod", "+x", filepath.Join(repo, ".git", "hooks", "reference-transaction"))

	r := testbin.Taskclean(repo, nil, "--run", run, "--undo")
	if !testbin.Exists(marker) {
		t.Fatalf("the hook did not kill the undo: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r.Code == 0 {
		t.Fatalf("the killed undo exited 0\n%s%s", r.Stdout, r.Stderr)
	}
	if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "" {
		t.Fatalf("the kill came after symbolic-ref (%s is already an alias of %s): the test does not test the window", mainAlias, got)
	}
	requireBranchAt(t, repo, mainAlias, mainTip) // the state the kill left

	r = undoOK(t, repo)
	if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "refs/heads/main" {
		t.Errorf("after the undo killed before symbolic-ref and its rerun, %s is %q as a symbolic ref, want refs/heads/main (the rerun did not finish what the killed undo began)\n%s%s",
			mainAlias, got, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "branch "+mainAlias+": made it a symbolic ref to refs/heads/main again") {
		t.Errorf("the rerun does not say it finished the alias\n%s", r.Stdout)
	}
	if testbin.Exists(filepath.Join(repo, ".git", "taskclean-"+run+".aliases")) {
		t.Errorf("the record of the aliases to make is left behind")
	}
	requireBranchAt(t, repo, "main", mainTip)
}

// A run in a bare repository with worktrees (a common layout for agents):
// the bare repository's HEAD names <run>-main, an alias of main, or
// <run>-main itself as a plain branch. observe skips the bare entry of
// the worktree list, so neither HEAD's branch nor the aliases its chain
// goes through hold anything: --all deletes <run>-main and leaves the
// repository's HEAD on a branch that does not exist (git log there
// fails; a clone of it has nothing to check out), where a worktree's HEAD
// on it refuses the clean (TestSymrefAliasIsHeadOfAWorktree).
func TestAdv31BareRepositoryHeadThroughAlias(t *testing.T) {
	t.Parallel()
	for _, alias := range []bool{true, false} {
		name := "head-on-alias"
		if !alias {
			name = "head-on-plain-run-main"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			bare := filepath.Join(filepath.Dir(repo), "bare.git")
			git(t, filepath.Dir(repo), "clone", "-q", "--bare", repo, bare)
			if alias {
				makeAlias(t, bare, mainAlias, "refs/heads/main")
			}
			git(t, bare, "symbolic-ref", "HEAD", "refs/heads/"+mainAlias)
			wt := filepath.Join(filepath.Dir(repo), "wt")
			git(t, bare, "worktree", "add", "-q", "--detach", wt, "main")
			mainTip := git(t, bare, "rev-parse", "refs/heads/main")

			r, doc := clean(t, wt, nil, "--all")
			if res := testbin.Run(bare, nil, "git", "rev-parse", "-q", "--verify", "HEAD"); res.Code != 0 {
				t.Errorf("the bare repository's HEAD (%s) no longer resolves: the clean deleted %s, which it names (exit %d)\n%s",
					strings.TrimSpace(testbin.Run(bare, nil, "git", "symbolic-ref", "HEAD").Stdout), mainAlias, r.Code, printed(r, doc))
			}
			requireBranchAt(t, bare, "main", mainTip)
		})
	}
}

// A branch of the user's, feature, that is an alias of task 2.2's branch
// (a short name for it). The clean deletes the task's branch as a plain
// branch and says nothing of feature, which is left a symbolic ref to a
// branch that no longer exists: `git branch` no longer lists it, `git log
// feature` fails, and nothing the clean printed tells the user why or
// that --undo brings it back (git branch -D does the same; the clean
// promises more: the alias HEAD goes through holds, an alias it deletes is
// saved as one).
func TestAdv31UserAliasOfDeletedTaskBranch(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--all"}, {"--task", "2.2"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := addWorktree(t, repo, "2.2")
			commitFile(t, wt, "x.txt", "x\n")
			git(t, repo, "worktree", "remove", wt)
			git(t, repo, "symbolic-ref", "refs/heads/feature", "refs/heads/"+br22)
			r, doc := clean(t, repo, nil, args...)
			if testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/feature").Code == 0 {
				return // refused, or kept what feature names
			}
			if !strings.Contains(r.Stdout, "feature") && !strings.Contains(r.Stderr, "feature") {
				t.Errorf("the user's branch feature, an alias of %s, was left pointing to nothing (exit %d), and the clean does not say so\n%s", br22, r.Code, printed(r, doc))
			}
		})
	}
}

// A HEAD written by git with core.preferSymlinkRefs (a documented setting
// git still honours): a symbolic link whose text is the ref it names
// (HEAD -> "refs/heads/<run>-main", an alias of main). HeadAliases reads
// HEAD's file through the link, so it reads the alias's own content and
// starts the chain at main: the alias HEAD names is held by nothing, --all
// deletes it, and the worktree is left on a branch that does not exist
// (with a plain HEAD file the clean refuses: TestSymrefAliasIsHeadOfAWorktree).
func TestAdv31SymlinkHeadOnAlias(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"main-worktree", "linked-worktree"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			makeAlias(t, repo, mainAlias, "refs/heads/main")
			holder := repo
			if where == "linked-worktree" {
				holder = filepath.Join(filepath.Dir(repo), "other")
				git(t, repo, "worktree", "add", "-q", "--detach", holder, "main")
			} else {
				git(t, repo, "switch", "-q", "--detach")
			}
			git(t, holder, "-c", "core.preferSymlinkRefs=true", "symbolic-ref", "HEAD", "refs/heads/"+mainAlias)
			headFile := git(t, holder, "rev-parse", "--git-path", "HEAD")
			if !filepath.IsAbs(headFile) {
				headFile = filepath.Join(holder, headFile)
			}
			if r := testbin.Run("", nil, "test", "-L", headFile); r.Code != 0 {
				t.Fatalf("fixture: %s is not a symbolic link", headFile)
			}
			if got := git(t, holder, "rev-parse", "--symbolic-full-name", "HEAD"); got != "refs/heads/main" {
				t.Fatalf("fixture: HEAD resolves to %q", got)
			}
			mainTip := git(t, repo, "rev-parse", "refs/heads/main")

			r, doc := clean(t, repo, nil, "--all")
			if res := testbin.Run(holder, nil, "git", "rev-parse", "-q", "--verify", "HEAD"); res.Code != 0 {
				t.Errorf("HEAD of %s (a symbolic link to %s) no longer resolves: the clean deleted the alias it names (exit %d)\n%s",
					holder, mainAlias, r.Code, printed(r, doc))
			}
			requireBranchAt(t, repo, "main", mainTip)
		})
	}
}

// A claim alias on the remote that points to another claim of the run
// (2.1 -> 2.2), 2.2 an expired claim. The clean drops 2.2 (saved, as it
// should), which leaves the alias 2.1 dangling, so invisible to ls-remote;
// the next take of 2.1 writes through it: the remote gains a claim of task
// 2.2 that says "task 2.1", held by a resumer working on 2.1, and 2.2 is
// taken by nobody working on it.
func TestAdv31RemoteClaimAliasOfClaimDroppedThenTaken(t *testing.T) {
	t.Parallel()
	repo, origin, _ := remoteClaimAlias(t)
	c22 := strings.TrimSpace(testbin.RunStdin(origin, nil, "", "git", "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"-m", "claim "+run+" task 2.2\n\nholder agent-b\nexpires 2000-01-01T00:00:00Z\nremote origin\n").Stdout)
	git(t, origin, "update-ref", "refs/taskclaims/"+run+"/2.2", c22)
	git(t, origin, "symbolic-ref", "refs/taskclaims/"+run+"/2.1", "refs/taskclaims/"+run+"/2.2")

	r, doc := clean(t, repo, nil, "--remote", "origin")
	what := printed(r, doc)
	r2 := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what += fmt.Sprintf("\n--claim: exit %d\n%s%s", r2.Code, r2.Stdout, r2.Stderr)
	if res := testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/taskclaims/"+run+"/2.2"); res.Code == 0 {
		body := testbin.Run(origin, nil, "git", "log", "-1", "--format=%B", "refs/taskclaims/"+run+"/2.2").Stdout
		if strings.Contains(body, "task 2.1") {
			t.Errorf("the remote's claim ref of task 2.2 holds a claim of task 2.1, written through the alias 2.1 -> 2.2 once the clean dropped 2.2:\n%s\n%s", body, what)
		}
	}
	if got := symrefOf(origin, "refs/taskclaims/"+run+"/2.1"); got != "" && strings.TrimSpace(r2.Stdout) == "2.1" {
		t.Errorf("agent-a was given task 2.1, whose claim ref on the remote is a symbolic ref to %s\n%s", got, what)
	}
}
