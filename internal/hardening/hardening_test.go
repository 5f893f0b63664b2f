package hardening_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// ---------------------------------------------------------------------------
// Run ids (1-64 characters of [A-Za-z0-9._-], starting with a letter
// or digit, a valid ref name; never reaching git as an option).

var badRunIDs = []struct {
	name, id string
	want     string // a fragment of the message besides "run id"
}{
	{"option --upload-pack", "--upload-pack=x", "must start with a letter or digit"},
	{"option -x", "-x", "must start with a letter or digit"},
	{"dot-dot", "..", "must start with a letter or digit"},
	{"range a..b", "a..b", `".."`},
	{"slash", "a/b", `"/"`},
	{"space", "a b", `" "`},
	{"tab", "a\tb", `"\t"`},
	{"control 0x01", "a\x01b", `"\x01"`},
	{"newline", "a\nb", `"\n"`},
	{"tilde", "a~b", `"~"`},
	{"caret", "a^b", `"^"`},
	{"colon", "a:b", `":"`},
	{"question mark", "a?b", `"?"`},
	{"asterisk", "a*b", `"*"`},
	{"open bracket", "a[b", `"["`},
	{"backslash", `a\b`, `"\\"`},
	{"empty", "", "empty"},
	{"65 characters", strings.Repeat("a", 65), "longer than 64"},
	{"non-ASCII", "héllo", `"é"`},
	{"ends in .lock", "x.lock", `".lock"`},
	{"ends in dot", "x.", `"."`},
}

// invocations of both commands with a run id in every position a user can
// give one.
func runIDInvocations(id string) [][]string {
	inv := [][]string{
		{"taskresume", "--", id},
		{"taskresume", "--json", "--", id},
		{"taskresume", "--next", "--", id},
		{"taskclean", "--run", id},
		{"taskclean", "--run=" + id, "--json"},
		{"taskclean", "--run=" + id, "--dry-run"},
		{"taskclean", "--run=" + id, "--undo"},
		{"taskclean", "--run=" + id, "--all", "--no-backup"},
	}
	if !strings.HasPrefix(id, "-") {
		inv = append(inv, []string{"taskresume", id})
	}
	return inv
}

// crashRepo is a run that stopped half-way: task 1.1 finished, task 1.2
// left a dirty worktree with no commit (stale). Commands that misread their
// input have something to break here.
func crashRepo(t testing.TB, initArgs ...string) string {
	t.Helper()
	dir := newRepo(t, initArgs...)
	commitOnBranch(t, dir, br11, "main", "db/schema.sql", "create table t;\n")
	wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
	addWorktree(t, dir, wt, br12, "main")
	testbin.WriteFile(t, filepath.Join(wt, "src", "app.txt"), "app\nchanged by the agent\n")
	testbin.WriteFile(t, filepath.Join(wt, "notes.txt"), "untracked work\n")
	return dir
}

// controlBytes reports whether s holds a control character other than the
// newline ending each line: an error message must quote what it names.
func controlBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			return true
		}
	}
	return false
}

func TestBadRunIDs(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)

	// Control: the same invocations with the real run id succeed, so the
	// failures below are about the id and nothing else.
	for _, args := range runIDInvocations(run1) {
		if strings.Contains(strings.Join(args, " "), "--undo") || strings.Contains(strings.Join(args, " "), "--all") ||
			(args[0] == "taskclean" && !strings.Contains(strings.Join(args, " "), "--dry-run")) {
			continue // these change the repository or need a previous clean
		}
		if r := run(t, dir, args...); r.Code != 0 {
			t.Fatalf("control %s: want exit 0", r)
		}
	}
	assertUnchanged(t, dir, before, testbin.Result{Args: []string{"control"}})

	for _, c := range badRunIDs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, args := range runIDInvocations(c.id) {
				r := run(t, dir, args...)
				assertBadInput(t, r, "run id", c.want)
				if controlBytes(r.Stderr) {
					t.Errorf("%s\nthe message holds a raw control character; it must be quoted", r)
				}
				if len(r.Stderr) > 400 {
					t.Errorf("%s\nthe message is %d bytes; a bad id must not make it long", r, len(r.Stderr))
				}
				assertUnchanged(t, dir, before, r)
			}
			// An id that looks like an option must not have been handed to
			// git: no file named after its value appears anywhere.
			for _, p := range []string{filepath.Join(dir, "x"), filepath.Join(dir, ".git", "x")} {
				if testbin.Exists(p) {
					t.Errorf("%s exists after run id %q", p, c.id)
				}
			}
		})
	}
}

func TestUnknownRun(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"taskresume", "nosuchrun"},
		{"taskresume", "nosuchrun", "--json"},
		{"taskclean", "--run", "nosuchrun"},
		{"taskclean", "--run", "nosuchrun", "--all"},
	} {
		r := run(t, dir, args...)
		assertBadInput(t, r, "nosuchrun")
		assertUnchanged(t, dir, before, r)
	}
	r := run(t, dir, "taskclean", "--run", "nosuchrun", "--undo")
	assertBadInput(t, r, "nothing to undo")
	assertUnchanged(t, dir, before, r)
}

// TestUsage: mistakes on the command line itself.
func TestUsage(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)
	cases := []struct {
		args []string
		want string
		not  string // a misleading message that must not appear
	}{
		{[]string{"taskresume"}, "missing run id", ""},
		{[]string{"taskresume", "x1", "x2"}, "one run id", ""},
		{[]string{"taskresume", "--upload-pack=x", "x1"}, "upload-pack", ""},
		{[]string{"taskresume", "x1", "--json", "--next"}, "--json and --next", ""},
		{[]string{"taskresume", "x1", "--plan"}, "plan", "read plan --"}, // the flag has no value: it must not swallow "--"
		{[]string{"taskclean", "--run", "x1", "--plan"}, "plan", "read plan --"},
		{[]string{"taskresume", "x1", "--from-phase", "two"}, "from-phase", ""},
		{[]string{"taskresume", "x1", "--from-phase", "9"}, "phase 9", ""},
		{[]string{"taskresume", "--list", "x1"}, "--list", ""},
		{[]string{"taskclean"}, "missing --run", ""},
		{[]string{"taskclean", "x1"}, "unexpected argument", ""},
		{[]string{"taskclean", "--run", "x1", "--all", "--undo"}, "cannot be combined", ""},
		{[]string{"taskclean", "--run", "x1", "--older-than", "-5m"}, "positive", ""},
		{[]string{"taskclean", "--run", "x1", "--older-than", "soon"}, "older-than", ""},
		{[]string{"taskclean", "--run", "x1", "--task", "9.9"}, "9.9", ""},
		{[]string{"taskclean", "--run", "x1", "--task", "--all"}, "--all", ""},
	}
	for _, c := range cases {
		r := run(t, dir, c.args...)
		assertBadInput(t, r, c.want)
		assertUnchanged(t, dir, before, r)
		if c.not != "" && strings.Contains(r.Stderr, c.not) {
			t.Errorf("%s\nthe message blames the wrong thing (%q): a flag given without its value must be named as such", r, c.not)
		}
	}
}

