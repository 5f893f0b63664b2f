package noloss

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Adversary, round 30 (symbolic refs). Tests that fail on the code they
// were written against; no fixes.

// A claim on the remote that is an alias of the remote's branch feature
// (refs/taskclaims/<run>/2.1 -> refs/heads/feature on origin). A push
// deleting or updating the claim goes through receive-pack, which writes
// through a symbolic ref: dropping the claim deleted the remote's feature,
// taking it over moved feature (its work no longer on any branch there).
// The local no-deref transaction protects only this repository's refs;
// the alias is now read with ls-remote --symref, held, and named.
func remoteClaimAlias(t *testing.T) (repo, origin, tip string) {
	repo = newRepo(t)
	origin = filepath.Join(filepath.Dir(repo), "origin.git")
	git(t, filepath.Dir(repo), "init", "-q", "--bare", origin)
	git(t, repo, "remote", "add", "origin", origin)
	git(t, repo, "push", "-q", "origin", "refs/heads/*:refs/heads/*")
	git(t, repo, "fetch", "-q", "origin")
	git(t, origin, "branch", "feature", "main")
	git(t, origin, "symbolic-ref", "refs/taskclaims/"+run+"/2.1", "refs/heads/feature")
	return repo, origin, git(t, origin, "rev-parse", "refs/heads/feature")
}

func requireRemoteClaimAlias(t *testing.T, origin, tip, what string) {
	t.Helper()
	if testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/feature").Code != 0 {
		t.Fatalf("the remote's branch feature (at %s) was deleted through the claim alias refs/taskclaims/%s/2.1\n%s", tip, run, what)
	}
	requireBranchAt(t, origin, "feature", tip)
	if got := symrefOf(origin, "refs/taskclaims/"+run+"/2.1"); got != "refs/heads/feature" {
		t.Errorf("the remote's claim alias is %q, want it left as the symbolic ref it was\n%s", got, what)
	}
}

func TestAdv30RemoteClaimAliasDeletesRemoteBranch(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--remote", "origin"}, {"--remote", "origin", "--all"}, {"--remote", "origin", "--task", "2.1"}} {
		name := strings.Join(args[2:], " ")
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo, origin, tip := remoteClaimAlias(t)
			r, doc := clean(t, repo, nil, args...)
			requireRemoteClaimAlias(t, origin, tip, printed(r, doc))
			if len(args) > 2 {
				skips := doc.Find("skip_claim", "")
				if len(skips) != 1 || !strings.Contains(skips[0].Reason, "symbolic ref to refs/heads/feature") || strings.Count(skips[0].Reason, "it stays") != 1 {
					t.Errorf("want one skip_claim naming the alias's target\n%s", printed(r, doc))
				}
			}
		})
	}
}

func TestAdv30RemoteClaimAliasTakeoverMovesRemoteBranch(t *testing.T) {
	t.Parallel()
	repo, origin, tip := remoteClaimAlias(t)
	// Protocol v0 names no symbolic ref but HEAD: the read asks for v2
	// whatever the configuration says.
	git(t, repo, "config", "protocol.version", "0")
	r := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what := fmt.Sprintf("--claim: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	requireRemoteClaimAlias(t, origin, tip, what)
	if r.Code != 0 || strings.TrimSpace(r.Stdout) == "2.1" {
		t.Errorf("want another task claimed, not 2.1 (held by the alias)\n%s", what)
	}
	r = testbin.Taskresume(repo, nil, run, "--remote", "origin", "--json")
	if !strings.Contains(r.Stdout, `"claim_alias"`) {
		t.Errorf("the report does not name the alias as claim_alias\n%s%s", r.Stdout, r.Stderr)
	}
	r = testbin.Taskresume(repo, nil, run, "--remote", "origin")
	if !strings.Contains(r.Stdout, "[held by a symbolic ref to refs/heads/feature on origin]") {
		t.Errorf("the report does not say what holds task 2.1\n%s%s", r.Stdout, r.Stderr)
	}
	for _, verb := range []string{"--renew", "--release"} {
		r = testbin.Taskresume(repo, nil, run, "--remote", "origin", verb, "2.1", "--as", "agent-a")
		if r.Code == 0 || !strings.Contains(r.Stderr, "is a symbolic ref to refs/heads/feature") {
			t.Errorf("%s 2.1: exit %d, want a refusal naming the alias\n%s%s", verb, r.Code, r.Stdout, r.Stderr)
		}
		requireRemoteClaimAlias(t, origin, tip, verb)
	}
}

// An alias of another branch of the run (<task 2.1's branch> -> <task
// 2.2's branch>), both deleted by one clean: --undo restores the target
// too, yet decides before restoring it that the target "no longer exists"
// and makes the alias a plain branch, which no longer follows its target.
// (The clean also said the target "stays" while deleting it.)
func TestAdv30UndoAliasOfDeletedRunBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	commitFile(t, wt, "x.txt", "x\n")
	git(t, repo, "worktree", "remove", wt)
	tip22 := git(t, repo, "rev-parse", "refs/heads/"+br22)
	makeAlias(t, repo, br21, "refs/heads/"+br22)
	snap := snapshotForLoss(t, repo)
	doc := cleanOK(t, repo, nil, "--all")
	assertNoLoss(t, snap, repo)
	for _, a := range doc.Find("delete_branch", "") {
		if a.Branch == br21 && strings.Contains(a.Reason, "stays") {
			t.Errorf("the clean says %s's target stays while it deletes it: %q", br21, a.Reason)
		}
	}
	r := undoOK(t, repo)
	requireBranchAt(t, repo, br22, tip22)
	if got := symrefOf(repo, "refs/heads/"+br21); got != "refs/heads/"+br22 {
		t.Errorf("after --undo, %s is %q as a symbolic ref, want %s again (both were restored)\n%s", br21, got, "refs/heads/"+br22, r.Stdout)
	}
}

// A worktree of the user's whose HEAD reaches the alias <run>-main through
// a per-worktree symbolic ref (HEAD -> refs/worktree/a -> <run>-main ->
// main). git's worktree list names main; the clean looks for the aliases
// HEAD goes through in the common directory only, so misses this chain
// and deletes the alias: the worktree is left on a branch that does not
// exist (TestSymrefAliasIsHeadOfAWorktree refuses the direct case).
func TestAdv30AliasHeldThroughPerWorktreeRef(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	makeAlias(t, repo, mainAlias, "refs/heads/main")
	other := filepath.Join(filepath.Dir(repo), "other")
	git(t, repo, "worktree", "add", "-q", "--detach", other, "main")
	git(t, other, "symbolic-ref", "refs/worktree/a", "refs/heads/"+mainAlias)
	git(t, other, "symbolic-ref", "HEAD", "refs/worktree/a")
	mainTip := git(t, repo, "rev-parse", "refs/heads/main")

	r, doc := clean(t, repo, nil, "--all")
	if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "refs/heads/main" {
		t.Errorf("the alias %s, which HEAD of %s goes through, was deleted (exit %d); want it left (a refusal as for HEAD on the alias)\n%s", mainAlias, other, r.Code, printed(r, doc))
	}
	requireBranchAt(t, repo, "main", mainTip)
	if res := testbin.Run(other, nil, "git", "rev-parse", "-q", "--verify", "HEAD"); res.Code != 0 {
		t.Errorf("HEAD of %s no longer resolves: its worktree is on a branch that does not exist", other)
	}
}
