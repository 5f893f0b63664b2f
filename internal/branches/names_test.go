package branches_test

import (
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
)

func TestNamesTask(t *testing.T) {
	dotted := mustPlan(t, stdPlan)
	dashed := planWith(t, "1-1: Project setup", "1-2: Core types", "1-10: Ten", "1-1-2: Sub")
	through := mustPlan(t, throughPlan)
	oneOfThree := planWith(t, "1: Spec", "2: Plan", "3: Execute")
	cases := []struct {
		plan string
		name string
		want string
	}{
		{"dotted", "x1y2z3-task-1-1-create-database-schema", "1.1"}, // the exact name
		{"dotted", "x1y2z3-task-1-1", "1.1"},                        // no name part
		{"dotted", "x1y2z3-task-1.1-foundation", "1.1"},             // dots kept
		{"dotted", "x1y2z3-task-1-1-foundation-2", "1.1"},           // a retry
		{"dotted", "x1y2z3-task-2-2-fix/wip", "2.2"},
		{"dotted", "x1y2z3-task-3-1-later", ""},   // no such task
		{"dotted", "x1y2z3-task-1-11-x", ""},      // 1.11 is not 1.1
		{"dotted", "x1y2z3-task-12-x", ""},        // nor is 12
		{"dotted", "x1y2z3-task-2fa-support", ""}, // not a number
		{"dotted", "x1y2z3-main", ""},
		{"dotted", "other1-task-1-1-x", ""},
		{"dashed", "x1y2z3-task-1-1-project-setup", "1-1"},
		{"dashed", "x1y2z3-task-1-10-ten", "1-10"},
		{"dashed", "x1y2z3-task-1-1-2-sub", "1-1-2"}, // the longest id wins
		{"dashed", "x1y2z3-task-1-2", "1-2"},
		// Numbered through: two numbers are phase and task.
		{"through", "x1y2z3-task-3-add-tests", "3"},
		{"through", "x1y2z3-task-2-3-add-tests", "3"},       // phase 2 holds task 3
		{"through", "x1y2z3-task-2-2-second", "4"},          // else phase 2's 2nd task
		{"through", "x1y2z3-task-1-3-x", ""},                // never task 1; phase 1 has no 3rd task
		{"through", "x1y2z3-task-3-4-x", ""},                // no phase 3
		{"one", "x1y2z3-task-1-1-worktree-management", "1"}, // phase 1's task 1
		{"one", "x1y2z3-task-2-1-git-spice-safety", ""},     // no phase 2: never task 2
		{"one", "x1y2z3-task-4-worktree-bugfixes", ""},      // no task 4
	}
	plans := map[string]*branches.Names{
		"dotted":  branches.NewNames(run, dotted),
		"dashed":  branches.NewNames(run, dashed),
		"through": branches.NewNames(run, through),
		"one":     branches.NewNames(run, oneOfThree),
	}
	for _, tc := range cases {
		if got := plans[tc.plan].Task(tc.name); got != tc.want {
			t.Errorf("%s plan: %s -> %q, want %q", tc.plan, tc.name, got, tc.want)
		}
	}
	if got := branches.NewNames(run, nil).Task("x1y2z3-task-1-1"); got != "" {
		t.Errorf("no plan: got %q", got)
	}
}

