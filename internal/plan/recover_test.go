package plan

import (
	"errors"
	"strings"
	"testing"
)

// placed is an error or warning a test expects: its line and a part of its
// message.
type placed struct {
	line int
	msg  string
}

// checkPlaced compares what Parse said with want, in order.
func checkPlaced(t *testing.T, what string, got []*Error, want []placed) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d %s, want %d:\n%s", len(got), what, len(want), listErrors(got))
		return
	}
	for i, w := range want {
		if got[i].Line != w.line || !strings.Contains(got[i].Msg, w.msg) {
			t.Errorf("%s %d = %v, want line %d %q", what, i, got[i], w.line, w.msg)
		}
	}
}

func listErrors(es []*Error) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("  " + e.Error() + "\n")
	}
	return b.String()
}

// TestEveryError checks that Parse reads on after an error and reports
// each error it can place, in line order, and none that only follows from
// an earlier one.
func TestEveryError(t *testing.T) {
	const head = "Run ID: r\n## Phase 1: P (Parallel)\n" // tasks start at line 3
	cases := []struct {
		name  string
		src   string
		errs  []placed
		warns []placed
	}{
		{"three independent errors", head +
			"### Taks 1: A\n" + // 3
			"### Task 2: B\n" + // 4
			"### Task 2.x: C\n" + // 5
			"### Task 2: D\n", // 6
			[]placed{{3, `misspelt "Task"`}, {5, `malformed task id "2.x"`}, {6, "duplicate task id 2 (first at line 4)"}}, nil},
		{"a refused phase heading keeps its tasks out of the phase above and inside a phase",
			"## Phase v2: P\n### Task 1: A\n### Task 2: B\n",
			[]placed{{1, `malformed phase number "v2"`}}, nil},
		{"a refused phase heading: its tasks still clash with others", head +
			"### Task 1: A\n" + // 3
			"## Phase 2 (Foundation)\n" + // 4
			"### Task 1: B\n", // 5
			[]placed{{4, "malformed phase heading"}, {5, "duplicate task id 1 (first at line 3)"}}, nil},
		{"a phase heading with two modes, then a strategy line that picks one", "## Phase 1: A (Parallel) (Sequential)\n**Strategy**: sequential\n### Task 1: A\n",
			[]placed{{1, "two different modes"}}, nil},
		{"a duplicate phase's tasks go into it, not the phase above", "## Phase 1: A (Parallel)\n### Task 1: A\n## Phase 2: B (Sequential)\n## Phase 1: Again (Parallel)\n### Task 2: B\n",
			[]placed{{4, "duplicate phase 1 (first at line 1)"}}, []placed{{3, "phase 2 has no tasks"}}},
		{"nothing is said of a refused phase", "## Phase v2: P\n## Phase 1: Q (Parallel)\n### Task 1: A\n",
			[]placed{{1, "malformed phase number"}}, nil},
		{"an overview checklist in a plan whose task headings were all refused", "- [ ] Task 1: overview\n## Phase 1: P (Parallel)\n### Task 1.x: A\n",
			[]placed{{3, "malformed task id"}}, nil},
		{"a duplicate phase: its tasks go into it, not the first", head +
			"### Task 1: A\n" + // 3
			"## Phase 1: Again\n" + // 4
			"**Strategy**: sequential\n" + // 5: no clash with the first phase's mode
			"### Task 2: B\n", // 6
			[]placed{{4, "duplicate phase 1 (first at line 2)"}}, nil},
		{"the body of a refused task heading is not read", head +
			"### Task 1.a: A\n" + // 3
			"**Dependencies**: 9\n" +
			"**Strategy**: paralel\n" +
			"- [ ] Task 7: checklist\n" +
			"### Task 1: B\n",
			[]placed{{3, `malformed task id "1.a"`}}, nil},
		{"depending on a refused task is no dangling dependency", head +
			"### Task 1:\n" + // 3
			"### Task 2: B\n" +
			"**Dependencies**: 1, 8\n", // 5
			[]placed{{3, "task 1 has an empty title"}}, []placed{{5, "dependency 8 names no task"}}},
		{"a template heading is still a phase", "## Phase {N}: {Name}\n### Task 1: A\n",
			[]placed{{1, `template placeholder "{N}"`}}, nil},
		{"a template task heading's body is not read", head + "### Task {ID}: {Name}\n**Dependencies**: 4\n### Task {ID}: {Name}\n",
			[]placed{{3, "template placeholder"}, {5, "template placeholder"}}, nil},
		{"a glued heading is meant as one", head +
			"### Task 1: A\n" +
			"###Task 2: B\n" + // 4
			"**Dependencies**: 7\n" +
			"##Phase 3: C\n" + // 6
			"### Task 3: C\n",
			[]placed{{4, "is not a heading"}, {6, "is not a heading"}}, nil},
		{"a refused strategy line leaves no mode warning", "## Phase 1: P\n**Strategy**: paralel\n### Task 1: A\n## Phase 2: Q\n**Strategy**: parallel|sequential\n### Task 2: B\n",
			[]placed{{2, "misspelt mode"}, {5, "offers a choice"}}, nil},
		{"no empty plan beside other errors", "Run ID: a..b\n",
			[]placed{{1, `contains ".."`}}, nil},
		{"no empty plan when the only task heading was refused", "## Phase 1: P (Parallel)\n### Taks 1: x\n",
			[]placed{{2, `misspelt "Task"`}}, nil},
		{"each run id error", "Run ID: r\n" + "## Phase 1: P (Parallel)\n### Task 1: A\nRun ID: s\nRun ID: a..b\nRun ID: t\n",
			[]placed{{4, `run id "s" differs`}, {5, `run id "a..b" contains ".."`}, {6, `run id "t" differs`}}, nil},
		{"each branch name clash, in line order with the rest", head +
			"### Task 1.1: 2 Step\n" + // 3
			"### Task 1.1.2: Step\n" + // 4
			"### Task 9.x: bad\n" + // 5
			"### Task 1-1-2: again\n", // 6
			[]placed{{4, "same branch name as task 1.1"}, {5, "malformed task id"}, {6, "duplicate task id 1-1-2 (first at line 4)"}}, nil},
		{"a checklist clash sorts before a later heading error", "## Phase 1: P (Parallel)\n- [ ] Task 1: A\n- [ ] Task 1: B\n## Phase 2: Q (Parallel)\n### Task 2.x: C\n",
			[]placed{{3, "duplicate task id 1 (first at line 2)"}, {5, "malformed task id"}}, nil},
		{"a checklist in a phase whose task heading was refused stays bullets", "## Phase 1: P (Parallel)\n### Task 1 A\n## Phase 2: Q (Parallel)\n### Task 2: B\n- [ ] Task 2: bullet\n",
			[]placed{{2, "malformed task heading"}}, nil},
		{"each checklist task outside any phase", "- [ ] Task 1: A\n- [ ] Task 2: B\n",
			[]placed{{1, "task 1 is outside any phase"}, {2, "task 2 is outside any phase"}}, nil},
		{"front matter never closed", "---\nrunId: x\n",
			[]placed{{1, "front matter opened here is never closed"}}, nil},
		{"a misspelt strategy and a task outside a phase", "### Task 1: A\n## Phase 1: P\n**Strategy**: paralel\n### Task 2: B\n",
			[]placed{{1, "task 1 is outside any phase"}, {3, "misspelt mode"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, ws, err := Parse("plan.md", []byte(c.src))
			if p != nil {
				t.Fatalf("plan is not nil on error")
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T (%v) is not Errors", err, err)
			}
			checkPlaced(t, "errors", es, c.errs)
			for _, e := range es {
				if e.Path != "plan.md" || strings.HasSuffix(e.Msg, ".") || strings.ToLower(e.Msg[:1]) != e.Msg[:1] {
					t.Errorf("error %q: want path plan.md, lower case, no period", e)
				}
			}
			var wes []*Error
			for _, w := range ws {
				if !strings.Contains(w.Msg, "has no mode") || strings.Contains(c.name, "mode warning") {
					wes = append(wes, &Error{w.Path, w.Line, w.Msg})
				}
			}
			checkPlaced(t, "warnings", wes, c.warns)
		})
	}
}

// TestErrorsAsOneError checks what a caller that reports one error sees:
// Error() and errors.As to *Error are the first error in line order.
func TestErrorsAsOneError(t *testing.T) {
	_, _, err := Parse("plan.md", []byte("## Phase 1: P\n### Task 1: A\n### Task 1: B\n### Task x.1: C\n"))
	if got, want := err.Error(), "plan.md:3: duplicate task id 1 (first at line 2)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Errorf("errors.As to *Error: %v", pe)
	}
	var es Errors
	if !errors.As(err, &es) || len(es) != 2 || es[1].Line != 4 {
		t.Errorf("errors.As to Errors: %v", es)
	}
	if !errors.Is(err, es[1]) {
		t.Errorf("errors.Is does not find the second error")
	}
}