// TestSnapshotSeesChanges makes sure the "nothing changed" check of every
// bad-input case can fail: each kind of change a command could make shows.
func TestSnapshotSeesChanges(t *testing.T) {
	t.Parallel()
	changes := map[string]func(t *testing.T, dir string){
		"a new branch":       func(t *testing.T, dir string) { git(t, dir, "branch", "x1-task-2-1-new") },
		"a moved branch":     func(t *testing.T, dir string) { commitOnBranch(t, dir, br11, "main", "z", "z\n") },
		"a backup ref":       func(t *testing.T, dir string) { git(t, dir, "update-ref", "refs/taskclean/x1/s/branch/b", "main") },
		"a removed worktree": func(t *testing.T, dir string) { git(t, dir, "worktree", "remove", "--force", ".worktrees/x1-task-1-2") },
		"a lock file": func(t *testing.T, dir string) {
			testbin.WriteFile(t, filepath.Join(dir, ".git", "taskclean-x1.lock"), "")
		},
		"a new file":           func(t *testing.T, dir string) { testbin.WriteFile(t, filepath.Join(dir, "x"), "") },
		"a changed file":       func(t *testing.T, dir string) { testbin.WriteFile(t, filepath.Join(dir, "src", "app.txt"), "other\n") },
		"a worktree locked":    func(t *testing.T, dir string) { git(t, dir, "worktree", "lock", ".worktrees/x1-task-1-2") },
		"a detached main HEAD": func(t *testing.T, dir string) { git(t, dir, "checkout", "-q", "--detach") },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := crashRepo(t)
			before := snapshot(t, dir)
			if again := snapshot(t, dir); again != before {
				t.Fatalf("two snapshots of an unchanged repository differ:\n%s\n%s", before, again)
			}
			change(t, dir)
			if snapshot(t, dir) == before {
				t.Errorf("the snapshot does not see %s", name)
			}
		})
	}
}

// TestOptionInjection: user-given names other than the run id (--base,
// --plan REV, --remote, --task) never reach git as options.
func TestOptionInjection(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)
	evil := filepath.Join(t.TempDir(), "evil")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"taskresume", "x1", "--base=--output=" + evil}, "base"},
		{[]string{"taskresume", "x1", "--base", "--upload-pack=touch " + evil}, "base"},
		{[]string{"taskresume", "x1", "--plan=--output=" + evil + ":plan.md"}, "plan"},
		{[]string{"taskresume", "x1", "--remote=--upload-pack=x"}, "remote"},
		{[]string{"taskclean", "--run", "x1", "--base=--output=" + evil}, "base"},
		{[]string{"taskclean", "--run", "x1", "--plan=--output=" + evil + ":plan.md"}, "plan"},
		{[]string{"taskclean", "--run", "x1", "--remote=--upload-pack=x"}, "remote"},
		{[]string{"taskclean", "--run", "x1", "--task=--upload-pack=x"}, "--upload-pack=x"},
	}
	for _, c := range cases {
		r := run(t, dir, c.args...)
		assertBadInput(t, r, c.want)
		assertUnchanged(t, dir, before, r)
		if testbin.Exists(evil) {
			t.Fatalf("%s\n%s was created: a user-given name reached git as an option", r, evil)
		}
	}
}

// ---------------------------------------------------------------------------
// Plans.

var planLine = regexp.MustCompile(`plan\.md:(\d+): `)

func planErrorCases() []struct {
	name    string
	content []byte
	line    int // 0: any line
	want    []string
} {
	junk := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(rng.IntN(256))
	}
	junk[100], junk[2000] = 0, 0
	junk[0], junk[1] = 'R', 'u' // not a UTF-16 byte order mark
	bigID := "Run ID: " + strings.Repeat("a", 1<<20) + "\n## Phase 1: A (Sequential)\n### Task 1.1: One\n"
	return []struct {
		name    string
		content []byte
		line    int
		want    []string
	}{
		{"duplicate task id", []byte("# Plan\n\nRun ID: x1\n\n## Phase 1: A (Sequential)\n\n### Task 1.1: One\n### Task 1.1: Two\n"), 8, []string{"duplicate task id 1.1", "line 7"}},
		{"duplicate task id across phases", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\n## Phase 2: B (Parallel)\n### Task 1.1: Again\n"), 5, []string{"duplicate"}},
		{"template placeholder", []byte("Run ID: x1\n## Phase {N}: {Phase Name}\n### Task {ID}: {Name}\n"), 2, []string{"placeholder"}},
		{"misspelt task heading", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\n### Taks 1.2: Two\n"), 4, []string{"Taks"}},
		{"misspelt mode", []byte("Run ID: x1\n## Phase 1: A (Paralel)\n### Task 1.1: One\n"), 2, []string{"Paralel"}},
		{"task outside any phase", []byte("Run ID: x1\n\n### Task 1.1: One\n## Phase 1: A (Parallel)\n### Task 1.2: Two\n"), 3, []string{"outside any phase"}},
		{"run id differs from the argument", []byte("# Plan\nRun ID: other7\n## Phase 1: A (Sequential)\n### Task 1.1: One\n"), 2, []string{"other7", "x1"}},
		{"two different run ids", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\nRun ID: x2\n"), 4, []string{"x2", "x1"}},
		{"malformed task id 1..2", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1..2: One\n"), 3, []string{"malformed task id", "1..2"}},
		{"malformed task id a.b", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\n\n### Task a.b: Two\n"), 5, []string{"malformed task id", "a.b"}},
		{"malformed run id in the plan", []byte("Run ID: ../etc\n## Phase 1: A (Sequential)\n### Task 1.1: One\n"), 1, []string{"run id"}},
		{"binary junk with NUL bytes", junk, 0, []string{"plan"}},
		{"empty file", []byte{}, 1, []string{"empty plan"}},
		{"UTF-16 file", []byte("\xff\xfeR\x00u\x00n\x00"), 1, []string{"UTF-16"}},
		{"1 MiB run id line", []byte(bigID), 1, []string{"longer than 64"}},
		{"duplicate phase", []byte("Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\n## Phase 1: B (Parallel)\n### Task 1.2: Two\n"), 4, []string{"duplicate phase"}},
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)
	for _, c := range planErrorCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "plan.md")
			if err := os.WriteFile(p, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"taskresume", run1, "--plan", p},
				{"taskresume", run1, "--plan", p, "--json"},
				{"taskclean", "--run", run1, "--plan", p},
				{"taskclean", "--run", run1, "--plan", p, "--all", "--json"},
			} {
				r := run(t, dir, args...)
				assertBadInput(t, r, c.want...)
				assertUnchanged(t, dir, before, r)
				m := planLine.FindStringSubmatch(r.Stderr)
				if m == nil {
					t.Errorf("%s\nthe error must carry plan.md:<line>", r)
					continue
				}
				if got, _ := strconv.Atoi(m[1]); c.line != 0 && got != c.line {
					t.Errorf("%s\nwant plan.md:%d", r, c.line)
				}
				if len(r.Stderr) > 600 || controlBytes(r.Stderr) {
					t.Errorf("%s\nthe message must stay short and printable", r)
				}
			}
		})
	}
}

// TestPlanSources: plans that cannot be read at all.
func TestPlanSources(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	before := snapshot(t, dir)
	emptyDir := t.TempDir()
	cases := []struct {
		name string
		plan string
		want string
	}{
		{"missing file", filepath.Join(emptyDir, "nope.md"), "nope.md"},
		{"a directory", emptyDir, "plan"},
		{"unknown revision", "nosuchbranch:specs/x1/plan.md", "nosuchbranch"},
		{"missing path in a revision", "main:specs/x1/nope.md", "nope.md"},
		{"a tree, not a blob", "main:specs/x1", "plan"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, args := range [][]string{
				{"taskresume", run1, "--plan", c.plan},
				{"taskclean", "--run", run1, "--plan", c.plan},
			} {
				r := run(t, dir, args...)
				assertBadInput(t, r, c.want)
				assertUnchanged(t, dir, before, r)
			}
		})
	}
	// A broken plan read from a commit names REV:PATH and the line.
	t.Run("broken plan in a commit", func(t *testing.T) {
		d := newRepo(t)
		testbin.WriteFile(t, filepath.Join(d, "specs", "x1", "plan.md"), "Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: One\n### Task 1.1: Two\n")
		git(t, d, "commit", "-q", "-am", "break the plan")
		b := snapshot(t, d)
		r := run(t, d, "taskresume", run1, "--plan", "main:specs/x1/plan.md")
		assertBadInput(t, r, "main:specs/x1/plan.md:4:", "duplicate")
		assertUnchanged(t, d, b, r)
	})
}

