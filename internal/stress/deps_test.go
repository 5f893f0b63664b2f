package stress

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// depsPlan has two tasks of a parallel phase that name 1.1 as their
// dependency, and 2.3 that needs nothing.
const depsPlan = "# Implementation Plan\n\nRun ID: " + run + "\n\n" +
	"## Phase 1: Setup (Sequential)\n\n" +
	"### Task 1.1: Create database schema (M - 1h)\n- Files: `db/schema.sql`\n\n" +
	"## Phase 2: Services (Parallel)\n\n" +
	"### Task 2.1: User service (M - 2h)\n- Files: `src/user.ts`\n**Dependencies**: 1.1\n\n" +
	"### Task 2.2: Product service (M - 2h)\n- Files: `src/product.ts`\n**Dependencies**: 1.1\n"

// TestClaimAgainstCleanOfDependency races claimers against `git taskclean
// --task 1.1`, the dependency of 2.1 and 2.2, which the clean makes run
// again (it deletes 1.1's branch). The claims see 1.1 done and take 2.1 and
// 2.2; the clean sees nobody on them and deletes 1.1. Whatever the order,
// a task is never held while 1.1 is gone: a claim checks 1.1's branch in
// its own transaction, and the clean's deletion checks the claims of 2.1
// and 2.2 in its own (docs/DESIGN.md, "Forced re-execution and its
// dependents"). After each round: if 1.1's branch is gone, no claim of 2.1
// or 2.2 exists and no claimer printed one of them; every claimer's exit
// is 0, or 1 saying nothing is free or the run changed. The clean starts at
// a random moment of a claimer's run, so both orders happen.
func TestClaimAgainstCleanOfDependency(t *testing.T) {
	t.Parallel()
	n := envCount(t, "STRESS_CLAIM_CLEAN_DEPS", 100)
	tmp := claimDir(t)
	repo := testbin.NewRun(t, filepath.Join(tmp, "repo"), run)
	testbin.WriteFile(t, filepath.Join(repo, "specs", run, "plan.md"), depsPlan)
	testbin.Git(t, repo, "commit", "-q", "-am", "Plan with dependencies")
	testbin.Git(t, repo, "branch", "-f", run+"-main", "main")
	dep := testbin.Finish(t, repo, run, "1.1", "create-database-schema", run+"-main")
	depRef := "refs/heads/" + dep
	depOID := testbin.Git(t, repo, "rev-parse", depRef)
	if got := testbin.Git(t, repo, "taskresume", run, "--next"); got != "2.1\n2.2" {
		t.Fatalf("runnable %q, want 2.1 and 2.2", got)
	}
	const racers = 3
	var (
		cleanDeleted, cleanRefused, cleanCaught, cleanOther int
		wonDependents, wonDep, changed, noneFree            int
		claimTook, cleanTook                                time.Duration
		other                                               = kinds{}
	)
	found := &findings{t: t}
	for r := range n {
		testbin.Git(t, repo, "update-ref", depRef, depOID)
		clearClaims(t, repo)
		var calls []*call
		for i := range racers {
			calls = append(calls, &call{dir: repo, args: []string{"taskresume", run, "--claim", "--as", fmt.Sprintf("r%d-%d", r, i)}})
		}
		clean := &call{dir: repo, args: []string{"taskclean", "--run", run, "--task", "1.1"}}
		// Turns: the clean starts first, the claimers at a random moment
		// of its run; then the other way round.
		if r%2 == 0 && cleanTook > 0 {
			for _, c := range calls {
				c.delay = rand.N(cleanTook)
			}
		} else if r%2 == 1 && claimTook > 0 {
			clean.delay = rand.N(claimTook)
		}
		calls = append(calls, clean)
		together(calls)
		cleanTook = max(cleanTook, clean.took)
		var problems []string
		gone := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", depRef).Code != 0
		switch {
		case clean.res.Code == 0 && gone:
			cleanDeleted++
		case clean.res.Code == 2 && (strings.Contains(clean.res.Stderr, "depend on or are stacked on it") || strings.Contains(clean.res.Stderr, "depends on or is stacked on it")):
			cleanRefused++
		case clean.res.Code != 0 && strings.Contains(clean.res.Stderr, "claimed meanwhile"):
			cleanCaught++
		default:
			cleanOther++
			problems = append(problems, fmt.Sprintf("clean: exit %d, branch of 1.1 gone: %v: %s", clean.res.Code, gone, errorKind(clean.res.Stderr, tmp)))
		}
		if clean.res.Code != 0 && gone {
			problems = append(problems, "clean: failed, yet the branch of 1.1 is gone")
		}
		for _, c := range calls[:racers] {
			claimTook = max(claimTook, c.took)
			id := strings.TrimSpace(c.res.Stdout)
			switch {
			case c.res.Code == 0 && (id == "2.1" || id == "2.2"):
				wonDependents++
				if gone {
					problems = append(problems, fmt.Sprintf("hand-out: %s was handed %s, and 1.1's branch is gone", c.args[4], id))
				}
			case c.res.Code == 0 && id == "1.1":
				wonDep++
			case c.res.Code == 1 && strings.Contains(c.res.Stderr, "the run changed while claiming"):
				changed++
			case c.res.Code == 1 && strings.Contains(c.res.Stderr, "is free"):
				noneFree++
			default:
				k := fmt.Sprintf("exit %d %q: %s", c.res.Code, id, errorKind(c.res.Stderr, tmp))
				other[k]++
				problems = append(problems, "claimer: "+k)
			}
		}
		held := readClaims(t, repo)
		if gone {
			for _, id := range []string{"2.1", "2.2"} {
				if c, ok := held[id]; ok {
					problems = append(problems, fmt.Sprintf("held: %s is claimed by %s while 1.1's branch is gone", id, c.holder))
				}
			}
		}
		found.add(fmt.Sprintf("round %d", r), problems)
	}
	found.close(n)
	t.Logf("claims against a clean of their dependency: %d rounds, %d claimers each; clean deleted 1.1 %d times, refused %d (a claim of 2.x read), caught a claim made meanwhile %d, other %d; claimers won 2.1/2.2 %d times, 1.1 %d times, saw the run change %d times, found none free %d times, other %v",
		n, racers, cleanDeleted, cleanRefused, cleanCaught, cleanOther, wonDependents, wonDep, changed, noneFree, other)
	if cleanDeleted == 0 || wonDependents == 0 {
		t.Errorf("the race never went both ways (clean deleted %d, dependents won %d): it tested nothing", cleanDeleted, wonDependents)
	}
}
