package branches

import "testing"

func TestTitleBranch(t *testing.T) {
	for subject, want := range map[string]string{
		"X1y2z3 task 2 1 user service (#12)":  "x1y2z3-task-2-1-user-service",
		"X1y2z3 task 2.1 user service":        "x1y2z3-task-2.1-user-service",
		"Draft: X1y2z3 task 2 1 user service": "x1y2z3-task-2-1-user-service",
		"Feature/x1y2z3 task 2 1 users (#3)":  "feature/x1y2z3-task-2-1-users",
		// What a person writes is no branch name read back.
		"Add user service (#12)":            "", // no run's branch name read back
		"[Task 2.1] User service (#12)":     "",
		"Fix: users (#12)":                  "",
		"x1y2z3-task-2-1-user-service":      "", // one word: a forge leaves no dash
		"X1y2z3  task 2 1 (#1)":             "",
		"Squashed commit of the following:": "",
	} {
		if got := titleBranch(subject); got != want {
			t.Errorf("titleBranch(%q) = %q, want %q", subject, got, want)
		}
	}
}

func TestForgeNaming(t *testing.T) {
	n := NewNames("x1y2z3", parsePlan(t, "2.1: User service", "2.2: Product service"))
	for _, tc := range []struct {
		name    string
		c       CommitInfo
		shared  bool
		task    string
		also    []string
		squash  bool
		byOther string
	}{
		{name: "title from branch", c: CommitInfo{Subject: "X1y2z3 task 2 1 user service (#12)"}, task: "2.1", squash: true},
		{name: "title and listed", c: CommitInfo{Subject: "X1y2z3 task 2 1 user service (#12)", Listed: []string{"[Task 2.2] Product service"}}, task: "2.1", also: []string{"2.2"}, squash: true},
		{name: "listed on main: id and whole title", c: CommitInfo{Subject: "Users (#12)", Listed: []string{"[Task 2.1] Add user endpoints", "[Task 2.2] Product service"}}, shared: true, task: "2.2", squash: true},
		{name: "listed on the run's base: the id", c: CommitInfo{Subject: "Users (#12)", Listed: []string{"[Task 2.1] Add user endpoints"}}, task: "2.1", squash: true},
		{name: "another run's title", c: CommitInfo{Subject: "Bbbbbb task 2 1 user service (#7)", Listed: []string{"[Task 2.1] User service"}}, shared: true, squash: true, byOther: "bbbbbb"},
		{name: "own words", c: CommitInfo{Subject: "[Task 2.1] User service (#12)"}, task: "2.1", squash: true},
		{name: "chore listed", c: CommitInfo{Subject: "Start (#3)", Listed: []string{"chore: Task 2.2 - start"}}, squash: true},
		{name: "no squash", c: CommitInfo{Subject: "Add users"}},
	} {
		nm, squash := n.forgeNaming(&tc.c, tc.shared, n.Task)
		if nm.Task != tc.task || squash != tc.squash || nm.By != tc.byOther || len(nm.Also) != len(tc.also) || len(tc.also) > 0 && nm.Also[0] != tc.also[0] {
			t.Errorf("%s: got %+v squash %v, want task %q also %v squash %v by %q", tc.name, nm, squash, tc.task, tc.also, tc.squash, tc.byOther)
		}
	}
}
