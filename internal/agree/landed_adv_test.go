package agree

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Histories where what a list keeps of the default branches' commits
// (branches.LandingFilter) must still answer as the whole list does; each
// asked as sameThroughShared asks, and of --list's row.

// advCommit commits msg in dir, changing file ("" changes nothing).
func advCommit(t *testing.T, dir string, k int, msg, file string) {
	t.Helper()
	if file != "" {
		testbin.WriteFile(t, filepath.Join(dir, file), fmt.Sprintf("v%d\n", k))
		testbin.Git(t, dir, "add", file)
	}
	testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// sameRow asks that --list gives run the report's status and count.
func sameRow(t *testing.T, dir string, rep *testbin.Report) {
	t.Helper()
	var list struct {
		Runs []struct {
			RunID          string `json:"run_id"`
			Status         string `json:"status"`
			CompletedTasks int    `json:"completed_tasks"`
		} `json:"runs"`
	}
	testbin.DecodeJSON(t, testbin.Must(t, testbin.Taskresume(dir, nil, "--list", "--json")), &list)
	for _, r := range list.Runs {
		if r.RunID == run {
			if r.Status != rep.Status || r.CompletedTasks != rep.CompletedTasks {
				t.Errorf("%s: --list says %s, %d done; the report %s, %d (%s)", dir, r.Status, r.CompletedTasks, rep.Status, rep.CompletedTasks, statuses(rep))
			}
			return
		}
	}
	t.Errorf("%s: --list does not list %s", dir, run)
}

// A revert by subject alone on the run's base reverts the newest older
// commit of that subject in the base's list and then the default
// branches': there a commit that can be evidence of nothing ("Polish
// code" touching another file) is the one it reverts, and the older one
// of that subject that names 2.1 by its trailers stands. The list's
// filter keeps every commit of a subject a revert names, but only for the
// reverts on the default branches.
func TestListAdvBaseRevertBySubject(t *testing.T) {
	dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
	advCommit(t, dir, 0, "Change 0: before the run", "src/z.go")
	advCommit(t, dir, 1, "Polish code\n\nRun-Id: "+run+"\nTask-Id: 2.1", "src/services/user-service.ts")
	advCommit(t, dir, 2, "Polish code", "src/b.go")
	testbin.Git(t, dir, "checkout", "-q", run+"-main")
	advCommit(t, dir, 3, `Revert "Polish code"`, "src/b.go")
	testbin.Git(t, dir, "checkout", "-q", "main")
	rep := sameThroughShared(t, dir)
	if got := rep.TaskStatus("2.1"); got != "landed" {
		t.Errorf("2.1 is %s, want landed (%s)", got, statuses(rep))
	}
	sameRow(t, dir, rep)
}

// randomTwins builds, in dir, run x1y2z3 whose base and default branches
// share a few subjects (some with trailers that name tasks, some naming
// nothing), reverts by subject and by id on both, task branches in every
// state, and default branches of several kinds: main alone, an
// origin/main ahead of or behind main, a master beside it, origin/HEAD.
func randomTwins(t *testing.T, dir string, seed int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	testbin.Git(t, "", "init", "-q", "-b", "main", dir)
	im := newImporter(t, dir)
	type made struct {
		mark    int
		subject string
	}
	subjects := []string{"Polish code", "Fix typo", "[Task 2.1] User service", "Update docs", "Task 2.2: Product service"}
	n := 0
	// one writes a random commit on ref over tip; hist are the commits it
	// may revert.
	one := func(ref string, tip int, hist []made) (int, string) {
		n++
		tk := demoTasks[rng.Intn(len(demoTasks))]
		files := map[string]string{fmt.Sprintf("src/f%d.go", rng.Intn(4)): fmt.Sprintf("v%d\n", n)}
		var msg string
		switch k := rng.Intn(9); {
		case k < 3:
			msg = subjects[rng.Intn(len(subjects))]
			if rng.Intn(2) == 0 {
				files = map[string]string{tk.file: fmt.Sprintf("%s v%d\n", tk.id, n)}
			}
			if rng.Intn(3) == 0 {
				msg += fmt.Sprintf("\n\nRun-Id: x1y2z3\nTask-Id: %s", tk.id)
			}
		case (k == 3 || k == 8) && len(hist) > 0:
			old := hist[rng.Intn(len(hist))]
			msg = fmt.Sprintf("Revert %q", old.subject)
		case k == 4 && len(hist) > 0:
			old := hist[rng.Intn(len(hist))]
			msg = fmt.Sprintf("Revert %q\n\nThis reverts commit %s.", old.subject, im.oid(t, old.mark))
		case k == 5:
			msg, files = fmt.Sprintf("[Task %s] %s", tk.id, tk.title), nil
		default:
			msg = fmt.Sprintf("Change %d: touch files", n)
		}
		return im.commit(ref, []int{tip}, msg, files), strings.SplitN(msg, "\n", 2)[0]
	}
	var mainHist []made
	tip := im.commit("refs/heads/main", nil, "Initial", map[string]string{"README": "hello\n"})
	mainHist = append(mainHist, made{tip, "Initial"})
	for i := 0; i < 2+rng.Intn(5); i++ {
		m, s := one("refs/heads/main", tip, mainHist)
		tip = m
		mainHist = append(mainHist, made{m, s})
	}
	fork := tip
	base := im.commit("refs/heads/x1y2z3-main", []int{fork}, "Add plan for run x1y2z3",
		map[string]string{"specs/x1y2z3/plan.md": testbin.SevenTaskPlan("x1y2z3")})
	for _, tk := range demoTasks {
		ref := "refs/heads/x1y2z3-task-" + strings.ReplaceAll(tk.id, ".", "-") + "-" + tk.slug
		switch rng.Intn(3) {
		case 0:
		case 1:
			im.reset(ref, base)
		default:
			im.commit(ref, []int{base}, fmt.Sprintf("[Task %s] %s", tk.id, tk.title), map[string]string{tk.file: tk.id + " done\n"})
		}
	}
	// main goes on; then the base, which may revert main's commits.
	for i := 0; i < 2+rng.Intn(8); i++ {
		m, s := one("refs/heads/main", tip, mainHist)
		tip = m
		mainHist = append(mainHist, made{m, s})
	}
	btip := base
	baseHist := append([]made(nil), mainHist...)
	for i := 0; i < rng.Intn(5); i++ {
		m, s := one("refs/heads/x1y2z3-main", btip, baseHist)
		btip = m
		baseHist = append(baseHist, made{m, s})
	}
	switch rng.Intn(5) {
	case 1: // origin/main ahead of main
		o := tip
		for i := 0; i < 1+rng.Intn(4); i++ {
			o, _ = one("refs/remotes/origin/main", o, mainHist)
		}
	case 2: // origin/main behind main
		im.reset("refs/remotes/origin/main", mainHist[len(mainHist)/2].mark)
	case 3: // master beside main, from the fork or from before it
		from := mainHist[rng.Intn(len(mainHist))].mark
		for i := 0; i < 1+rng.Intn(4); i++ {
			from, _ = one("refs/heads/master", from, mainHist)
		}
	case 4: // origin/HEAD to origin/trunk, its own line
		o := mainHist[rng.Intn(len(mainHist))].mark
		for i := 0; i < 1+rng.Intn(4); i++ {
			o, _ = one("refs/remotes/origin/trunk", o, mainHist)
		}
	}
	im.close(t)
	if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "remotes", "origin", "trunk")); err == nil {
		testbin.Git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	}
	testbin.Git(t, dir, "checkout", "-q", "-f", "main")
}