func writePlan(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.md")
	testbin.WriteFile(t, p, content)
	return p
}

func TestPlanLarge(t *testing.T) {
	t.Parallel()
	t.Run("5000 tasks", func(t *testing.T) {
		t.Parallel()
		dir := newRepo(t)
		var b strings.Builder
		b.WriteString("# Big plan\n\nRun ID: x1\n")
		for ph := 1; ph <= 50; ph++ {
			mode := "Parallel"
			if ph%2 == 1 {
				mode = "Sequential"
			}
			fmt.Fprintf(&b, "\n## Phase %d: Part %d (%s)\n\n", ph, ph, mode)
			for i := 1; i <= 100; i++ {
				fmt.Fprintf(&b, "### Task %d.%d: Step %d of phase %d (S - 10m)\n- Files: `src/p%d/s%d.go`\n\n", ph, i, i, ph, ph, i)
			}
		}
		p := writePlan(t, b.String())
		// A few branches of the run, so matching has work to do.
		commitOnBranch(t, dir, "x1-task-1-1-step-1-of-phase-1", "main", "a.txt", "a\n")
		commitOnBranch(t, dir, "x1-task-1-2-step-2-of-phase-1", "x1-task-1-1-step-1-of-phase-1", "b.txt", "b\n")

		start := time.Now()
		rep := report(t, dir, "--plan", p)
		t.Logf("git taskresume --json on a 5,000-task plan (%d bytes): %v", b.Len(), time.Since(start))
		if rep.TotalTasks != 5000 || rep.PhasesTotal != 50 {
			t.Errorf("total_tasks %d, phases_total %d; want 5000 and 50", rep.TotalTasks, rep.PhasesTotal)
		}
		if rep.CompletedTasks != 2 || rep.TaskStatus("1.2") != "completed" {
			t.Errorf("completed_tasks %d (1.2: %s); want 2 (1.1 and 1.2)", rep.CompletedTasks, rep.TaskStatus("1.2"))
		}

		start = time.Now()
		r := run(t, dir, "taskresume", run1, "--plan", p, "--next")
		t.Logf("git taskresume --next on the same plan: %v", time.Since(start))
		assertOK(t, r)
		if r.Stdout != "1.3\n" {
			t.Errorf("%s\nwant the next task of the sequential phase 1: 1.3", r)
		}

		before := snapshot(t, dir)
		start = time.Now()
		res := clean(t, dir, "--plan", p, "--dry-run")
		t.Logf("git taskclean --dry-run --json on the same plan: %v", time.Since(start))
		if !res.DryRun {
			t.Error("dry_run false in a dry run")
		}
		assertUnchanged(t, dir, before, testbin.Result{Args: []string{"taskclean", "--dry-run"}})
	})

	t.Run("1 MiB prose line", func(t *testing.T) {
		t.Parallel()
		dir := crashRepo(t)
		p := writePlan(t, "Run ID: x1\n\n"+strings.Repeat("lorem ipsum ", (1<<20)/12)+"\n\n## Phase 1: A (Sequential)\n### Task 1.1: Create schema\n### Task 1.2: Two\n")
		rep := report(t, dir, "--plan", p)
		if rep.TotalTasks != 2 || rep.TaskStatus("1.1") != "completed" {
			t.Errorf("total_tasks %d, 1.1 %s; want 2 and completed", rep.TotalTasks, rep.TaskStatus("1.1"))
		}
	})

	t.Run("1 MiB task title", func(t *testing.T) {
		t.Parallel()
		dir := crashRepo(t)
		p := writePlan(t, "Run ID: x1\n## Phase 1: A (Sequential)\n### Task 1.1: Create schema\n### Task 1.3: "+strings.Repeat("T", 1<<20)+"\n")
		before := snapshot(t, dir)
		rep := report(t, dir, "--plan", p)
		if rep.TotalTasks != 2 || rep.TaskStatus("1.3") != "pending" || rep.TaskStatus("1.1") != "completed" {
			t.Errorf("total_tasks %d, 1.1 %s, 1.3 %s; want 2, completed and pending", rep.TotalTasks, rep.TaskStatus("1.1"), rep.TaskStatus("1.3"))
		}
		r := run(t, dir, "taskclean", "--run", run1, "--plan", p, "--dry-run")
		assertOK(t, r)
		assertUnchanged(t, dir, before, r)
	})
}

func TestPlanUnicodeTitles(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	p := writePlan(t, "Run ID: x1\n\n## Phase 1: Начало (Parallel)\n\n"+
		"### Task 1.1: Создать схему\n"+
		"### Task 1.2: 🚀 Launch ✨ (M - 1h)\n"+
		"### Task 1.3: 日本語 API v2\n"+
		"### Task 1.4: Ελληνικά δοκιμή\n"+
		"### Task 1.5: Café crème\n")
	// README: slugs are lower-case ASCII only; a title with no ASCII letter
	// or digit gives <run>-task-<dashed id>.
	commitOnBranch(t, dir, "x1-task-1-1", "main", "schema.sql", "create table t;\n")
	commitOnBranch(t, dir, "x1-task-1-2-launch", "main", "launch.txt", "go\n")
	git(t, dir, "branch", "x1-task-1-4", "main") // a branch with no commit of its own: empty
	commitOnBranch(t, dir, "x1-task-1-5-caf-cr-me", "main", "cafe.txt", "c\n")

	rep := report(t, dir, "--plan", p)
	want := map[string]struct{ status, branch, title string }{
		"1.1": {"completed", "x1-task-1-1", "Создать схему"},
		"1.2": {"completed", "x1-task-1-2-launch", "🚀 Launch ✨"},
		"1.3": {"pending", "", "日本語 API v2"},
		"1.4": {"empty", "x1-task-1-4", "Ελληνικά δοκιμή"},
		"1.5": {"completed", "x1-task-1-5-caf-cr-me", "Café crème"},
	}
	for _, ph := range rep.Phases {
		for _, task := range ph.Tasks {
			w, ok := want[task.ID]
			if !ok {
				t.Errorf("unexpected task %s", task.ID)
				continue
			}
			if task.Status != w.status || rep.TaskBranch(task.ID) != w.branch || task.Title != w.title {
				t.Errorf("task %s: status %q branch %q title %q; want %q %q %q", task.ID, task.Status, rep.TaskBranch(task.ID), task.Title, w.status, w.branch, w.title)
			}
			delete(want, task.ID)
		}
	}
	if len(want) > 0 {
		t.Errorf("tasks missing from the report: %v", want)
	}
	r := run(t, dir, "taskresume", run1, "--plan", p, "--next")
	assertOK(t, r)
	if r.Stdout != "1.3\n1.4\n" {
		t.Errorf("%s\nwant 1.3 and 1.4 runnable (parallel phase)", r)
	}
	// The branch of an all-Cyrillic title is the bare task prefix: a human
	// report names it too.
	r = run(t, dir, "taskresume", run1, "--plan", p)
	assertOK(t, r)
	if !strings.Contains(r.Stdout, "Создать схему") || !strings.Contains(r.Stdout, "x1-task-1-1,") {
		t.Errorf("%s\nthe report should show the Cyrillic title and its branch x1-task-1-1", r)
	}
}