func TestNameCommit(t *testing.T) {
	dotted := branches.NewNames(run, mustPlan(t, stdPlan))
	through := branches.NewNames(run, mustPlan(t, throughPlan))
	dashed := branches.NewNames(run, planWith(t, "1-1: Project Setup & Dependencies", "1-3: Git Utils Module", "4-4: MCP Server Core"))
	short := branches.NewNames(run, planWith(t, "2.1: Add user endpoint", "3: Tests"))
	cases := []struct {
		n       *branches.Names
		subject string
		shared  bool
		want    string
		marked  bool
	}{
		{dotted, "[Task 2.1] User service", false, "2.1", true},
		{dotted, "[Task 2-1] User service", true, "2.1", true},
		{dotted, "[Task 2.1]", false, "2.1", true},                        // the id alone
		{dotted, "[Task 2.1]", true, "", true},                            // not on a shared branch
		{dotted, "[Task 2.1] Add user service tests", false, "2.1", true}, // shares a word
		{dotted, "[Task 2.1] Bump the linter", false, "2.1", true},        // the id alone
		{dotted, "[Task 2.1] Product service", false, "2.2", true},        // the title decides
		{dotted, "[Task 9.9] Something else", false, "", true},
		{dotted, "Task 1.2: Install dependencies", false, "1.2", true},
		{dotted, "feat: Task 1.2 - Install dependencies", false, "1.2", true},
		{dotted, "Install dependencies", false, "", false},
		{dotted, "chore: Task 1.2 - start Install dependencies", false, "", false},
		{dotted, "wip: [Task 1.2] Install dependencies", false, "", false},
		{dotted, "revert: [Task 1.2] Install dependencies", false, "", false},
		{dotted, "fix(db): Task 1.1 - Create database schema", false, "1.1", true},
		{dotted, "Merge branch 'x1y2z3-task-2-1-users'", false, "", false},
		// Agents describe the work in their own words.
		{dashed, "[Task 1.1] Configure project for MCP server development", false, "1-1", true},
		{dashed, "[Task 1.3] Implement pure git utility functions", false, "1-3", true},
		// Shared branches: the id and every word of the title.
		{through, "[Task 3] Add tests", true, "", true},
		{through, "[Task 3] Add integration tests", true, "3", true},
		{through, "[Task 4] Constitution Documentation Updates", true, "4", true},
		// A short title is not pointed at by a text that merely holds it.
		{short, "[Task 2.1] Add tests", false, "2.1", true},
		{short, "[Task 3] Add tests", true, "", true},
		{short, "[Task 3] Tests (#12)", true, "3", true},
		{short, "[Task 2.1] Tests", false, "3", true},
		// "2.1" in a plan numbered through is phase 2's first task when
		// most of its title is there.
		{through, "[Task 2.1] Add integration tests", false, "3", true},
		{through, "[Task 1.1] Worktree management foundation", false, "", true},
	}
	for _, tc := range cases {
		got := tc.n.Name(&branches.CommitInfo{OID: "c", Subject: tc.subject}, tc.shared)
		if got.Task != tc.want || got.Marked != tc.marked {
			t.Errorf("%q (shared %v): task %q marked %v, want %q %v", tc.subject, tc.shared, got.Task, got.Marked, tc.want, tc.marked)
		}
	}
}

func TestMergedBranch(t *testing.T) {
	for subject, want := range map[string]string{
		"Merge branch 'x1y2z3-task-2-1-users'":                          "x1y2z3-task-2-1-users",
		"Merge branch 'x1y2z3-task-2-1-users' into x1y2z3-main":         "x1y2z3-task-2-1-users",
		"Merge remote-tracking branch 'origin/x1y2z3-task-2-2-fix/wip'": "x1y2z3-task-2-2-fix/wip",
		"Merge pull request #12 from someone/x1y2z3-task-1-1-schema":    "x1y2z3-task-1-1-schema",
		"Merge branch 'feature/x1y2z3-task-1-1-schema'":                 "x1y2z3-task-1-1-schema",
		"Merge branch 'main' into x1y2z3-task-1-2-deps":                 "",
		"Merge branch 'x1y2z3-main'":                                    "",
		"Merge branch 'other1-task-1-1-schema'":                         "",
	} {
		if got := strings.Join(branches.MergedBranches(run, subject), " "); got != want {
			t.Errorf("%q: %q, want %q", subject, got, want)
		}
	}
	octopus := "Merge branches 'x1y2z3-task-2-1-users', 'x1y2z3-task-2-2-products' and 'x1y2z3-task-2-3-orders' into x1y2z3-main"
	if got := strings.Join(branches.MergedBranches(run, octopus), " "); got != "x1y2z3-task-2-1-users x1y2z3-task-2-2-products x1y2z3-task-2-3-orders" {
		t.Errorf("octopus: %q", got)
	}
}
