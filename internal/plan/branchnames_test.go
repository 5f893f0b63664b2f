package plan

import (
	"errors"
	"strings"
	"testing"
)

// TestBranchNameCollision parses plans in which two tasks may end up with the
// same branch name. Only an exact match of the whole name is refused, and the
// error sits on the later task and names the earlier one.
func TestBranchNameCollision(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		line int    // 0: the plan is accepted
		msg  string // the whole message when refused
	}{
		{
			name: "title digit continues the id",
			src:  "Run ID: x\n\n# Phase 1 (Sequential)\n\n### Task 1.1: 2 Step verify (M - 1h)\n\n### Task 1.1.2: Step verify (S)\n",
			line: 7,
			msg:  `task 1.1.2 "Step verify" gets the same branch name as task 1.1 "2 Step verify" (line 5): x-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "later task first in the plan",
			src:  "Run ID: x\n# Phase 1 (Parallel)\n### Task 1.1.2: Step verify\n### Task 1.1: 2 Step verify\n",
			line: 4,
			msg:  `task 1.1 "2 Step verify" gets the same branch name as task 1.1.2 "Step verify" (line 3): x-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "no run id in the plan",
			src:  "# Phase 1 (Sequential)\n### Task 1.1: 2 Step verify\n### Task 1.1.2: Step verify\n",
			line: 3,
			msg:  `task 1.1.2 "Step verify" gets the same branch name as task 1.1 "2 Step verify" (line 2): <run>-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "dashed id and punctuation in the title",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1-1: 2: Step, Verify!\n# Phase 2 (Sequential)\n### Task 1.1.2: step-verify\n",
			line: 5,
			msg:  `task 1.1.2 "step-verify" gets the same branch name as task 1-1 "2: Step, Verify!" (line 3): x-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "empty slug equal to the other name",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: 2\n### Task 1.1.2: 🚀\n",
			line: 4,
			msg:  `task 1.1.2 "🚀" gets the same branch name as task 1.1 "2" (line 3): x-task-1-1-2; retitle or renumber one of them`,
		},
		{
			name: "checklist tasks",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n- [ ] **Task 1.1**: 2 Step verify\n- [x] **Task 1.1.2**: Step verify\n",
			line: 4,
			msg:  `task 1.1.2 "Step verify" gets the same branch name as task 1.1 "2 Step verify" (line 3): x-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "same title under different ids",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: Step verify\n### Task 1.1.2: Step verify\n",
		},
		{
			// "x-task-1-1-2" is a prefix of "x-task-1-1-2-x", not the same name.
			name: "empty slug only a prefix of the other name",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: 2 x\n### Task 1.1.2: 🚀\n",
		},
		{
			name: "empty slugs of different ids",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: 🚀\n### Task 1.2: ???\n",
		},
		{
			name: "id continued by a letter only",
			src:  "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: 2b\n### Task 1.1.2: b\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := Parse("plan.md", []byte(c.src))
			if c.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v\ninput:\n%s", err, c.src)
				}
				seen := map[string]string{}
				for _, tk := range p.Tasks() {
					name := BranchName("x", tk)
					if other, dup := seen[name]; dup {
						t.Errorf("tasks %s and %s share branch %q", other, tk.ID, name)
					}
					seen[name] = tk.ID
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || p != nil {
				t.Fatalf("err %v plan %v, want an *Error and no plan", err, p)
			}
			if pe.Path != "plan.md" || pe.Line != c.line || pe.Msg != c.msg {
				t.Errorf("got %s:%d %q\nwant plan.md:%d %q", pe.Path, pe.Line, pe.Msg, c.line, c.msg)
			}
		})
	}
}

// TestBranchNameCollisionSplitPlan checks that the tasks of a split plan are
// compared across files and that each is named with its own file.
func TestBranchNameCollisionSplitPlan(t *testing.T) {
	file := func(path, src string) File { return File{Path: path, Data: []byte(src)} }
	for _, c := range []struct {
		name  string
		files []File
		path  string
		line  int
		msg   string
	}{
		{
			name: "collision across files",
			files: []File{
				file("plan-phase1.md", "Run ID: x\n\n# Phase 1 (Sequential)\n\n### Task 1.1: 2 Step verify (M - 1h)\n"),
				file("plan-phase2.md", "# Phase 2 (Parallel)\n\n### Task 2.1: Other\n\n### Task 1.1.2: Step verify\n"),
			},
			path: "plan-phase2.md",
			line: 5,
			msg:  `task 1.1.2 "Step verify" gets the same branch name as task 1.1 "2 Step verify" (plan-phase1.md:5): x-task-1-1-2-step-verify; retitle or renumber one of them`,
		},
		{
			name: "collision within the second file",
			files: []File{
				file("plan-phase1.md", "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: 2 Step verify\n"),
				file("plan-phase2.md", "# Phase 2 (Parallel)\n### Task 2.1: 1 a\n### Task 2.1.1: A\n"),
			},
			path: "plan-phase2.md",
			line: 3,
			msg:  `task 2.1.1 "A" gets the same branch name as task 2.1 "1 a" (line 2): x-task-2-1-1-a; retitle or renumber one of them`,
		},
		{
			name: "no collision",
			files: []File{
				file("plan-phase1.md", "Run ID: x\n# Phase 1 (Sequential)\n### Task 1.1: Step verify\n"),
				file("plan-phase2.md", "# Phase 2 (Parallel)\n### Task 1.1.2: Step verify\n"),
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := ParseFiles(c.files)
			if c.line == 0 {
				if err != nil || p == nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || p != nil {
				t.Fatalf("err %v plan %v, want an *Error and no plan", err, p)
			}
			if pe.Path != c.path || pe.Line != c.line || pe.Msg != c.msg {
				t.Errorf("got %s:%d %q\nwant %s:%d %q", pe.Path, pe.Line, pe.Msg, c.path, c.line, c.msg)
			}
		})
	}
}

// TestBranchNameCollisionKeepsWarnings checks that a refused plan still
// reports what else it found, since the check runs once the plan is read.
func TestBranchNameCollisionKeepsWarnings(t *testing.T) {
	src := "Run ID: x\n# Phase 1\n### Task 1.1: 2 Step verify\n### Task 1.1.2: Step verify\n"
	_, ws, err := Parse("plan.md", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "same branch name") {
		t.Fatalf("err %v", err)
	}
	if len(ws) != 1 || ws[0].Line != 2 || !strings.Contains(ws[0].Msg, "has no mode") {
		t.Errorf("warnings %v", ws)
	}
}

// TestBranchNameCollisionLongTitle checks that the message stays short when
// the shared name is huge.
func TestBranchNameCollisionLongTitle(t *testing.T) {
	long := strings.Repeat("word ", 20000)
	src := "# Phase 1 (Sequential)\n### Task 1.1: 2 " + long + "\n### Task 1.1.2: " + long + "\n"
	_, _, err := Parse("plan.md", []byte(src))
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(pe.Msg, "same branch name") {
		t.Fatalf("err %v", err)
	}
	if len(pe.Msg) > 400 {
		t.Errorf("message is %d bytes long", len(pe.Msg))
	}
}