func TestListAdvRandomTwins(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	if v, err := strconv.Atoi(os.Getenv("ADV_SEEDS")); err == nil {
		seeds = v
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("s%d", seed))
		randomTwins(t, dir, seed)
		rep := sameThroughShared(t, dir)
		sameRow(t, dir, rep)
		if t.Failed() {
			t.Fatalf("seed %d: %s", seed, dir)
		}
	}
}

// The shared walk lists commits in the order of `git log --all
// --date-order`, where a commit waits for every child of the whole
// repository; a report's `git log --date-order <default> --not <base>`
// waits only for the children it lists. Here origin/main's commit O1 (the
// older "Polish code", which names 2.1 by its trailers) has a child on
// another branch dated before everything: the whole log lists main's M1
// (the newer "Polish code", naming nothing) before O1, the report's log O1
// before M1. main's revert by subject then voids the newest older commit
// of that subject: O1 in the report, M1 through the shared walk.
func TestListAdvOrderOfTheDefaultBranchesLines(t *testing.T) {
	dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
	at := func(sec int, args ...string) {
		t.Helper()
		when := fmt.Sprintf("@%d +0000", 1767225600+sec)
		testbin.Must(t, testbin.Run(dir, []string{"GIT_AUTHOR_DATE=" + when, "GIT_COMMITTER_DATE=" + when}, "git", args...))
	}
	write := func(file, content string) {
		testbin.WriteFile(t, filepath.Join(dir, file), content)
		testbin.Git(t, dir, "add", file)
	}
	testbin.Git(t, dir, "checkout", "-q", "-b", "o")
	write("src/services/user-service.ts", "o1\n")
	at(250, "commit", "-q", "-m", "Polish code\n\nRun-Id: "+run+"\nTask-Id: 2.1")
	testbin.Git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	testbin.Git(t, dir, "checkout", "-q", "-b", "other")
	write("src/other.go", "x\n")
	at(50, "commit", "-q", "-m", "Other work")
	testbin.Git(t, dir, "checkout", "-q", "main")
	testbin.Git(t, dir, "branch", "-q", "-D", "o")
	write("src/b.go", "m1\n")
	at(200, "commit", "-q", "-m", "Polish code")
	write("src/b.go", "m1r\n")
	at(400, "commit", "-q", "-m", `Revert "Polish code"`)
	rep := sameThroughShared(t, dir)
	if got := rep.TaskStatus("2.1"); got != "pending" {
		t.Errorf("2.1 is %s, want pending (%s)", got, statuses(rep))
	}
	sameRow(t, dir, rep)
}

