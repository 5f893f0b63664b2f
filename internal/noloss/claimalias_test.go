package noloss

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// A take through a dangling claim alias on the remote (2.1 -> feature,
// feature absent) is read back, found to be the alias it wrote through,
// and undone: feature is gone again, the alias stays, the taker is told on
// stderr which alias holds 2.1 and gets another task, and this repository
// keeps no copy claiming 2.1.
func TestClaimDanglingAliasTakeUndoneNextTask(t *testing.T) {
	t.Parallel()
	repo, origin := remoteWithDanglingClaimAlias(t)
	r := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what := fmt.Sprintf("--claim: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/feature").Code == 0 {
		t.Errorf("the remote's feature exists after the take\n%s", what)
	}
	if got := symrefOf(origin, "refs/taskclaims/"+run+"/2.1"); got != "refs/heads/feature" {
		t.Errorf("the remote's claim alias is %q\n%s", got, what)
	}
	if r.Code != 0 || strings.TrimSpace(r.Stdout) == "2.1" || strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("want another task than 2.1 given\n%s", what)
	}
	for _, want := range []string{"warning: task 2.1 is not free", "refs/taskclaims/" + run + "/2.1 on origin is a symbolic ref to refs/heads/feature", "git symbolic-ref --delete"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q\n%s", want, what)
		}
	}
	if testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/taskclaims/"+run+"/2.1").Code == 0 {
		t.Errorf("this repository holds a copy of a claim of 2.1\n%s", what)
	}
	// The task given is the taker's own: renewed and released as usual.
	if id := strings.TrimSpace(r.Stdout); r.Code == 0 && id != "" && id != "2.1" {
		for _, verb := range []string{"--renew", "--release"} {
			if res := testbin.Taskresume(repo, nil, run, "--remote", "origin", verb, id, "--as", "agent-a"); res.Code != 0 {
				t.Errorf("%s %s: exit %d\n%s%s", verb, id, res.Code, res.Stdout, res.Stderr)
			}
		}
	}
}

// A chain: the claim is an alias of feature, itself an alias of a missing
// branch, gone. The push writes the last ref of the chain; ls-remote names
// that one, and only it is deleted: both aliases stay as they were.
func TestClaimDanglingAliasChainUndone(t *testing.T) {
	t.Parallel()
	repo, origin := remoteWithDanglingClaimAlias(t)
	git(t, origin, "symbolic-ref", "refs/heads/feature", "refs/heads/gone")
	r := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what := fmt.Sprintf("--claim: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/gone").Code == 0 {
		t.Errorf("the remote's gone exists after the take\n%s", what)
	}
	if got := strings.TrimSpace(testbin.Run(origin, nil, "git", "symbolic-ref", "-q", "--no-recurse", "refs/heads/feature").Stdout); got != "refs/heads/gone" {
		t.Errorf("the remote's feature is %q, want the alias of gone it was\n%s", got, what)
	}
	if got := strings.TrimSpace(testbin.Run(origin, nil, "git", "symbolic-ref", "-q", "--no-recurse", "refs/taskclaims/"+run+"/2.1").Stdout); got != "refs/heads/feature" {
		t.Errorf("the remote's claim alias is %q\n%s", got, what)
	}
	if strings.TrimSpace(r.Stdout) == "2.1" {
		t.Errorf("2.1 was given\n%s", what)
	}
}

// The undo refused (the remote denies deletes): the take fails, naming the
// ref written, the claim commit and the push that deletes it; 2.1 is not
// given and this repository keeps no copy claiming it.
func TestClaimDanglingAliasUndoRefused(t *testing.T) {
	t.Parallel()
	repo, origin := remoteWithDanglingClaimAlias(t)
	git(t, origin, "config", "receive.denyDeletes", "true")
	r := testbin.Taskresume(repo, nil, run, "--remote", "origin", "--claim", "--as", "agent-a")
	what := fmt.Sprintf("--claim: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if r.Code == 0 {
		t.Fatalf("the take succeeded\n%s", what)
	}
	oid := strings.TrimSpace(testbin.Run(origin, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/feature").Stdout)
	if oid == "" {
		t.Fatalf("feature absent: the undo was not refused\n%s", what)
	}
	for _, want := range []string{"refs/heads/feature", oid, "git push --force-with-lease=refs/heads/feature:" + oid + " origin :refs/heads/feature"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q\n%s", want, what)
		}
	}
	if testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/taskclaims/"+run+"/2.1").Code == 0 {
		t.Errorf("this repository holds a copy of a claim of 2.1\n%s", what)
	}
}
