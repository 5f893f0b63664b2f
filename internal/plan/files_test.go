package plan

import (
	"reflect"
	"strings"
	"testing"
)

// The forms plans write a task's files in, each read to the paths alone.
func TestTaskFiles(t *testing.T) {
	src := strings.Join([]string{
		"Run ID: r",
		"## Phase 1: P (Sequential)",
		"### Task 1.1: Inline",
		"- Files: `specs/r/plan.md`, `src/a.ts`",
		"### Task 1.2: Bold list",
		"**Files**:",
		"",
		"- tests/fixtures/x/CLAUDE.md",
		"- `src/b.ts` (new)",
		"",
		"**Complexity**: M (4h)",
		"- not a file: the list ended at the Complexity line",
		"### Task 1.3: Labels in the list",
		"**Files:**",
		"- Create: `src/c.py`",
		"- Modify: `src/d.py:123-145`",
		"- Test: tests/e_test.py",
		"### Task 1.4: Plain line and directory",
		"Files: ./docs/, lib/f.go - the helper",
		"### Task 1.6: A split plan's folder",
		"- Files: `specs/r/plan/`",
		"### Task 1.5: No files",
		"- Notes: `specs/r/plan.md`",
		"## Phase 2: Checklist (Parallel)",
		"- [ ] **Task 2.1**: Checked | repo: x | files: specs/r/plan.md, src/g.ts",
	}, "\n")
	p, _, err := Parse("plan.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"1.1": {"specs/r/plan.md", "src/a.ts"},
		"1.2": {"tests/fixtures/x/CLAUDE.md", "src/b.ts"},
		"1.3": {"src/c.py", "src/d.py", "tests/e_test.py"},
		"1.4": {"docs", "lib/f.go"},
		"1.5": nil,
		"1.6": {"specs/r/plan"},
		"2.1": {"specs/r/plan.md", "src/g.ts"},
	}
	for id, w := range want {
		if got := p.Task(id).Files; !reflect.DeepEqual(got, w) {
			t.Errorf("task %s: files %q, want %q", id, got, w)
		}
	}
	for _, c := range []struct {
		id, path string
		want     bool
	}{
		{"1.1", "specs/r/plan.md", true},
		{"1.1", "specs/r/plan.md.bak", false},
		{"1.1", "specs/r", false},
		{"1.4", "docs/plan.md", false}, // a folder that holds more than the plan
		{"1.4", "docs/plan/plan-phase1.md", false},
		{"1.4", "docsx/plan.md", false},
		{"1.5", "specs/r/plan.md", false},
		{"2.1", "specs/r/plan.md", true},
		{"1.6", "specs/r/plan/plan-phase2.md", true},
		{"1.6", "specs/r/plan/notes.md", false},
		{"1.2", "SRC/B.TS", false},
	} {
		if got := p.Task(c.id).NamesFile(c.path); got != c.want {
			t.Errorf("task %s names %s: %v, want %v", c.id, c.path, got, c.want)
		}
	}
}