// A run without <run>-main: its base is main, the default branch whose
// list the filter reads is origin/main's. main's revert by subject
// reverts origin/main's newer "Polish code" (naming nothing), not the
// older one that names 2.1.
func TestListAdvMainIsTheBaseRevertBySubject(t *testing.T) {
	dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
	testbin.Git(t, dir, "branch", "-q", "-D", run+"-main")
	testbin.Git(t, dir, "checkout", "-q", "-b", "o")
	advCommit(t, dir, 1, "Polish code\n\nRun-Id: "+run+"\nTask-Id: 2.1", "src/services/user-service.ts")
	advCommit(t, dir, 2, "Polish code", "src/b.go")
	testbin.Git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	testbin.Git(t, dir, "checkout", "-q", "main")
	testbin.Git(t, dir, "branch", "-q", "-D", "o")
	advCommit(t, dir, 3, `Revert "Polish code"`, "src/b.go")
	testbin.Git(t, dir, "checkout", "-q", "-b", run+"-task-1-1-create-database-schema")
	advCommit(t, dir, 4, "[Task 1.1] Create database schema", "db/schema.sql")
	testbin.Git(t, dir, "checkout", "-q", "main")
	rep := sameThroughShared(t, dir)
	if got := rep.TaskStatus("2.1"); got != "landed" {
		t.Errorf("2.1 is %s, want landed (%s)", got, statuses(rep))
	}
	sameRow(t, dir, rep)
}