func TestPlanCodeFences(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	p := writePlan(t, "# Plan\n\nRun ID: x1\n\n## Phase 1: Real (Sequential)\n\n### Task 1.1: Real task\n\n"+
		"```markdown\nRun ID: other\n## Phase 9: Fake (Parallel)\n### Task 9.1: Fake task\n### Task 1.1: Duplicate inside a fence\n```\n\n"+
		"~~~~\n### Task 9.2: Also fake\n```\n### Task 9.3: still inside the tilde fence\n~~~~\n\n"+
		"    ### Task 9.4: an indented code block, not a heading\n\n"+
		"### Task 1.2: Second real task\n")
	rep := report(t, dir, "--plan", p)
	var ids []string
	for _, ph := range rep.Phases {
		for _, task := range ph.Tasks {
			ids = append(ids, task.ID)
		}
	}
	if rep.TotalTasks != 2 || rep.PhasesTotal != 1 || strings.Join(ids, ",") != "1.1,1.2" {
		t.Errorf("total_tasks %d, phases_total %d, tasks %v; want 2, 1, [1.1 1.2]", rep.TotalTasks, rep.PhasesTotal, ids)
	}
}

func TestPlanLineEndings(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	p := writePlan(t, "\uFEFF# Plan\r\n\r\nRun ID:\tx1\r\n\r\n##\tPhase 1:\tSetup\t(sequential)\r\n###\tTask 1.1:\tCreate schema\t(M - 1h)\r\n- Files: a\r\n### Task 1.2: Second step\r\n")
	commitOnBranch(t, dir, br11, "main", "a", "a\n")
	rep := report(t, dir, "--plan", p)
	if rep.TotalTasks != 2 || rep.TaskStatus("1.1") != "completed" || rep.TaskBranch("1.1") != br11 {
		t.Errorf("total %d, 1.1 %s on %q; want 2, completed on %s", rep.TotalTasks, rep.TaskStatus("1.1"), rep.TaskBranch("1.1"), br11)
	}
}

// ---------------------------------------------------------------------------
// Repositories.

func TestNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)}
	for _, args := range [][]string{
		{"taskresume", run1},
		{"taskresume", run1, "--json"},
		{"taskresume", "--list"},
		{"taskclean", "--run", run1},
		{"taskclean", "--run", run1, "--undo"},
	} {
		r := runWith(t, dir, nil, env, args...)
		assertBadInput(t, r, "not a git repository")
		if !strings.HasPrefix(r.Stderr, "error: not a git repository") {
			t.Errorf("%s\nwant stderr to start with \"error: not a git repository\"", r)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files appeared in a directory that is not a repository: %v", entries)
	}
}

// TestBareWorktreeLayout: `git clone --bare` plus linked worktrees, the
// layout of many agent setups; run from a linked worktree, a subdirectory of
// it, and from the bare directory with --plan REV:PATH.
func TestBareWorktreeLayout(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	commitOnBranch(t, src, br11, "main", "db/schema.sql", "create table t;\n")
	top := testbin.TempDir(t)
	bare := filepath.Join(top, "repo.git")
	git(t, top, "clone", "-q", "--bare", src, bare)
	git(t, bare, "worktree", "add", "-q", "../wt", "main")
	stale := filepath.Join(top, "x1-task-1-2")
	git(t, bare, "worktree", "add", "-q", "-b", br12, "../x1-task-1-2", "main")
	testbin.WriteFile(t, filepath.Join(stale, "src", "app.txt"), "half done\n")
	wt := filepath.Join(top, "wt")

	check := func(t *testing.T, rep *testbin.Report, plan string) {
		t.Helper()
		if rep.Plan == nil || *rep.Plan != plan {
			t.Errorf("plan %v, want %s", rep.Plan, plan)
		}
		if rep.CompletedTasks != 1 || rep.TotalTasks != 4 || rep.TaskStatus("1.1") != "completed" {
			t.Errorf("completed %d/%d (1.1 %s); want 1/4 with 1.1 completed", rep.CompletedTasks, rep.TotalTasks, rep.TaskStatus("1.1"))
		}
	}
	// A bare repository has no main worktree whose files hold the plan:
	// the copy read is the base's (main), whichever worktree the command
	// runs in.
	t.Run("from the linked worktree", func(t *testing.T) {
		rep := report(t, wt)
		check(t, rep, "main:specs/x1/plan.md")
		if len(rep.StaleWorktrees) != 1 || rep.StaleWorktrees[0] != stale {
			t.Errorf("stale worktrees %v, want [%s]", rep.StaleWorktrees, stale)
		}
	})
	t.Run("from a subdirectory of the linked worktree", func(t *testing.T) {
		check(t, report(t, filepath.Join(wt, "src")), "main:specs/x1/plan.md")
	})
	t.Run("from the bare directory with REV:PATH", func(t *testing.T) {
		check(t, report(t, bare, "--plan", "main:specs/x1/plan.md"), "main:specs/x1/plan.md")
	})
	t.Run("from the bare directory with the default plan", func(t *testing.T) {
		check(t, report(t, bare), "main:specs/x1/plan.md")
	})
	t.Run("clean from the bare directory", func(t *testing.T) {
		res := clean(t, bare, "--plan", "main:specs/x1/plan.md")
		saves := res.Find("save_worktree", stale)
		if len(saves) == 0 || len(res.Find("remove_worktree", stale)) == 0 {
			t.Fatalf("actions %v: want save_worktree and remove_worktree of %s", res.Ops(), stale)
		}
		if testbin.Exists(stale) {
			t.Errorf("%s still exists after the clean", stale)
		}
		ref := saves[0].Ref
		if got := git(t, bare, "show", ref+":src/app.txt"); got != "half done" {
			t.Errorf("saved work in %s: %q, want %q", ref, got, "half done")
		}
		if rep := report(t, wt); len(rep.StaleWorktrees) != 0 {
			t.Errorf("stale worktrees after the clean: %v", rep.StaleWorktrees)
		}
		if !testbin.Exists(filepath.Join(wt, "specs", "x1", "plan.md")) {
			t.Error("the linked worktree the user works in lost its files")
		}
	})
}

func TestEmptyRepository(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "empty")
	git(t, filepath.Dir(dir), "init", "-q", dir)
	testbin.WriteFile(t, filepath.Join(dir, "specs", "x1", "plan.md"), standardPlan) // untracked: there is no commit
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"taskresume", run1},
		{"taskresume", run1, "--json"},
		{"taskresume", run1, "--plan", "HEAD:specs/x1/plan.md"},
		{"taskclean", "--run", run1},
		{"taskclean", "--run", run1, "--all"},
	} {
		r := run(t, dir, args...)
		assertBadInput(t, r)
		if !regexp.MustCompile(`base|commit|HEAD`).MatchString(r.Stderr) {
			t.Errorf("%s\nthe message should say what is missing (a base branch, a commit)", r)
		}
		assertUnchanged(t, dir, before, r)
	}
}

