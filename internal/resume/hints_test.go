package resume

import (
	"testing"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// A branch is named like a task of a near plan by its slug alone: the
// slug of a title, or two words at least that start the other; the id's
// own dashes never make a slug ("1-1-2fa-login" is task 1-1's "2fa-login").
func TestNamesTaskOf(t *testing.T) {
	p, _, err := plan.Parse("plan.md", []byte("# Plan\n\n## Phase 1: One\n\n"+
		"### Task 1-1: List command implementation\n\n### Task 1-2: 2FA login\n\n### Task 1-3: Tests\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		branch string
		want   bool
	}{
		{"r1-task-1-1-list-command-implementation", true},
		{"r1-task-7-list-command-implementation", true}, // another id
		{"r1-task-2.3-list-command", true},              // first words of the title
		{"r1-task-1-1-list-command-implementation-v2", true},
		{"r1-task-1-2-2fa-login", true},
		{"r1-task-1-1-list", false}, // one word
		{"r1-task-1-3-tests", true}, // a one-word title is matched whole
		{"r1-task-1-3-tests-more", false},
		{"r1-task-x-list-command", false},   // no id
		{"r1-task-1-1-command-list", false}, // words, not their set
		{"r2-task-1-1-list-command", false}, // another run's
		{"r1-task-1-1-2fa", false},
	} {
		if got := namesTaskOf("r1", c.branch, p); got != c.want {
			t.Errorf("namesTaskOf(%q) = %v, want %v", c.branch, got, c.want)
		}
	}
}
