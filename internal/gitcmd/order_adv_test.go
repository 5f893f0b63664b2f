package gitcmd_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// The shared walk lists a log's commits in the order git's own log of
// those revisions gives (--date-order): a report reads "the newest older
// commit of a subject", and "the first landing found", by that order.
// On random histories whose clocks agree (every commit after its parents,
// so that git's walk is whole), of several lines and merges, branches
// dated between them, every log of some tips without others.
func TestSharedWalkOrderIsTheLogsOwn(t *testing.T) {
	for _, tc := range []struct {
		name string
		// per is how many commits share one second.
		per int
		// graph: a commit-graph written (git's log then walks by
		// generation numbers where nothing is excluded).
		graph bool
	}{{"one second each", 1, false}, {"three a second", 3, false}, {"three a second, commit-graph", 3, true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			for seed := int64(1); seed <= 6; seed++ {
				dir, _ := newRepo(t)
				rng := rand.New(rand.NewSource(seed))
				ids := orderedHistory(t, dir, rng, 120, tc.per, false)
				if tc.graph {
					git(t, dir, "commit-graph", "write", "--reachable")
				}
				r := open(t, dir)
				s, err := gitcmd.ReadShared(ctx, r, true)
				if err != nil {
					t.Fatal(err)
				}
				shared := r.WithShared(s)
				bad := 0
				for range 60 {
					var in, ex []string
					for range 1 + rng.Intn(3) {
						in = append(in, ids[len(ids)/2+rng.Intn(len(ids)/2)])
					}
					for range rng.Intn(3) {
						ex = append(ex, ids[rng.Intn(len(ids))])
					}
					args := append([]string{"log", "--format=%H", "--date-order"}, in...)
					for _, e := range ex {
						args = append(args, "^"+e)
					}
					want := strings.Fields(git(t, dir, args...))
					cs, err := shared.LogRevs(ctx, in, ex)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, c := range cs {
						got = append(got, c.OID)
					}
					if strings.Join(got, " ") != strings.Join(want, " ") {
						bad++
						if bad <= 2 {
							t.Errorf("seed %d: log %v --not %v: the shared walk's order differs from git's (%d commits)", seed, short(in), short(ex), len(want))
						}
					}
				}
				if bad > 0 {
					t.Errorf("seed %d: %d of 60 logs in another order", seed, bad)
				}
				s.Close()
			}
		})
	}
}

// orderedHistory is randomHistory with every commit dated after its
// parents (per commits a second) and a branch on every tenth.
//
// With leaves, every fifth commit also gets a child on a branch of its
// own dated long before every other commit (a clock far behind): not
// among the ids returned.
func orderedHistory(t *testing.T, dir string, rng *rand.Rand, n, per int, leaves bool) []string {
	t.Helper()
	var in strings.Builder
	for i := 1; i <= n; i++ {
		ref := "refs/heads/b0"
		if i%10 == 0 || rng.Intn(6) == 0 {
			ref = fmt.Sprintf("refs/heads/b%d", i)
		}
		fmt.Fprintf(&in, "commit %s\nmark :%d\ncommitter C <c@x> %d +0000\ndata <<EOM\nc%d\nEOM\n", ref, i, 1700000000+i/per, i)
		if i > 1 {
			np := 1
			if rng.Intn(8) == 0 {
				np = 2
			}
			writeParents(&in, np, func() int { return max(1, i-1-rng.Intn(min(i-1, 12))) })
		}
		fmt.Fprintf(&in, "M 644 inline f%d\ndata <<EOM\n%d\nEOM\n\n", i%7, i)
		if leaves && i%5 == 0 {
			fmt.Fprintf(&in, "commit refs/heads/leaf%d\ncommitter C <c@x> %d +0000\ndata <<EOM\nleaf %d\nEOM\nfrom :%d\n\n", i, 1600000000+rng.Intn(1000), i, i)
		}
	}
	return fastImport(t, dir, in.String())
}

// LandedSince lists what the default branches gained since a run's base,
// kept by the filter, in the order of `git log --date-order <tips> --not
// <base>`: on random histories of several lines and merges, where
// branches off them have children dated before everything (which hold a
// commit back in the whole repository's order, not in that log's).
func TestLandedSinceOrderIsTheLogsOwn(t *testing.T) {
	ctx := context.Background()
	all := gitcmd.EvidenceFilter{Keep: func(*gitcmd.LogEntry) bool { return true }}
	answered := 0
	for seed := int64(1); seed <= 8; seed++ {
		dir, _ := newRepo(t)
		rng := rand.New(rand.NewSource(seed))
		ids := orderedHistory(t, dir, rng, 120, 1+int(seed%3), true)
		r := open(t, dir)
		s, err := gitcmd.ReadShared(ctx, r, true)
		if err != nil {
			t.Fatal(err)
		}
		shared := r.WithShared(s)
		// A few sets of default tips, each asked with many bases.
		for range 4 {
			var tips []string
			for range 1 + rng.Intn(3) {
				tips = append(tips, ids[len(ids)*2/3+rng.Intn(len(ids)/3)])
			}
			for range 15 {
				base := ids[rng.Intn(len(ids))]
				cs, _, ok := shared.LandedSince(tips, []string{base}, all)
				if !ok {
					continue
				}
				answered++
				args := append([]string{"log", "--format=%H", "--date-order"}, tips...)
				want := strings.Fields(git(t, dir, append(args, "^"+base)...))
				var got []string
				for _, c := range cs {
					got = append(got, c.OID)
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("seed %d: %v since %.7s: LandedSince lists %d commits, not in the order of git's %d", seed, short(tips), base, len(got), len(want))
				}
			}
		}
		s.Close()
	}
	t.Logf("%d queries answered", answered)
	if answered < 50 {
		t.Errorf("LandedSince answered %d queries: too few to say", answered)
	}
}