func TestDetachedMainWorktree(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	git(t, dir, "checkout", "-q", "--detach")
	testbin.WriteFile(t, filepath.Join(dir, "local.txt"), "on a detached HEAD\n")
	git(t, dir, "add", "local.txt")
	git(t, dir, "commit", "-q", "-m", "a commit no branch holds")
	head := git(t, dir, "rev-parse", "HEAD")

	rep := report(t, dir)
	if rep.CompletedTasks != 1 || rep.TaskStatus("1.1") != "completed" || rep.Base.Ref != "main" {
		t.Errorf("completed %d (1.1 %s), base %s; want 1, completed, main", rep.CompletedTasks, rep.TaskStatus("1.1"), rep.Base.Ref)
	}
	if len(rep.Worktrees) != 1 || rep.Worktrees[0].Task != "1.2" {
		t.Errorf("worktrees %+v: want only the worktree of task 1.2", rep.Worktrees)
	}
	for _, extra := range [][]string{nil, {"--all"}} {
		clean(t, dir, extra...)
		if got := git(t, dir, "rev-parse", "HEAD"); got != head {
			t.Errorf("taskclean %v moved the main worktree's HEAD: %s, was %s", extra, got, head)
		}
		if r := run(t, dir, "symbolic-ref", "-q", "HEAD"); r.Code == 0 {
			t.Errorf("taskclean %v attached the main worktree's HEAD to %s", extra, r.Stdout)
		}
		if readFile(t, filepath.Join(dir, "local.txt")) != "on a detached HEAD\n" {
			t.Errorf("taskclean %v touched the main worktree", extra)
		}
	}
	if testbin.Exists(filepath.Join(dir, ".worktrees", "x1-task-1-2")) {
		t.Error("the stale worktree is still there")
	}
	if r := run(t, dir, "rev-parse", "--verify", "-q", "refs/heads/"+br11); r.Code == 0 {
		t.Error("--all left the task branch 1.1")
	}
}

// restoreWorktree runs the command a clean printed to bring a saved worktree
// back, and returns the restored directory's file.
func restoreWorktree(t testing.TB, dir, command, path, file string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("restore command %q: %v: %s", command, err, out)
	}
	return readFile(t, filepath.Join(path, file))
}

func TestWorktreeConfigSparse(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	git(t, dir, "config", "extensions.worktreeConfig", "true")
	wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
	addWorktree(t, dir, wt, br12, "main")
	git(t, wt, "sparse-checkout", "set", "src", "specs")
	if testbin.Exists(filepath.Join(wt, "docs")) {
		t.Fatal("sparse checkout did not take effect")
	}
	testbin.WriteFile(t, filepath.Join(wt, "src", "app.txt"), "sparse work\n")

	rep := report(t, dir)
	if len(rep.Worktrees) != 1 {
		t.Fatalf("worktrees %+v, want one", rep.Worktrees)
	}
	w := rep.Worktrees[0]
	if w.State != "dirty" || w.Unstaged != 1 || w.Staged != 0 || w.Untracked != 0 || !w.Stale {
		t.Errorf("worktree %+v: want dirty with exactly 1 unstaged change (the sparse-excluded docs/ are not changes), stale", w)
	}
	res := clean(t, dir)
	saves := res.Find("save_worktree", wt)
	if len(saves) == 0 || len(res.Find("remove_worktree", wt)) == 0 {
		t.Fatalf("actions %v: want the sparse worktree saved and removed", res.Ops())
	}
	ref := saves[0].Ref
	if got := git(t, dir, "show", ref+":src/app.txt"); got != "sparse work" {
		t.Errorf("saved src/app.txt %q", got)
	}
	if got := git(t, dir, "show", ref+":docs/guide.txt"); got != "guide" {
		t.Errorf("the save recorded the sparse-excluded docs/guide.txt as %q; it must stay as committed", got)
	}
	if testbin.Exists(wt) {
		t.Error("the worktree is still there")
	}
	if got := restoreWorktree(t, dir, saves[0].Command, wt, "src/app.txt"); got != "sparse work\n" {
		t.Errorf("restored src/app.txt %q", got)
	}
}

func TestRepositoryFormatVersion1(t *testing.T) {
	t.Parallel()
	t.Run("known extensions", func(t *testing.T) {
		dir := crashRepo(t)
		git(t, dir, "config", "core.repositoryformatversion", "1")
		git(t, dir, "config", "extensions.noop", "true")
		git(t, dir, "config", "extensions.preciousObjects", "true")
		git(t, dir, "config", "extensions.worktreeConfig", "true")
		rep := report(t, dir)
		if rep.CompletedTasks != 1 || len(rep.StaleWorktrees) != 1 {
			t.Errorf("completed %d, stale %v; want 1 and one stale worktree", rep.CompletedTasks, rep.StaleWorktrees)
		}
		res := clean(t, dir, "--task", "1.1")
		if len(res.Find("delete_branch", "")) == 0 {
			t.Errorf("actions %v: want the branch of 1.1 deleted", res.Ops())
		}
		res = clean(t, dir, "--undo")
		if len(res.Find("restore_branch", "")) == 0 {
			t.Errorf("actions %v: want the branch of 1.1 restored", res.Ops())
		}
		if rep := report(t, dir); rep.TaskStatus("1.1") != "completed" {
			t.Errorf("1.1 is %s after undo, want completed", rep.TaskStatus("1.1"))
		}
	})
	t.Run("unknown extension", func(t *testing.T) {
		dir := crashRepo(t)
		git(t, dir, "config", "core.repositoryformatversion", "1")
		git(t, dir, "config", "extensions.frobnicate", "true")
		for _, args := range [][]string{{"taskresume", run1}, {"taskclean", "--run", run1}} {
			r := run(t, dir, args...)
			// git itself warns about the extension before it runs the
			// command; the command's own message is the one error: line.
			var own []string
			for _, l := range strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n") {
				if !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "\t") {
					own = append(own, l)
				}
			}
			if r.Code != 2 || r.Stdout != "" || len(own) != 1 || !strings.HasPrefix(own[0], "error: ") {
				t.Errorf("%s\nwant exit 2 and one error: line of the command's own", r)
				continue
			}
			if !strings.Contains(own[0], "frobnicate") {
				t.Errorf("%s\nthe error line should name the extension to fix (frobnicate)", r)
			}
		}
	})
}

func TestSHA256Repository(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, "--object-format=sha256")
	if got := git(t, dir, "rev-parse", "--show-object-format"); got != "sha256" {
		t.Fatalf("object format %s", got)
	}
	commitOnBranch(t, dir, br11, "main", "db/schema.sql", "create table t;\n")
	commitOnBranch(t, dir, br12, br11, "db/seed.sql", "insert;\n")
	wt21 := filepath.Join(dir, ".worktrees", "x1-task-2-1")
	addWorktree(t, dir, wt21, br21, br12)
	testbin.WriteFile(t, filepath.Join(wt21, "svc.txt"), "service\n")
	git(t, wt21, "add", "svc.txt")
	git(t, wt21, "commit", "-q", "-m", "user service")
	wt22 := filepath.Join(dir, ".worktrees", "x1-task-2-2")
	addWorktree(t, dir, wt22, br22, br12)
	testbin.WriteFile(t, filepath.Join(wt22, "other.txt"), "uncommitted\n")

	rep := report(t, dir)
	if rep.CompletedTasks != 3 || rep.Status != "in_progress" || len(rep.Base.Commit) != 64 {
		t.Fatalf("completed %d, status %s, base commit %q; want 3, in_progress, a 64-hex id", rep.CompletedTasks, rep.Status, rep.Base.Commit)
	}
	for _, id := range []string{"1.1", "1.2", "2.1"} {
		if rep.TaskStatus(id) != "completed" {
			t.Errorf("task %s is %s, want completed", id, rep.TaskStatus(id))
		}
	}
	if rep.TaskStatus("2.2") != "empty" || len(rep.StaleWorktrees) != 1 {
		t.Errorf("2.2 %s, stale %v; want empty and its worktree stale", rep.TaskStatus("2.2"), rep.StaleWorktrees)
	}

	res := clean(t, dir)
	saves := res.Find("save_worktree", wt22)
	if len(saves) == 0 || len(res.Find("remove_worktree", wt22)) == 0 || testbin.Exists(wt22) {
		t.Fatalf("actions %v: want the worktree of 2.2 saved and removed", res.Ops())
	}
	a := saves[0]
	if len(a.Commit) != 64 || git(t, dir, "rev-parse", a.Ref) != a.Commit {
		t.Errorf("backup %s at %s: want a sha256 commit under that ref", a.Ref, a.Commit)
	}
	if got := restoreWorktree(t, dir, a.Command, wt22, "other.txt"); got != "uncommitted\n" {
		t.Errorf("restored other.txt: %q", got)
	}

	tip := git(t, dir, "rev-parse", br21)
	res = clean(t, dir, "--task", "2.1")
	if r := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+br21); r.Code == 0 || testbin.Exists(wt21) {
		t.Errorf("actions %v: want the branch and worktree of 2.1 gone", res.Ops())
	}
	clean(t, dir, "--undo")
	if got := git(t, dir, "rev-parse", br21); got != tip {
		t.Errorf("undo restored %s at %s, want %s", br21, got, tip)
	}
}

