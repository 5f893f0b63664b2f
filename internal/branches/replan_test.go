package branches

import (
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/plan"
)

func parsePlan(t *testing.T, tasks ...string) *plan.Plan {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Plan\n\nRun ID: x1y2z3\n\n## Phase 1: Work (Sequential)\n\n")
	for _, task := range tasks {
		b.WriteString("### Task " + task + "\n\n")
	}
	p, _, err := plan.Parse("plan.md", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReplans(t *testing.T) {
	old := []string{"1.1: Create schema", "1.2: Seed data", "1.3: User service", "1.4: Order service"}
	for _, c := range []struct {
		name string
		cur  []string
		want bool
	}{
		{"new tasks under the old ids", []string{"1.1: Add audit table", "1.2: Audit API", "1.3: Audit UI", "1.4: Audit export"}, true},
		{"a task added", append(append([]string{}, old...), "1.5: Audit log"), false},
		{"a typo corrected", []string{"1.1: Create schema", "1.2: Seed data", "1.3: User service", "1.4: Ordre service"}, false},
		{"one-word titles corrected", []string{"1.1: Craete schemas", "1.2: Seed dat", "1.3: Users servcie", "1.4: Order service"}, false},
		{"a title corrected", []string{"1.1: Create database schema", "1.2: Seed data", "1.3: User service", "1.4: Order service"}, false},
		{"renumbered", []string{"1.1: Seed data", "1.2: Create schema", "1.3: Order service", "1.4: User service"}, false},
		{"a task inserted: the rest renumbered", []string{"1.1: Create schema", "1.2: Audit table", "1.3: Seed data", "1.4: User service", "1.5: Order service"}, false},
		{"half replaced", []string{"1.1: Create schema", "1.2: Seed data", "1.3: Audit API", "1.4: Audit UI"}, true},
		{"one of four replaced", []string{"1.1: Create schema", "1.2: Seed data", "1.3: User service", "1.4: Audit UI"}, false},
		{"all but one removed", []string{"1.1: Create schema"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Replans(parsePlan(t, old...), parsePlan(t, c.cur...)); got != c.want {
				r, n := Remaining(parsePlan(t, old...), parsePlan(t, c.cur...))
				t.Errorf("Replans = %v, want %v (%d of %d remain)", got, c.want, r, n)
			}
		})
	}
	// A version without tasks answers nothing, either way.
	empty := &plan.Plan{}
	if Replans(empty, parsePlan(t, old...)) || Replans(parsePlan(t, old...), empty) || Replans(nil, parsePlan(t, old...)) {
		t.Error("a version without tasks re-plans")
	}
}

func TestOneTypo(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"frist", "first", true}, {"first", "firsts", true}, {"first", "firt", true}, {"first", "furst", true},
		{"first", "first", false}, {"first", "fisrts", false}, {"schema", "audit", false}, {"abcd", "badc", false},
	} {
		if got := oneTypo(c.a, c.b); got != c.want {
			t.Errorf("oneTypo(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
