package gitcmd_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// history builds a repository of random branches, commits and merges over
// a few paths, each commit a minute after the one before.
type history struct {
	t    *testing.T
	dir  string
	when int64
	rng  *rand.Rand
	made int // branches made
}

var historyPaths = []string{"a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e", "e2/f.txt"}

func (h *history) git(args ...string) (string, error) {
	h.when += 60
	cmd := exec.Command("git", args...)
	cmd.Dir = h.dir
	date := fmt.Sprintf("%d +0000", h.when)
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
	out, err := cmd.CombinedOutput()
	return strings.TrimRight(string(out), "\n"), err
}

func (h *history) must(args ...string) string {
	h.t.Helper()
	out, err := h.git(args...)
	if err != nil {
		h.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// change writes, rewrites or deletes one or two of the paths, then
// commits (an empty commit when that left the tree as it was).
func (h *history) change(msg string) {
	h.t.Helper()
	for k := 0; k <= h.rng.Intn(2); k++ {
		p := historyPaths[h.rng.Intn(len(historyPaths))]
		full := filepath.Join(h.dir, p)
		switch h.rng.Intn(6) {
		case 0:
			os.Remove(full)
		default:
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				h.t.Fatal(err)
			}
			// Few contents: a change is often undone later, or made
			// twice on two branches.
			if err := os.WriteFile(full, []byte(fmt.Sprint(h.rng.Intn(4))), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}
	}
	h.must("add", "-A")
	h.must("commit", "-q", "--allow-empty", "-m", msg)
}

// build makes a random history; main's first-parent line is returned,
// newest first.
func (h *history) build(steps int) []string {
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	h.must("init", "-q", "-b", "main")
	h.change("root")
	branches := []string{"main"}
	for i := 0; i < steps; i++ {
		b := branches[h.rng.Intn(len(branches))]
		h.must("checkout", "-q", b)
		switch op := h.rng.Intn(10); {
		case op < 5:
			h.change(fmt.Sprint("change ", i))
		case op < 7 && len(branches) < 4:
			// A branch from the tip or from further back.
			h.made++
			name := fmt.Sprint("side", h.made)
			h.must("checkout", "-q", "-b", name, fmt.Sprintf("HEAD~%d", h.rng.Intn(2)))
			branches = append(branches, name)
		default:
			other := branches[h.rng.Intn(len(branches))]
			if other == b {
				h.change(fmt.Sprint("change ", i))
				continue
			}
			args := []string{"merge", "-q", "--no-ff", "-m", fmt.Sprint("merge ", other, " into ", b)}
			switch h.rng.Intn(4) {
			case 0:
				args = append(args, "-s", "ours") // drops the other side's changes
			case 1:
				args = append(args, "-X", "theirs")
			default:
				args = append(args, "-X", "ours")
			}
			args = append(args, other)
			if h.rng.Intn(5) == 0 && len(branches) > 2 {
				// An octopus, when it merges cleanly.
				if third := branches[h.rng.Intn(len(branches))]; third != b && third != other {
					args = []string{"merge", "-q", "--no-ff", "-m", "octopus", other, third}
				}
			}
			if out, err := h.git(args...); err != nil {
				// A failed merge: back to where the branch was.
				if _, err := h.git("reset", "-q", "--hard", "HEAD"); err != nil {
					h.t.Fatalf("git %s: %s; reset: %v", strings.Join(args, " "), out, err)
				}
				h.change(fmt.Sprint("change ", i))
			}
		}
	}
	h.must("checkout", "-q", "main")
	return strings.Fields(h.must("rev-list", "--first-parent", "main"))
}

// The squash search through the commit-graph's filters finds what git's
// path-limited log finds, in random histories of merges (some dropping a
// side's changes, some taking them, octopuses), for paths of files and of
// directories, with filters for all commits, for some (commits made after
// the graph was written), or none, and in a chain of graphs.
func TestChangesSinceAgreesWithLog(t *testing.T) {
	gitEnv(t)
	defer gitcmd.LongRange(0)() // these histories are short
	ctx := context.Background()
	asked, quick := 0, 0
	for seed := int64(1); seed <= 8; seed++ {
		h := &history{t: t, dir: filepath.Join(t.TempDir(), "repo"), when: 1_700_000_000, rng: rand.New(rand.NewSource(seed))}
		line := h.build(70)
		r := open(t, h.dir)
		check := func(what string, fast bool) {
			t.Helper()
			tips := strings.Fields(h.must("for-each-ref", "--format=%(objectname)", "refs/heads/"))
			for q := 0; q < 12; q++ {
				start := line[h.rng.Intn(len(line))]
				include := []string{line[0]}
				if h.rng.Intn(2) == 0 {
					include = append(include, tips[h.rng.Intn(len(tips))])
				}
				var paths []string
				for _, p := range append(historyPaths, "dir", "dir/sub", "e2", "none") {
					if h.rng.Intn(4) == 0 {
						paths = append(paths, p)
					}
				}
				if len(paths) == 0 {
					paths = []string{historyPaths[h.rng.Intn(len(historyPaths))]}
				}
				sort.Strings(paths)
				want, err := r.LogChanges(ctx, include, []string{start + "^@"}, paths)
				if err != nil {
					t.Fatal(err)
				}
				before := gitcmd.Processes()
				got, err := r.ChangesSince(ctx, include, start, paths)
				if err != nil {
					t.Fatal(err)
				}
				ran := gitcmd.Processes() - before
				if !reflect.DeepEqual(got, want) {
					t.Errorf("seed %d, %s: since %s from %q, paths %q:\n got %v\nwant %v", seed, what, start[:7], include, paths, keys(got), keys(want))
				}
				switch {
				case !fast && ran != 1:
					t.Errorf("seed %d, %s: %d git processes, want git's log alone", seed, what, ran)
				case fast && ran <= 2:
					quick++
				}
				asked++
			}
		}
		check("no commit-graph", false)
		h.must("commit-graph", "write", "--reachable", "--changed-paths")
		check("filters", true)
		// More history, which the graph does not hold.
		h.build(15)
		line = strings.Fields(h.must("rev-list", "--first-parent", "main"))
		check("filters for older commits", true)
		os.Remove(filepath.Join(h.dir, ".git", "objects", "info", "commit-graph"))
		h.must("commit-graph", "write", "--reachable", "--changed-paths", "--split")
		check("a chain", true)
	}
	t.Logf("%d of %d searches through the filters", quick, asked)
	// Where git's own walk order decides, git's log answers: rarely.
	if quick < asked*3/4*3/4 {
		t.Errorf("%d of %d searches through the filters; want most", quick, asked)
	}
}

func keys(c gitcmd.Changes) []string {
	var ks []string
	for k := range c {
		ks = append(ks, k[:7])
	}
	sort.Strings(ks)
	return ks
}

// Where git reads the history otherwise than the commits say (a replaced
// commit, a graft, a shallow clone), the filters describe commits git does
// not walk: git's own log answers, whatever they say.
func TestChangesSinceLeavesRewrittenHistoryToGit(t *testing.T) {
	gitEnv(t)
	defer gitcmd.LongRange(0)()
	ctx := context.Background()
	dir, root := newRepo(t)
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", p)
	}
	write("a.txt", "a")
	write("b.txt", "b")
	write("c.txt", "c")
	c := git(t, dir, "rev-parse", "HEAD")
	a := git(t, dir, "rev-parse", "HEAD~2")
	git(t, dir, "commit-graph", "write", "--reachable", "--changed-paths")
	r := open(t, dir)
	search := func(what string, wantFast bool) {
		t.Helper()
		want, err := r.LogChanges(ctx, []string{c}, []string{root + "^@"}, []string{"b.txt"})
		if err != nil {
			t.Fatal(err)
		}
		before := gitcmd.Processes()
		got, err := r.ChangesSince(ctx, []string{c}, root, []string{"b.txt"})
		if err != nil {
			t.Fatal(err)
		}
		ran := gitcmd.Processes() - before
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", what, keys(got), keys(want))
		}
		if fast := ran != 1; fast != wantFast {
			t.Errorf("%s: %d git processes; through the filters: %v, want %v", what, ran, fast, wantFast)
		}
	}
	search("as the commits say", true)
	// c now follows a directly: its change holds b's, which the filter
	// of c (against b) does not.
	git(t, dir, "replace", "--graft", c, a)
	search("a replaced commit", false)
	git(t, dir, "pack-refs", "--all")
	search("a packed replace ref", false)
	t.Setenv("GIT_NO_REPLACE_OBJECTS", "1")
	search("replace refs not read", true)
	os.Unsetenv("GIT_NO_REPLACE_OBJECTS")
	git(t, dir, "replace", "-d", c)
	search("the replace ref deleted", true)
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "grafts"), []byte(c+" "+a+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	search("a graft", false)
}