func TestPackedAndLooseRefs(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	commitOnBranch(t, dir, br11, "main", "a.txt", "a\n")
	git(t, dir, "branch", br12, "main")
	git(t, dir, "pack-refs", "--all")
	// br12 now gets a loose ref that shadows its packed value.
	packed12 := git(t, dir, "rev-parse", br12)
	loose12 := commitOnBranch(t, dir, br12, br11, "b.txt", "b\n")
	git(t, dir, "branch", br21, br12) // loose only, no commit of its own
	pr := readFile(t, filepath.Join(dir, ".git", "packed-refs"))
	if !strings.Contains(pr, br11) || !strings.Contains(pr, packed12+" refs/heads/"+br12) || !testbin.Exists(filepath.Join(dir, ".git", "refs", "heads", br12)) {
		t.Fatalf("setup: want %s packed, %s packed and loose; packed-refs:\n%s", br11, br12, pr)
	}

	rep := report(t, dir)
	if rep.TaskStatus("1.1") != "completed" || rep.TaskStatus("1.2") != "completed" || rep.TaskStatus("2.1") != "empty" {
		t.Errorf("1.1 %s, 1.2 %s, 2.1 %s; want completed, completed, empty", rep.TaskStatus("1.1"), rep.TaskStatus("1.2"), rep.TaskStatus("2.1"))
	}
	res := clean(t, dir, "--task", "1.2")
	if len(res.Find("delete_branch", "")) == 0 {
		t.Fatalf("actions %v: want the branch of 1.2 deleted", res.Ops())
	}
	if r := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+br12); r.Code == 0 {
		t.Errorf("%s still resolves (to %s) after its deletion: the packed copy came back", br12, r.Stdout)
	}
	if strings.Contains(readFile(t, filepath.Join(dir, ".git", "packed-refs")), br12) {
		t.Errorf("packed-refs still holds %s", br12)
	}
	clean(t, dir, "--undo")
	if got := git(t, dir, "rev-parse", br12); got != loose12 {
		t.Errorf("undo restored %s at %s, want the loose value %s", br12, got, loose12)
	}
}

// TestBrokenWorktreeAdmin: a worktree admin entry whose gitdir file points
// nowhere or holds garbage. git lists it as prunable; the report must still
// work, and a clean must neither touch the files the entry used to point at
// nor leave the run with a stale worktree it can never remove.
func TestBrokenWorktreeAdmin(t *testing.T) {
	t.Parallel()
	canary := func(t *testing.T, p string) []string {
		testbin.WriteFile(t, p, "keep me\n")
		return []string{p}
	}
	cases := []struct {
		name string
		// gitdir writes what the case needs and returns the gitdir file's
		// content and the files that must survive.
		gitdir func(t *testing.T, dir string) (string, []string)
		// hidden: git itself does not list the entry (an empty gitdir
		// file), so neither command can see it.
		hidden bool
	}{
		{"gitdir points nowhere", func(t *testing.T, dir string) (string, []string) {
			return filepath.Join(filepath.Dir(dir), "nowhere", ".git") + "\n", nil
		}, false},
		{"gitdir points at a directory outside", func(t *testing.T, dir string) (string, []string) {
			v := canary(t, filepath.Join(filepath.Dir(dir), "victim", "canary"))
			return filepath.Join(filepath.Dir(dir), "victim", ".git") + "\n", v
		}, false},
		{"gitdir holds a relative name", func(t *testing.T, dir string) (string, []string) {
			v := canary(t, filepath.Join(dir, "victim", "canary"))
			return "victim/.git\n", v
		}, false},
		{"gitdir holds garbage bytes", func(t *testing.T, dir string) (string, []string) {
			return "garbage\x01\x02 not a path\xff", nil
		}, false},
		{"gitdir is empty", func(t *testing.T, dir string) (string, []string) { return "", nil }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
			addWorktree(t, dir, wt, br12, "main")
			testbin.WriteFile(t, filepath.Join(wt, "src", "app.txt"), "uncommitted\n")
			content, victims := c.gitdir(t, dir)
			victims = append(victims, canary(t, filepath.Join(wt, "canary"))...)
			victims = append(victims, filepath.Join(wt, "src", "app.txt"))
			testbin.WriteFile(t, filepath.Join(dir, ".git", "worktrees", "x1-task-1-2", "gitdir"), content)

			rep := report(t, dir)
			switch {
			case c.hidden && len(rep.Worktrees) != 0:
				t.Errorf("worktrees %+v: git does not list this entry; want none", rep.Worktrees)
			case !c.hidden && (len(rep.Worktrees) != 1 || rep.Worktrees[0].Task != "1.2"):
				t.Errorf("worktrees %+v: want the broken entry, on task 1.2's branch", rep.Worktrees)
			}
			for _, extra := range [][]string{nil, {"--task", "1.2"}} {
				r := run(t, dir, append([]string{"taskclean", "--run", run1}, extra...)...)
				assertNoPanic(t, r)
				if r.Code != 0 {
					t.Errorf("%s\nwant exit 0", r)
				}
				for _, f := range victims {
					if !testbin.Exists(f) {
						t.Errorf("%s\ntaskclean %v deleted %s, which git does not register as a worktree", r, extra, f)
					}
				}
			}
			// The entry is stale (its directory is gone as far as git can
			// tell); after a clean the run must have no stale worktree
			// left, or every report keeps recommending a clean that can
			// never succeed.
			after := report(t, dir)
			if len(after.StaleWorktrees) != 0 {
				t.Errorf("stale worktrees after taskclean: %v (git worktree list:\n%s)\nwant the broken admin entry pruned",
					after.StaleWorktrees, git(t, dir, "worktree", "list", "--porcelain"))
			}
		})
	}
}

