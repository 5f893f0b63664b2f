package gitcmd

import (
	"slices"
	"testing"
)

func TestListSquashed(t *testing.T) {
	for _, tc := range []struct {
		name, subject, body string
		want                []string
	}{
		{"github squash", "X1y2z3 task 2 1 user service (#12)",
			"* [Task 2.1] User service\n\n* fix: address review comments\n\nCo-authored-by: a <a@x>\n",
			[]string{"[Task 2.1] User service", "fix: address review comments"}},
		{"github squash, a body under a commit", "Users (#3)",
			"* [Task 2.1] User service\n\nMore words about it.\n* Second\n", []string{"[Task 2.1] User service", "Second"}},
		{"gitlab all_commits", "User service",
			"* [Task 2.1] User service\n\nSee merge request group/project!12\n", []string{"[Task 2.1] User service"}},
		{"git merge --squash", GitSquashSubject,
			"\ncommit 0123456789012345678901234567890123456789\nAuthor: A <a@x>\nDate:   Sat Nov 28 20:13:30 2026 +0000\n\n    [Task 2.2] Product service\n    \n    body line\n\ncommit 1123456789012345678901234567890123456789\nAuthor: A <a@x>\nDate:   Sat Nov 28 20:13:30 2026 +0000\n\n    fix: review\n",
			[]string{"[Task 2.2] Product service", "fix: review"}},
		// An ordinary commit whose body is a bullet list is no squash.
		{"plain bullets", "Add user service",
			"* [Task 2.1] User service\n* more\n", nil},
		{"pr subject, no list", "Add user service (#12)", "Some words.\n", nil},
		{"bang that is no reference", "Fix it!", "* [Task 2.1] User service\nGreat!\n", nil},
		{"a word and a number are no reference", "Notes", "TODO!1 before release:\n* [Task 2.1] User service\n", nil},
		{"same-project reference", "Users", "* [Task 2.1] User service\n\nSee merge request !12\n", []string{"[Task 2.1] User service"}},
	} {
		if got := ListSquashed(tc.subject, tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A commit read through the object reader lists what the log lists: a
// squash at the run's start is read in-process.
func TestParseCommitListsSquash(t *testing.T) {
	obj := Object{OID: "c0ffee", Type: "commit", Data: []byte("tree 1111\nparent 2222\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000100 +0000\n\n" +
		"X1y2z3 task 2 1 user service (#12)\n\n* [Task 2.1] User service\n\n* fix: review\n")}
	e, ok := ParseCommit(obj)
	if !ok || e.Author != "A <a@x> 1700000000 +0000" || e.Time != 1700000100 {
		t.Fatalf("ParseCommit: %+v, %v", e, ok)
	}
	if want := []string{"[Task 2.1] User service", "fix: review"}; !slices.Equal(e.Listed, want) {
		t.Errorf("Listed = %q, want %q", e.Listed, want)
	}
	if PRSuffix(e.Subject) < 0 || PRSuffix("Fix (#12) later") >= 0 || PRSuffix("Fix (#1a)") >= 0 {
		t.Error("PRSuffix misreads a subject")
	}
}