// TestEveryErrorSplitPlan checks the order across files (the files as
// given, then by line), and that a file that cannot be read leaves no
// error or warning that would only follow from its tasks being unknown.
func TestEveryErrorSplitPlan(t *testing.T) {
	files := []File{
		{"plan-phase1.md", []byte("Run ID: r\n## Phase 1: A (Parallel)\n### Task 1.1: A\n### Task 1.x: B\n")},
		{"plan-phase2.md", []byte("## Phase 2: B (Parallel)\n### Task 1.1: C\n")},
	}
	_, _, err := ParseFiles(files)
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err %v", err)
	}
	checkPlaced(t, "errors", es, []placed{{4, "malformed task id"}, {2, "duplicate task id 1.1 (first at plan-phase1.md:3)"}})
	if len(es) == 2 && (es[0].Path != "plan-phase1.md" || es[1].Path != "plan-phase2.md") {
		t.Errorf("paths %s, %s", es[0].Path, es[1].Path)
	}

	// The first file is not text: the second one's dependency on its task
	// and its checklist item before any phase are not errors or warnings.
	files = []File{
		{"plan-phase1.md", []byte("## Phase 1: A (Parallel)\n### Task 1.1: A\x00\n")},
		{"plan-phase2.md", []byte("- [ ] Task 0: overview\n## Phase 2: B (Parallel)\n### Task 2.1: C\n**Dependencies**: 1.1\n")},
	}
	_, ws, err := ParseFiles(files)
	es = nil
	if !errors.As(err, &es) {
		t.Fatalf("err %v", err)
	}
	checkPlaced(t, "errors", es, []placed{{2, "NUL byte"}})
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
	// Nor, in a plan of checklist tasks, the second file's overview item
	// before its phase: the first file may hold task headings.
	files[1].Data = []byte("- [ ] Task 0: overview\n## Phase 2: B (Parallel)\n- [ ] Task 2.1: C\n")
	_, _, err = ParseFiles(files)
	es = nil
	if !errors.As(err, &es) {
		t.Fatalf("err %v", err)
	}
	checkPlaced(t, "errors", es, []placed{{2, "NUL byte"}})

	// A clash of branch names, found once all files are read, is placed
	// in its own file.
	files = []File{
		{"plan-phase1.md", []byte("Run ID: r\n## Phase 1: A (Parallel)\n\n\n\n### Task 1.1: 2 Step\n### Task 1.1.2: Step\n")},
		{"plan-phase2.md", []byte("## Phase 2: B (Parallel)\n### Task 2.x: C\n")},
	}
	_, _, err = ParseFiles(files)
	es = nil
	if !errors.As(err, &es) {
		t.Fatalf("err %v", err)
	}
	checkPlaced(t, "errors", es, []placed{{7, "same branch name"}, {2, "malformed task id"}})
}