// TestSymlinkedWorktree: the registered worktree directory replaced by a
// symbolic link to a place outside the repository. Symlinks are never
// followed: whatever the link points at survives every kind of clean.
func TestSymlinkedWorktree(t *testing.T) {
	t.Parallel()
	variants := []struct {
		name string
		// moveWorktree: the target is the real worktree moved away (so git
		// sees a valid worktree through the link), else only a canary.
		moveWorktree bool
	}{
		{"link to a directory with a canary", false},
		{"link to the moved worktree itself", true},
	}
	modes := [][]string{nil, {"--completed"}, {"--task", "1.2"}, {"--task", "1.2", "--no-backup"}, {"--all"}, {"--all", "--no-backup"}}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
			addWorktree(t, dir, wt, br12, "main")
			testbin.WriteFile(t, filepath.Join(wt, "work.txt"), "uncommitted\n")
			outside := filepath.Join(t.TempDir(), "outside")
			if v.moveWorktree {
				if err := os.Rename(wt, outside); err != nil {
					t.Fatal(err)
				}
			} else if err := os.RemoveAll(wt); err != nil {
				t.Fatal(err)
			}
			testbin.WriteFile(t, filepath.Join(outside, "canary"), "keep me\n")
			if err := os.Symlink(outside, wt); err != nil {
				t.Fatal(err)
			}
			listing := func() string {
				var names []string
				filepath.Walk(outside, func(p string, _ os.FileInfo, err error) error {
					names = append(names, p)
					return nil
				})
				return strings.Join(names, "\n")
			}
			want := listing()

			rep := report(t, dir)
			if len(rep.Worktrees) != 1 {
				t.Errorf("worktrees %+v: want the linked one listed", rep.Worktrees)
			}
			for _, m := range modes {
				r := run(t, dir, append([]string{"taskclean", "--run", run1}, m...)...)
				assertNoPanic(t, r)
				if refusal := deletesBranch(m); refusal {
					// The worktree stays, so deleting its branch is refused
					// and nothing changes.
					if r.Code != 2 || !strings.Contains(r.Stderr, "refusing to delete branch "+br12) {
						t.Errorf("%s\nwant exit 2 refusing to delete %s", r, br12)
					}
				} else if r.Code != 0 {
					t.Errorf("%s\nwant exit 0", r)
				}
				if readFile(t, filepath.Join(outside, "canary")) != "keep me\n" || listing() != want {
					t.Fatalf("taskclean %v followed the symbolic link: %s now holds\n%s\nwant\n%s", m, outside, listing(), want)
				}
				if fi, err := os.Lstat(wt); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("taskclean %v removed the symbolic link %s (%v)", m, wt, err)
				}
				if !deletesBranch(m) && !strings.Contains(r.Stdout, "skip worktree") {
					t.Errorf("%s\nwant the linked worktree reported as skipped", r)
				}
				if r := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+br12); r.Code != 0 {
					t.Fatalf("taskclean %v deleted %s, still checked out in the worktree it left in place", m, br12)
				}
			}
		})
	}
}

// unreadableRepo is a run whose stale worktree directory cannot be read.
// It returns the repository, the worktree, and the command prefix under
// which the permission holds.
func unreadableRepo(t *testing.T) (string, string, []string) {
	t.Helper()
	dir := newRepo(t)
	wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
	addWorktree(t, dir, wt, br12, "main")
	testbin.WriteFile(t, filepath.Join(wt, "work.txt"), "uncommitted\n")
	if err := os.Chmod(wt, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(wt, 0o755) })
	if os.Geteuid() == 0 {
		if privDrop == nil {
			t.Log("NOT EFFECTIVE: running as root without a way to drop CAP_DAC_OVERRIDE (setpriv), so chmod 000 does not stop reading; the case only checks that nothing is deleted")
		} else {
			t.Logf("running as root: commands run under %q so that chmod 000 binds", privDrop)
		}
	}
	return dir, wt, privDrop
}

func TestUnreadableWorktree(t *testing.T) {
	t.Parallel()
	t.Run("report", func(t *testing.T) {
		dir, wt, prefix := unreadableRepo(t)
		r := runWith(t, dir, prefix, nil, "taskresume", run1, "--json")
		assertOK(t, r)
		var rep testbin.Report
		testbin.DecodeJSON(t, r, &rep)
		if len(rep.Worktrees) != 1 {
			t.Fatalf("worktrees %+v, want one", rep.Worktrees)
		}
		// README: worktree state `unknown` (unreadable). The directory is
		// there: calling it missing sends the user looking in vain.
		if w := rep.Worktrees[0]; w.State != "unknown" || w.Missing {
			t.Errorf("worktree %s: state %q, missing %v; want state \"unknown\" and missing false (the directory exists, it cannot be read)", wt, w.State, w.Missing)
		}
	})
	for _, mode := range [][]string{nil, {"--task", "1.2"}, {"--all"}, {"--task", "1.2", "--no-backup"}} {
		t.Run("clean "+strings.Join(mode, " "), func(t *testing.T) {
			t.Parallel()
			dir, wt, prefix := unreadableRepo(t)
			r := runWith(t, dir, prefix, nil, append([]string{"taskclean", "--run", run1}, mode...)...)
			assertNoPanic(t, r)
			if deletesBranch(mode) {
				if r.Code != 2 || !strings.Contains(r.Stderr, "refusing to delete branch "+br12) {
					t.Errorf("%s\nwant exit 2 refusing to delete %s, which the unreadable worktree has checked out", r, br12)
				}
			} else if r.Code != 0 {
				t.Errorf("%s\nwant exit 0", r)
			}
			os.Chmod(wt, 0o755)
			if !testbin.Exists(filepath.Join(wt, "work.txt")) {
				t.Fatalf("%s\nthe unreadable worktree's work is gone", r)
			}
			if !strings.Contains(git(t, dir, "worktree", "list", "--porcelain"), "worktree "+wt+"\n") {
				t.Errorf("%s\nthe worktree is no longer registered, but its directory is still there", r)
			}
			// The worktree stays, so its branch must stay: deleting the
			// branch a surviving worktree has checked out leaves it on an
			// unborn branch.
			if rr := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+br12); rr.Code != 0 {
				t.Errorf("%s\n%s was deleted although its worktree %s was left in place (HEAD there now names a missing branch)", r, br12, wt)
			}
		})
	}
}

// TestEmbeddedRepository: a stale worktree holding a repository of its own
// (which a save cannot capture) stays, so its branch must stay as well.
func TestEmbeddedRepository(t *testing.T) {
	t.Parallel()
	for _, mode := range [][]string{nil, {"--task", "1.2"}, {"--all"}} {
		t.Run("clean "+strings.Join(mode, " "), func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			wt := filepath.Join(dir, ".worktrees", "x1-task-1-2")
			addWorktree(t, dir, wt, br12, "main")
			inner := filepath.Join(wt, "inner")
			git(t, wt, "init", "-q", "inner")
			testbin.WriteFile(t, filepath.Join(inner, "a.txt"), "inner work\n")
			git(t, inner, "add", "a.txt")
			git(t, inner, "commit", "-q", "-m", "inner")
			testbin.WriteFile(t, filepath.Join(wt, "d.txt"), "outer work\n")

			r := run(t, dir, append([]string{"taskclean", "--run", run1}, mode...)...)
			if deletesBranch(mode) {
				// Its branch cannot go while it stays: refused, nothing
				// changed.
				if r.Code != 2 || !strings.Contains(r.Stderr, "embedded") {
					t.Fatalf("%s\nwant exit 2 refusing to delete %s, naming the embedded repository", r, br12)
				}
			} else {
				assertOK(t, r)
			}
			if !strings.Contains(r.Stdout+r.Stderr, "embedded") || !testbin.Exists(filepath.Join(inner, "a.txt")) || !testbin.Exists(filepath.Join(wt, "d.txt")) {
				t.Fatalf("%s\nwant the worktree skipped (embedded repository) and left as it was", r)
			}
			if rr := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+br12); rr.Code != 0 {
				t.Errorf("%s\n%s was deleted although its worktree %s was left in place (HEAD there now names a missing branch)", r, br12, wt)
			}
		})
	}
}

