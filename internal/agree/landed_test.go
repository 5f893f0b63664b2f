package agree

import (
	"bufio"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// A list reads, of what the default branch gained since each run started,
// only the commits that can be evidence (branches.LandingFilter); a report
// reads them all. These tests build default branches of every kind of
// commit the landing search reads (task subjects, a forge's titles,
// squashes, trailers, reverts by id and by subject, commits that change
// nothing, merges), before and after the run's start, and ask that the
// report read through the list's shared walk (GIT_TASKRESUME_TEST_SHARED)
// is the plain report byte for byte, and that --list gives the run the
// report's status and count.

// importer writes commits through one `git fast-import`, and asks it
// for a commit's id (get-mark) when a message must name one.
type importer struct {
	cmd  *exec.Cmd
	w    *bufio.Writer
	r    *bufio.Reader
	mark int
	when int64
}

func newImporter(t *testing.T, dir string) *importer {
	t.Helper()
	cmd := exec.Command("git", "fast-import", "--quiet", "--cat-blob-fd=1")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &importer{cmd: cmd, w: bufio.NewWriter(in), r: bufio.NewReader(out), when: 1767225600}
}

// commit writes a commit on ref with parents (marks; none: a root) and
// files (path -> content) changed, and returns its mark.
func (im *importer) commit(ref string, parents []int, msg string, files map[string]string) int {
	im.mark++
	im.when += 60
	fmt.Fprintf(im.w, "commit %s\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", ref, im.mark, im.when, len(msg), msg)
	for k, p := range parents {
		if k == 0 {
			fmt.Fprintf(im.w, "from :%d\n", p)
		} else {
			fmt.Fprintf(im.w, "merge :%d\n", p)
		}
	}
	for path, content := range files {
		fmt.Fprintf(im.w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	im.w.WriteString("\n")
	return im.mark
}

// oid is the id of the commit at mark.
func (im *importer) oid(t *testing.T, mark int) string {
	t.Helper()
	fmt.Fprintf(im.w, "get-mark :%d\n", mark)
	if err := im.w.Flush(); err != nil {
		t.Fatal(err)
	}
	line, err := im.r.ReadString('\n')
	if err != nil {
		t.Fatalf("get-mark: %v", err)
	}
	return strings.TrimSpace(line)
}

func (im *importer) reset(ref string, mark int) {
	fmt.Fprintf(im.w, "reset %s\nfrom :%d\n\n", ref, mark)
}

func (im *importer) close(t *testing.T) {
	t.Helper()
	im.w.WriteString("done\n")
	if err := im.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := im.cmd.Wait(); err != nil {
		t.Fatalf("fast-import: %v", err)
	}
}

type demoTask struct{ id, slug, title, file string }

var demoTasks = []demoTask{
	{"1.1", "create-database-schema", "Create database schema", "db/schema.sql"},
	{"1.2", "install-dependencies", "Install dependencies", "package.json"},
	{"2.1", "user-service", "User service", "src/services/user-service.ts"},
	{"2.2", "product-service", "Product service", "src/services/product-service.ts"},
	{"2.3", "order-service", "Order service", "src/services/order-service.ts"},
	{"3.1", "api-integration-tests", "API integration tests", "tests/integration/api.test.ts"},
	{"3.2", "e2e-tests", "E2E tests", "tests/e2e/workflows.test.ts"},
}

// randomDefault builds, in dir, a run x1y2z3 whose base <run>-main forks
// from main, task branches in every state, and a main of random commits
// of every kind the landing search reads, on both sides of the fork.
func randomDefault(t *testing.T, dir string, seed int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	testbin.Git(t, "", "init", "-q", "-b", "main", dir)
	im := newImporter(t, dir)
	type made struct {
		mark    int
		subject string
	}
	var mainLine []made
	tip := im.commit("refs/heads/main", nil, "Initial", map[string]string{"README": "hello\n"})
	mainLine = append(mainLine, made{tip, "Initial"})
	n := 0
	task := func() demoTask { return demoTasks[rng.Intn(len(demoTasks))] }
	// next is one random commit of main's, on top of tip.
	next := func() {
		n++
		tk := task()
		files := map[string]string{fmt.Sprintf("src/f%d.go", rng.Intn(8)): fmt.Sprintf("v%d\n", n)}
		work := map[string]string{tk.file: fmt.Sprintf("%s v%d\n", tk.id, n)}
		var msg string
		parents := []int{tip}
		switch k := rng.Intn(15); k {
		case 0, 1, 2:
			msg = fmt.Sprintf("Change %d: touch files", n)
		case 3:
			msg, files = fmt.Sprintf("[Task %s] %s", tk.id, tk.title), work
		case 4:
			msg, files = fmt.Sprintf("Task %s: %s", tk.id, tk.title), work
		case 5:
			name := "x1y2z3-task-" + strings.ReplaceAll(tk.id, ".", "-") + "-" + tk.slug
			msg, files = "X1y2z3 "+strings.ReplaceAll(strings.TrimPrefix(name, "x1y2z3-"), "-", " ")+fmt.Sprintf(" (#%d)", n), work
			if rng.Intn(3) == 0 {
				files = nil // a squash of work that undid itself
			}
		case 6:
			// A revert by id of an earlier commit of main.
			old := mainLine[rng.Intn(len(mainLine))]
			msg = fmt.Sprintf("Revert %q\n\nThis reverts commit %s.", old.subject, im.oid(t, old.mark))
		case 7:
			// A revert by subject alone.
			old := mainLine[rng.Intn(len(mainLine))]
			msg = fmt.Sprintf("Revert %q", old.subject)
		case 8:
			msg = fmt.Sprintf("Squashed commit of the following:\n\ncommit %040d\nAuthor: A <a@example.com>\nDate:   Thu Jan 1 00:00:00 2026 +0000\n\n    [Task %s] %s\n", n, tk.id, tk.title)
			files = work
		case 9:
			msg, files = fmt.Sprintf("Some work %d\n\nRun-Id: x1y2z3\nTask-Id: %s", n, tk.id), work
		case 10:
			msg = fmt.Sprintf("Other run's work %d\n\nRun-Id: a9b8c7\nTask-Id: %s", n, tk.id)
		case 11:
			// Changes nothing, in a task's words.
			msg, files = fmt.Sprintf("[Task %s] %s", tk.id, tk.title), nil
		case 12:
			// Words that only look like evidence; an earlier subject again.
			subjects := []string{fmt.Sprintf("Add thing (#%d)", n), "Sync with main", "Tâche 2.1 : service", mainLine[rng.Intn(len(mainLine))].subject}
			msg = subjects[rng.Intn(len(subjects))]
		case 13:
			// A merge of a side line (the list then reads every commit).
			side := im.commit("refs/heads/side", []int{tip}, fmt.Sprintf("Side work %d", n), map[string]string{"side.txt": fmt.Sprint(n)})
			if rng.Intn(2) == 0 {
				side = im.commit("refs/heads/side", []int{side}, fmt.Sprintf("[Task %s] %s", tk.id, tk.title), work)
			}
			parents = append(parents, side)
			name := "feature"
			if rng.Intn(2) == 0 {
				name = "x1y2z3-task-" + strings.ReplaceAll(tk.id, ".", "-") + "-" + tk.slug
			}
			msg, files = fmt.Sprintf("Merge branch '%s'", name), nil
		case 14:
			// A task's work again, in another form of its words: the
			// newest landing stands.
			msg, files = fmt.Sprintf("feat: Task %s - %s", tk.id, tk.title), map[string]string{tk.file: fmt.Sprintf("%s again %d\n", tk.id, n)}
		}
		tip = im.commit("refs/heads/main", parents, msg, files)
		mainLine = append(mainLine, made{tip, strings.SplitN(msg, "\n", 2)[0]})
	}
	before := 3 + rng.Intn(10)
	for i := 0; i < before; i++ {
		next()
	}
	// The run: its plan on <run>-main, forked from main here.
	base := im.commit("refs/heads/x1y2z3-main", []int{tip}, "Add plan for run x1y2z3",
		map[string]string{"specs/x1y2z3/plan.md": testbin.SevenTaskPlan("x1y2z3")})
	var taskTips []int
	prev := base
	for _, tk := range demoTasks {
		ref := "refs/heads/x1y2z3-task-" + strings.ReplaceAll(tk.id, ".", "-") + "-" + tk.slug
		switch rng.Intn(4) {
		case 0: // no branch: pending
		case 1: // at the base: empty
			im.reset(ref, base)
		default: // one commit of work, stacked or on the base
			from := base
			if rng.Intn(2) == 0 {
				from = prev
			}
			subject := "Work on the change"
			if rng.Intn(2) == 0 {
				subject = fmt.Sprintf("[Task %s] %s", tk.id, tk.title)
			}
			prev = im.commit(ref, []int{from}, subject, map[string]string{tk.file: tk.id + " done\n"})
			taskTips = append(taskTips, prev)
		}
	}
	after := 2 + rng.Intn(10)
	for i := 0; i < after; i++ {
		if len(taskTips) > 0 && rng.Intn(12) == 0 {
			// main fast-forwards over a task's commits: linear still, the
			// run's own commits then on main's first-parent line.
			t2 := taskTips[rng.Intn(len(taskTips))]
			n++
			tip = im.commit("refs/heads/main", []int{t2, tip}, fmt.Sprintf("Merge task work %d", n), nil)
			if rng.Intn(2) == 0 {
				tip = im.commit("refs/heads/main", []int{t2}, fmt.Sprintf("Change %d: on the task", n), map[string]string{"README": fmt.Sprint(n)})
			}
			mainLine = append(mainLine, made{tip, "Merge task work"})
			continue
		}
		next()
	}
	im.close(t)
	testbin.Git(t, dir, "checkout", "-q", "-f", "main")
}

func TestListReadsLandedEvidenceAsTheReport(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("s%d", seed))
		randomDefault(t, dir, seed)
		sameRow(t, dir, sameThroughShared(t, dir))
	}
}

// TestListReadsLandedEvidenceCases are the cases the list's filter must
// keep context for, each asked as the random ones are.
func TestListReadsLandedEvidenceCases(t *testing.T) {
	type step struct {
		msg  string
		file string // "" changes nothing
	}
	cases := []struct {
		name  string
		steps []step
		want  string // task 2.1's status
	}{
		// A forge's squash of work that undid itself lands nothing: read
		// from its parent's tree, a commit that can be evidence of nothing.
		{"empty squash after other work", []step{{"Change 1: touch", "src/a.go"}, {"X1y2z3 task 2 1 user service (#5)", ""}}, "pending"},
		// A revert by subject reverts the newest older commit of that
		// subject, here one that names nothing: the older one that names
		// 2.1 by its trailers stands.
		{"revert by subject of the newer twin", []step{{"Polish code\n\nRun-Id: x1y2z3\nTask-Id: 2.1", "src/services/user-service.ts"},
			{"Polish code", "src/b.go"}, {"Change 2: touch", "src/a.go"}, {`Revert "Polish code"`, "src/b.go"}}, "landed"},
	}
	commit := func(t *testing.T, dir string, k int, s step) {
		if s.file != "" {
			testbin.WriteFile(t, filepath.Join(dir, s.file), fmt.Sprintf("v%d\n", k))
			testbin.Git(t, dir, "add", s.file)
		}
		testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", s.msg)
	}
	// The run forked from a side line that main merged later: where its
	// base meets main is off main's first-parent line (the list then
	// reads every commit); a task's work landed on main beside it.
	t.Run("run forked from a merged side line", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "r")
		testbin.Git(t, "", "init", "-q", "-b", "main", dir)
		commit(t, dir, 0, step{"Initial", "README"})
		testbin.Git(t, dir, "checkout", "-q", "-b", "side")
		commit(t, dir, 1, step{"Side work", "src/side.go"})
		testbin.Git(t, dir, "checkout", "-q", "-b", run+"-main")
		testbin.WriteFile(t, filepath.Join(dir, "specs", run, "plan.md"), testbin.SevenTaskPlan(run))
		testbin.Git(t, dir, "add", "specs")
		testbin.Git(t, dir, "commit", "-q", "-m", "Add plan for run "+run)
		testbin.Git(t, dir, "checkout", "-q", "main")
		commit(t, dir, 2, step{"[Task 2.1] User service", "src/services/user-service.ts"})
		testbin.Git(t, dir, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")
		commit(t, dir, 3, step{"Change 3: touch", "src/a.go"})
		rep := sameThroughShared(t, dir)
		if got := rep.TaskStatus("2.1"); got != "landed" {
			t.Errorf("2.1 is %s, want landed (%s)", got, statuses(rep))
		}
	})
	// Another run's merge brought a commit that names 2.1 in words: it is
	// that run's. The merge is read along its parents, through commits
	// that can be evidence of nothing.
	t.Run("another run's merge", func(t *testing.T) {
		dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
		commit(t, dir, 0, step{"Change 0: before the run", ""})
		testbin.Git(t, dir, "checkout", "-q", "-b", "a9b8c7-task-2-1-user-service")
		commit(t, dir, 1, step{"[Task 2.1] User service", "src/services/user-service.ts"})
		commit(t, dir, 2, step{"Change 2: tidy", "src/a.go"})
		testbin.Git(t, dir, "checkout", "-q", "main")
		commit(t, dir, 3, step{"Change 3: touch", "src/b.go"})
		testbin.Git(t, dir, "merge", "-q", "--no-ff", "-m", "Merge branch 'a9b8c7-task-2-1-user-service'", "a9b8c7-task-2-1-user-service")
		testbin.Git(t, dir, "branch", "-D", "a9b8c7-task-2-1-user-service")
		rep := sameThroughShared(t, dir)
		if got := rep.TaskStatus("2.1"); got != "pending" {
			t.Errorf("2.1 is %s, want pending (%s)", got, statuses(rep))
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
			// main goes on past <run>-main, where the plan is.
			commit(t, dir, 0, step{"Change 0: before the run", ""})
			for k, s := range c.steps {
				commit(t, dir, k+1, s)
			}
			rep := sameThroughShared(t, dir)
			if got := rep.TaskStatus("2.1"); got != c.want {
				t.Errorf("2.1 is %s, want %s (%s)", got, c.want, statuses(rep))
			}
		})
	}
}

