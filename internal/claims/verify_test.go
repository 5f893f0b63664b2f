package claims_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// TestClaimChecksWhatItWaitsFor: a claim carries, in its own transaction,
// the branches that make its task's dependencies done at the commits read.
// A branch deleted after the reading (git taskclean --task of the
// dependency) makes the claim fail with ErrChanged, nothing written; the
// same claim on an unchanged reading goes through.
func TestClaimChecksWhatItWaitsFor(t *testing.T) {
	repo := phase2Ready(t, filepath.Join(t.TempDir(), "repo"))
	ctx := context.Background()
	r, err := gitcmd.Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	dep := "refs/heads/" + run + "-task-1-2-install-dependencies"
	oid := testbin.Git(t, repo, "rev-parse", dep)
	req := claims.Request{Run: run, Holder: "A", TTL: time.Hour, Now: time.Now(), Runnable: []string{"2.1", "2.2"},
		Held:   map[string]*claims.Claim{},
		Verify: func(string) []gitcmd.RefUpdate { return []gitcmd.RefUpdate{{Op: "verify", Ref: dep, Old: oid}} }}
	testbin.Git(t, repo, "update-ref", "-d", dep)
	if _, _, err := claims.Take(ctx, r, req); !errors.Is(err, claims.ErrChanged) {
		t.Fatalf("claim after the dependency's branch went: %v, want ErrChanged", err)
	}
	if refs := testbin.Git(t, repo, "for-each-ref", "refs/taskclaims/"); refs != "" {
		t.Fatalf("a failed claim wrote %s", refs)
	}
	testbin.Git(t, repo, "update-ref", dep, oid)
	got, _, err := claims.Take(ctx, r, req)
	if err != nil || got.Task != "2.1" {
		t.Fatalf("claim on an unchanged reading: %v %v, want 2.1", got, err)
	}
}