func TestNewlineInWorktreePath(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	// Inside the worktree folder: a task's worktree elsewhere is a user's
	// own checkout, which the default clean leaves alone.
	wt := filepath.Join(dir, ".worktrees", "wt\nx")
	addWorktree(t, dir, wt, br12, "main")
	testbin.WriteFile(t, filepath.Join(wt, "src", "app.txt"), "changed\n")
	testbin.WriteFile(t, filepath.Join(wt, "new\nfile.txt"), "untracked\n")

	rep := report(t, dir)
	if len(rep.Worktrees) != 1 || rep.Worktrees[0].Path != wt || rep.Worktrees[0].Task != "1.2" {
		t.Fatalf("worktrees %+v: want %q on task 1.2", rep.Worktrees, wt)
	}
	if w := rep.Worktrees[0]; w.State != "dirty" || w.Unstaged != 1 || w.Untracked != 1 || !w.Stale {
		t.Errorf("worktree %+v: want dirty, 1 unstaged, 1 untracked, stale", w)
	}
	if r := run(t, dir, "taskresume", run1); r.Code != 0 {
		t.Errorf("%s\nthe human report fails", r)
	}
	res := clean(t, dir)
	saves := res.Find("save_worktree", wt)
	if len(saves) == 0 || len(res.Find("remove_worktree", wt)) == 0 {
		t.Fatalf("actions %v: want %q saved and removed", res.Ops(), wt)
	}
	if testbin.Exists(wt) {
		t.Errorf("%q still exists", wt)
	}
	if got := restoreWorktree(t, dir, saves[0].Command, wt, "new\nfile.txt"); got != "untracked\n" {
		t.Errorf("restored untracked file: %q", got)
	}
	if got := readFile(t, filepath.Join(wt, "src", "app.txt")); got != "changed\n" {
		t.Errorf("restored src/app.txt: %q", got)
	}
}

// ---------------------------------------------------------------------------
// Output hygiene.

func TestJSONOutput(t *testing.T) {
	t.Parallel()
	dir := crashRepo(t)
	// A plan warning (phase without a mode) must go into the JSON, not to
	// stderr.
	p := writePlan(t, standardPlan+"\n## Phase 3: No mode\n\n### Task 3.1: Later\n")

	t.Run("taskresume --json", func(t *testing.T) {
		r := run(t, dir, "taskresume", run1, "--json", "--plan", p)
		assertOK(t, r)
		var rep testbin.Report
		testbin.DecodeJSON(t, r, &rep)
		if rep.SchemaVersion != 2 || rep.RunID != run1 || rep.TotalTasks != 5 {
			t.Errorf("schema %d, run %s, total %d", rep.SchemaVersion, rep.RunID, rep.TotalTasks)
		}
		found := false
		for _, pr := range rep.Problems {
			found = found || pr.Kind == "plan_warning"
		}
		if !found {
			t.Errorf("problems %+v: want the plan warning there", rep.Problems)
		}
	})
	t.Run("taskresume --exit-code --json", func(t *testing.T) {
		r := run(t, dir, "taskresume", run1, "--json", "--exit-code")
		if r.Code != 1 || r.Stderr != "" {
			t.Errorf("%s\nwant exit 1 (incomplete) and an empty stderr", r)
		}
		var rep testbin.Report
		testbin.DecodeJSON(t, r, &rep)
	})
	t.Run("taskresume --list --json", func(t *testing.T) {
		r := run(t, dir, "taskresume", "--list", "--json")
		assertOK(t, r)
		var doc struct {
			SchemaVersion int              `json:"schema_version"`
			Runs          []map[string]any `json:"runs"`
		}
		testbin.DecodeJSON(t, r, &doc)
		if doc.SchemaVersion != 1 || len(doc.Runs) != 1 || doc.Runs[0]["run_id"] != run1 {
			t.Errorf("list %+v: want schema_version 1 and run x1 only", doc)
		}
	})
	t.Run("taskresume --next", func(t *testing.T) {
		r := run(t, dir, "taskresume", run1, "--next")
		assertOK(t, r)
		if r.Stdout != "1.2\n" {
			t.Errorf("%s\nwant exactly \"1.2\\n\"", r)
		}
	})
	t.Run("taskclean --dry-run --json", func(t *testing.T) {
		before := snapshot(t, dir)
		res := clean(t, dir, "--dry-run")
		if !res.DryRun || len(res.Actions) == 0 {
			t.Errorf("dry run %v, actions %v", res.DryRun, res.Ops())
		}
		assertUnchanged(t, dir, before, testbin.Result{Args: []string{"taskclean", "--dry-run", "--json"}})
	})
	t.Run("taskclean --json and --undo --json", func(t *testing.T) {
		d := crashRepo(t)
		res := clean(t, d)
		if res.DryRun || len(res.Actions) == 0 || !strings.HasPrefix(res.Backup, "refs/taskclean/x1/") {
			t.Errorf("result %+v", res)
		}
		res = clean(t, d, "--undo")
		if len(res.Find("restore_worktree", "")) == 0 {
			t.Errorf("undo actions %v: want restore_worktree", res.Ops())
		}
	})
	t.Run("nothing to clean --json", func(t *testing.T) {
		d := newRepo(t)
		res := clean(t, d)
		if len(res.Actions) != 0 {
			t.Errorf("actions %v, want none", res.Ops())
		}
	})
}

func TestHumanOutputHygiene(t *testing.T) {
	t.Parallel()
	t.Run("no colour off a terminal", func(t *testing.T) {
		dir := crashRepo(t)
		env := []string{"NO_COLOR=", "TERM=xterm-256color"}
		for _, args := range [][]string{{"taskresume", run1}, {"taskclean", "--run", run1, "--dry-run"}} {
			r := runWith(t, dir, nil, env, args...)
			if r.Code != 0 || strings.Contains(r.Stdout, "\x1b[") {
				t.Errorf("%s\nwant exit 0 and no escape sequences in a pipe", r)
			}
		}
	})
	t.Run("control characters in plan titles are not written raw", func(t *testing.T) {
		dir := newRepo(t)
		p := writePlan(t, "Run ID: x1\n## Phase 1: A\x1b]0;pwned\x07 (Parallel)\n### Task 1.1: Evil \x1b[2J title\n")
		r := run(t, dir, "taskresume", run1, "--plan", p)
		assertOK(t, r)
		if controlBytes(r.Stdout) {
			t.Errorf("%s\nthe report writes the plan's escape sequences to the terminal; control characters must be escaped", r)
		}
	})
	t.Run("a newline in a worktree path does not split report lines", func(t *testing.T) {
		dir := newRepo(t)
		wt := filepath.Join(dir, "wt\nx")
		addWorktree(t, dir, wt, br12, "main")
		testbin.WriteFile(t, filepath.Join(wt, "n.txt"), "n\n")
		for _, args := range [][]string{{"taskresume", run1}, {"taskclean", "--run", run1, "--dry-run"}} {
			r := run(t, dir, args...)
			assertOK(t, r)
			if strings.Contains(r.Stdout, "wt\nx") {
				t.Errorf("%s\nthe path is written with a raw newline, splitting its line; quote it as git does (\"wt\\nx\")", r)
			}
		}
	})
}

// deletesBranch reports whether a clean with these flags deletes branches
// (and so refuses when a worktree that stays has one checked out).
func deletesBranch(mode []string) bool {
	for _, m := range mode {
		if m == "--all" || m == "--task" {
			return true
		}
	}
	return false
}