// sameThroughShared asks for the report of run in dir plainly and through
// the list's shared walk, fails the test unless they are one, and
// returns it.
func sameThroughShared(t *testing.T, dir string) *testbin.Report {
	t.Helper()
	plain := testbin.Taskresume(dir, nil, run, "--json")
	shared := testbin.Taskresume(dir, []string{"GIT_TASKRESUME_TEST_SHARED=1"}, run, "--json")
	if plain.Stdout != shared.Stdout || plain.Code != shared.Code {
		t.Errorf("%s: the report read through the shared walk differs:\nplain:  %s\nshared: %s", dir, plain.Stdout, shared.Stdout)
	}
	var rep testbin.Report
	testbin.DecodeJSON(t, plain, &rep)
	return &rep
}

// The answer does not move with the encoding git is told to write its
// output in: every log the report reads asks for UTF-8. Before, under
// i18n.logOutputEncoding = UTF-16 every log's records were unreadable
// (the report failed), and under ISO-8859-1 subjects and trailers were
// no longer the ones the object reader gives.
func TestOutputEncodingDoesNotMoveTheAnswer(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("s%d", seed))
		randomDefault(t, dir, seed)
		want := testbin.Taskresume(dir, nil, run, "--json")
		wantList := testbin.Taskresume(dir, nil, "--list", "--json")
		for _, enc := range []string{"UTF-16", "ISO-8859-1"} {
			testbin.Git(t, dir, "config", "i18n.logOutputEncoding", enc)
			if got := testbin.Taskresume(dir, nil, run, "--json"); got.Stdout != want.Stdout || got.Code != want.Code {
				t.Errorf("%s, i18n.logOutputEncoding %s: the report moved:\n%s\nwant\n%s", dir, enc, got, want)
			}
			if got := testbin.Taskresume(dir, nil, "--list", "--json"); got.Stdout != wantList.Stdout || got.Code != wantList.Code {
				t.Errorf("%s, i18n.logOutputEncoding %s: the list moved:\n%s\nwant\n%s", dir, enc, got, wantList)
			}
		}
	}
}
