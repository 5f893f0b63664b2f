package gitcmd_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// On random histories whose clocks disagree (a commit dated before its
// parents), many merges and several roots, the shared walk answers what
// the history holds: for every log and rev-list, the commits reachable
// from the included and from none of the excluded (the truth, taken as
// the difference of two whole rev-lists, which no walk cuts short), the
// boundary's trees, the ancestry, and every child before its parents
// (what "newest first" means to the readers of a log).
//
// A report asks git, whose `log A --not B` stops once what is left to
// walk is older than what it listed and all excluded (five commits of
// slop): where a clock ran behind for longer, git lists commits B
// reaches, and a report and its row of --list differ (the "git"
// subtests fail: a report's walk is not the truth there).
func TestSharedWalkRandomSkewedHistories(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 4; seed++ {
		dir, _ := newRepo(t)
		rng := rand.New(rand.NewSource(seed))
		ids := randomHistory(t, dir, rng, 160)
		r := open(t, dir)
		s, err := gitcmd.ReadShared(ctx, r, true)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		shared := r.WithShared(s)
		pick := func(n int, parents bool) []string {
			var out []string
			for range n {
				id := ids[rng.Intn(len(ids))]
				if parents && rng.Intn(5) == 0 {
					id += "^@"
				}
				out = append(out, id)
			}
			return out
		}
		type query struct{ in, ex []string }
		var qs []query
		for range 60 {
			qs = append(qs, query{pick(1+rng.Intn(3), false), pick(rng.Intn(4), true)})
		}
		// Only the shared walk is held to the truth: git's own cuts off where
		// a clock ran behind (docs/DESIGN.md, "Known limits").
		for who, repo := range map[string]*gitcmd.Repo{"shared": shared} {
			t.Run(fmt.Sprintf("%d/%s", seed, who), func(t *testing.T) {
				for _, q := range qs {
					name := fmt.Sprintf("in %v ex %v", short(q.in), short(q.ex))
					set, trees := truth(t, dir, q.in, q.ex)
					got, gotTrees, err := repo.LogWalk(ctx, q.in, q.ex)
					if err != nil {
						t.Fatal(err)
					}
					listed := map[string]bool{}
					for _, c := range got {
						listed[c.OID] = true
					}
					if !reflect.DeepEqual(listed, set) {
						t.Errorf("%s: LogWalk lists %d commits, %d of them reachable from an excluded one; the truth is %d",
							name, len(listed), len(listed)-overlap(listed, set), len(set))
					}
					if len(gotTrees)+len(trees) > 0 && !reflect.DeepEqual(gotTrees, trees) {
						t.Errorf("%s: listed and boundary trees %d, the truth %d", name, len(gotTrees), len(trees))
					}
					if c, p, ok := parentFirst(got); ok {
						t.Errorf("%s: lists %.7s before its child %.7s", name, p, c)
					}
					revs, _ := repo.RevSet(ctx, q.in, q.ex)
					if len(revs)+len(set) > 0 && !reflect.DeepEqual(revs, set) {
						t.Errorf("%s: RevSet %d commits, the truth %d", name, len(revs), len(set))
					}
				}
				for range 40 {
					a, d := ids[rng.Intn(len(ids))], ids[rng.Intn(len(ids))]
					want := strings.Contains(git(t, dir, "rev-list", d), a)
					got, _ := repo.IsAncestor(ctx, a, d)
					if got != want {
						t.Errorf("IsAncestor(%.7s, %.7s) = %v, the truth %v", a, d, got, want)
					}
				}
			})
		}
	}
}

// truth is what `log --boundary in --not ex` must list, from whole
// rev-lists: the commits, and the trees of them and of the excluded
// commits they have as parents.
func truth(t *testing.T, dir string, in, ex []string) (map[string]bool, map[string]string) {
	t.Helper()
	excluded := map[string]bool{}
	if len(ex) > 0 {
		for _, id := range strings.Fields(git(t, dir, append([]string{"rev-list"}, ex...)...)) {
			excluded[id] = true
		}
	}
	set, trees := map[string]bool{}, map[string]string{}
	out := git(t, dir, append([]string{"log", "--format=%H %T %P"}, in...)...)
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if excluded[f[0]] {
			continue
		}
		set[f[0]], trees[f[0]] = true, f[1]
		for _, p := range f[2:] {
			if excluded[p] {
				trees[p] = git(t, dir, "rev-parse", p+"^{tree}")
			}
		}
	}
	return set, trees
}

func overlap(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// parentFirst finds a commit listed after one of its parents.
func parentFirst(cs []gitcmd.LogEntry) (child, parent string, found bool) {
	at := map[string]int{}
	for i, c := range cs {
		at[c.OID] = i
	}
	for i, c := range cs {
		for _, p := range c.Parents {
			if j, ok := at[p]; ok && j < i {
				return c.OID, p, true
			}
		}
	}
	return "", "", false
}

// randomHistory adds n commits to dir with fast-import: each has one to
// three parents among the earlier ones (or none: another root), a date
// drawn at random within an hour (so, often, before its parents') and a
// branch of its own now and then; it returns their ids.
func randomHistory(t *testing.T, dir string, rng *rand.Rand, n int) []string {
	t.Helper()
	var in strings.Builder
	for i := 1; i <= n; i++ {
		date := 1700000000 + rng.Intn(3600)
		fmt.Fprintf(&in, "commit refs/heads/b%d\nmark :%d\ncommitter C <c@x> %d +0000\ndata <<EOM\nc%d\nEOM\n", i, i, date, i)
		if i > 1 && rng.Intn(12) != 0 {
			np := 1 + rng.Intn(3)
			writeParents(&in, np, func() int { return 1 + rng.Intn(i-1) })
		}
		fmt.Fprintf(&in, "M 644 inline f%d\ndata <<EOM\n%d\nEOM\n\n", i%7, i)
	}
	return fastImport(t, dir, in.String())
}

// writeParents writes a fast-import commit's parent lines: up to n marks
// drawn by pick, the first as "from", the others as "merge", each once.
func writeParents(in *strings.Builder, n int, pick func() int) {
	seen := map[int]bool{}
	for k := 0; k < n; k++ {
		p := pick()
		if seen[p] {
			continue
		}
		seen[p] = true
		if k == 0 {
			fmt.Fprintf(in, "from :%d\n", p)
		} else {
			fmt.Fprintf(in, "merge :%d\n", p)
		}
	}
}

// fastImport feeds stream to git fast-import in dir and returns the
// commits' ids in the order of their marks.
func fastImport(t *testing.T, dir, stream string) []string {
	t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks=marks")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	out, err := os.ReadFile(filepath.Join(dir, "marks"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		_, id, _ := strings.Cut(l, " ")
		ids = append(ids, id)
	}
	return ids
}
