package plan

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// mustParse parses src and fails the test on error.
func mustParse(t *testing.T, src string) (*Plan, []Warning) {
	t.Helper()
	p, ws, err := Parse("plan.md", []byte(src))
	if err != nil {
		t.Fatalf("Parse: unexpected error: %v\ninput:\n%s", err, src)
	}
	return p, ws
}

// taskSummary is the part of a task that tests compare.
type taskSummary struct {
	ID, Title, Size, Estimate string
	Line, Phase               int
	Meta                      []string
}

func summarize(p *Plan) []taskSummary {
	var out []taskSummary
	for _, t := range p.Tasks() {
		out = append(out, taskSummary{t.ID, t.Title, t.Size, t.Estimate, t.Line, t.Phase.Number, t.Meta})
	}
	return out
}

func readExample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/example.md")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestExamplePlan(t *testing.T) {
	p, ws, err := Parse("specs/x1y2z3/plan.md", readExample(t))
	if err != nil {
		t.Fatal(err)
	}
	// 2.3 depends on 2.1 and 2.2 of its own parallel phase: honoured, and
	// said at the line that names them.
	if len(ws) != 2 || ws[0].Line != 23 || ws[0].Msg != "dependency 2.1 of task 2.3 is a task of the same parallel phase 2: 2.3 waits for it rather than start with the phase" || ws[1].Line != 23 {
		t.Errorf("warnings: %v", ws)
	}
	if p.Path != "specs/x1y2z3/plan.md" || p.RunID != "x1y2z3" || p.RunIDLine != 3 {
		t.Errorf("path/run id = %q %q %d", p.Path, p.RunID, p.RunIDLine)
	}
	type phaseSummary struct {
		Number    int
		Title     string
		Mode      Mode
		ModeGiven bool
		Line      int
		Tasks     []string
	}
	var phases []phaseSummary
	for _, ph := range p.Phases {
		var ids []string
		for _, tk := range ph.Tasks {
			ids = append(ids, tk.ID)
			if tk.Phase != ph {
				t.Errorf("task %s: Phase does not point at its phase", tk.ID)
			}
		}
		phases = append(phases, phaseSummary{ph.Number, ph.Title, ph.Mode, ph.ModeGiven, ph.Line, ids})
	}
	wantPhases := []phaseSummary{
		{1, "Setup", Sequential, true, 5, []string{"1.1", "1.2"}},
		{2, "Core Logic", Parallel, true, 13, []string{"2.1", "2.2", "2.3"}},
		{3, "Testing", Sequential, true, 25, []string{"3.1", "3.2"}},
	}
	if !reflect.DeepEqual(phases, wantPhases) {
		t.Errorf("phases:\n got %+v\nwant %+v", phases, wantPhases)
	}
	want := []taskSummary{
		{"1.1", "Create database schema", "M", "1h", 7, 1, []string{"Files: `db/schema.sql`"}},
		{"1.2", "Install dependencies", "S", "30m", 10, 1, []string{"Files: `package.json`"}},
		{"2.1", "User service", "M", "2h", 15, 2, []string{"Files: `src/services/user-service.ts`"}},
		{"2.2", "Product service", "M", "2h", 18, 2, []string{"Files: `src/services/product-service.ts`"}},
		{"2.3", "Order service", "L", "3h", 21, 2, []string{"Files: `src/services/order-service.ts`", "Depends on: 2.1, 2.2"}},
		{"3.1", "API integration tests", "M", "2h", 27, 3, []string{"Files: `tests/api/*.test.ts`"}},
		{"3.2", "E2E tests", "L", "4h", 30, 3, []string{"Files: `tests/e2e/*.spec.ts`"}},
	}
	if got := summarize(p); !reflect.DeepEqual(got, want) {
		t.Errorf("tasks:\n got %+v\nwant %+v", got, want)
	}
	branches := []string{
		"x1y2z3-task-1-1-create-database-schema",
		"x1y2z3-task-1-2-install-dependencies",
		"x1y2z3-task-2-1-user-service",
		"x1y2z3-task-2-2-product-service",
		"x1y2z3-task-2-3-order-service",
		"x1y2z3-task-3-1-api-integration-tests",
		"x1y2z3-task-3-2-e2e-tests",
	}
	for i, tk := range p.Tasks() {
		if got := BranchName(p.RunID, tk); got != branches[i] {
			t.Errorf("BranchName(%s) = %q, want %q", tk.ID, got, branches[i])
		}
		if !strings.HasPrefix(branches[i], BranchPrefix(p.RunID, tk.ID)) {
			t.Errorf("branch %q lacks prefix %q", branches[i], BranchPrefix(p.RunID, tk.ID))
		}
		if p.Task(tk.ID) != tk {
			t.Errorf("Task(%q) did not return the task", tk.ID)
		}
	}
	if p.Task("9.9") != nil || p.Task("") != nil {
		t.Error("Task of an unknown id is not nil")
	}
}

// TestLineEndings checks that BOM, CRLF and lone CR all give the same plan
// with the same line numbers.
func TestLineEndings(t *testing.T) {
	lf := readExample(t)
	ref, refWs := mustParse(t, string(lf))
	variants := map[string]string{
		"crlf":        strings.ReplaceAll(string(lf), "\n", "\r\n"),
		"cr":          strings.ReplaceAll(string(lf), "\n", "\r"),
		"bom":         "\uFEFF" + string(lf),
		"bom+crlf":    "\uFEFF" + strings.ReplaceAll(string(lf), "\n", "\r\n"),
		"no final":    strings.TrimSuffix(string(lf), "\n"),
		"trailing ws": strings.ReplaceAll(string(lf), "\n", " \t\n"),
	}
	for name, src := range variants {
		t.Run(name, func(t *testing.T) {
			p, ws := mustParse(t, src)
			if !reflect.DeepEqual(ws, refWs) {
				t.Errorf("warnings: %v, want %v", ws, refWs)
			}
			if p.RunID != ref.RunID || p.RunIDLine != ref.RunIDLine {
				t.Errorf("run id %q@%d, want %q@%d", p.RunID, p.RunIDLine, ref.RunID, ref.RunIDLine)
			}
			if got, want := summarize(p), summarize(ref); !reflect.DeepEqual(got, want) {
				t.Errorf("tasks:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	// Mixed endings in one file: each counts as one line break.
	p, _ := mustParse(t, "Run ID: r\r\n## Phase 1: A\r### Task 1: B\n\r\n### Task 2: C\r\r- m\n")
	if got := summarize(p); got[0].Line != 3 || got[1].Line != 5 || !reflect.DeepEqual(got[1].Meta, []string{"m"}) {
		t.Errorf("mixed endings: %+v", got)
	}
}

func TestTabs(t *testing.T) {
	src := "Run\tID:\tr1\n" +
		"##\tPhase\t1:\tSetup\t(\tParallel\t)\n" +
		"###\tTask\t1.1\t:\tCreate\tschema\t(M\t-\t1h)\n" +
		"\t-\tFiles:\tx.sql\t\n" +
		"\t\t*\tnested\n" +
		"\t### Task 1.2: Indented by a tab\n"
	p, ws := mustParse(t, src)
	if len(ws) != 0 {
		t.Errorf("warnings: %v", ws)
	}
	if p.RunID != "r1" || p.Phases[0].Mode != Parallel || p.Phases[0].Title != "Setup" {
		t.Errorf("run %q phase %+v", p.RunID, p.Phases[0])
	}
	want := []taskSummary{
		{"1.1", "Create\tschema", "M", "1h", 3, 1, []string{"Files:\tx.sql", "nested"}},
		{"1.2", "Indented by a tab", "", "", 6, 1, nil},
	}
	if got := summarize(p); !reflect.DeepEqual(got, want) {
		t.Errorf("tasks:\n got %+v\nwant %+v", got, want)
	}
	if got := BranchName(p.RunID, p.Tasks()[0]); got != "r1-task-1-1-create-schema" {
		t.Errorf("branch %q", got)
	}
}

func TestRunIDForms(t *testing.T) {
	cases := []struct{ line, want string }{
		{"Run ID: x1y2z3", "x1y2z3"},
		{"run id: x1y2z3", "x1y2z3"},
		{"RUN ID: x1y2z3", "x1y2z3"},
		{"Run Id:x1y2z3", "x1y2z3"},
		{"Run  ID :  x1y2z3  ", "x1y2z3"},
		{"Run\tID:\tx1y2z3", "x1y2z3"},
		{"   Run ID: x1y2z3", "x1y2z3"},
		{"**Run ID**: x1y2z3", "x1y2z3"},
		{"**Run ID:** x1y2z3", "x1y2z3"},
		{"**run id** : x1y2z3", "x1y2z3"},
		{"__Run ID__: x1y2z3", "x1y2z3"},
		{"Run ID: `x1y2z3`", "x1y2z3"},
		{"Run ID: `` x1y2z3 ``", "x1y2z3"},
		{"Run ID: **x1y2z3**", "x1y2z3"},
		{"**Run ID**: `x1y2z3`", "x1y2z3"},
		{"- Run ID: x1y2z3", "x1y2z3"},
		{"* Run ID: x1y2z3", "x1y2z3"},
		{"+ Run ID: x1y2z3", "x1y2z3"},
		{"- **Run ID:** `a.b-c_d`", "a.b-c_d"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			src := "# Plan\n\n" + c.line + "\n\n## Phase 1: A (Sequential)\n### Task 1.1: B\n"
			p, _ := mustParse(t, src)
			if p.RunID != c.want || p.RunIDLine != 3 {
				t.Errorf("run id = %q at line %d, want %q at line 3", p.RunID, p.RunIDLine, c.want)
			}
		})
	}
	// Lines that only resemble a run id line are prose.
	for _, line := range []string{
		"RunID: x", "Run-ID: x", "Running ID: x", "Run identifier: x", "The Run ID: x",
		"Run ID x", "**Run ID** x", "## Run ID: x", "    ```", "-Run ID: x",
	} {
		t.Run("not/"+line, func(t *testing.T) {
			src := line + "\n## Phase 1: A (Sequential)\n### Task 1.1: B\n"
			p, _ := mustParse(t, src)
			if p.RunID != "" || p.RunIDLine != 0 {
				t.Errorf("run id %q@%d read from a line that is not a run id line", p.RunID, p.RunIDLine)
			}
		})
	}
}

func TestRunIDRepeated(t *testing.T) {
	src := "Run ID: r1\n## Phase 1: A\n- Run ID: `r1`\n### Task 1.1: B\n- Run ID: r1\n- keep\n"
	p, _ := mustParse(t, src)
	if p.RunID != "r1" || p.RunIDLine != 1 {
		t.Errorf("run id %q@%d", p.RunID, p.RunIDLine)
	}
	if got := p.Tasks()[0].Meta; !reflect.DeepEqual(got, []string{"keep"}) {
		t.Errorf("a run id bullet must not become meta: %q", got)
	}
}

func TestPhaseHeadings(t *testing.T) {
	cases := []struct {
		heading   string
		number    int
		title     string
		mode      Mode
		modeGiven bool
	}{
		{"## Phase 1: Setup (Sequential)", 1, "Setup", Sequential, true},
		{"## Phase 1: Setup (Parallel)", 1, "Setup", Parallel, true},
		{"## phase 1: Setup (PARALLEL)", 1, "Setup", Parallel, true},
		{"## PHASE 12: Setup ( parallel )", 12, "Setup", Parallel, true},
		{"## Phase 1 : Setup(sequential)", 1, "Setup", Sequential, true},
		{"   ## Phase 1: Setup (Parallel) ##", 1, "Setup", Parallel, true},
		{"## Phase 0: Prep (Parallel)", 0, "Prep", Parallel, true},
		{"## Phase 007: Bond (Parallel)", 7, "Bond", Parallel, true},
		{"## Phase 1: Core (API) (Parallel)", 1, "Core (API)", Parallel, true},
		{"## Phase 1: (Parallel)", 1, "", Parallel, true},
		{"## Phase 1: Setup", 1, "Setup", Sequential, false},
		{"## Phase 1: Setup (optional)", 1, "Setup (optional)", Sequential, false},
		{"## Phase 1: Setup (Parallel) later", 1, "Setup (Parallel) later", Sequential, false},
		{"## Phase 1: Setup (Parallel", 1, "Setup (Parallel", Sequential, false},
	}
	for _, c := range cases {
		t.Run(c.heading, func(t *testing.T) {
			p, ws := mustParse(t, "Run ID: r\n"+c.heading+"\n### Task 1.1: T\n")
			ph := p.Phases[0]
			wantModeLine := 0
			if c.modeGiven {
				wantModeLine = 2
			}
			if ph.Number != c.number || ph.Title != c.title || ph.Mode != c.mode || ph.ModeGiven != c.modeGiven || ph.Line != 2 || ph.ModeLine != wantModeLine {
				t.Errorf("got %+v", *ph)
			}
			if c.modeGiven && len(ws) != 0 {
				t.Errorf("warnings: %v", ws)
			}
			if !c.modeGiven {
				want := Warning{"plan.md", 2, "phase " + strconv.Itoa(c.number) + ` has no mode (add "(Parallel)" or "(Sequential)" to its heading or a "**Strategy**: parallel" line under it); treating it as sequential`}
				if len(ws) != 1 || ws[0] != want {
					t.Errorf("warnings = %v, want %v", ws, want)
				}
			}
		})
	}
}

func TestTaskHeadings(t *testing.T) {
	cases := []struct {
		heading                   string
		id, title, size, estimate string
	}{
		{"### Task 1.1: Create database schema (M - 1h)", "1.1", "Create database schema", "M", "1h"},
		{"### task 1.1: lower", "1.1", "lower", "", ""},
		{"### TASK 1.1: upper", "1.1", "upper", "", ""},
		{"### Task 1.1 : space before colon", "1.1", "space before colon", "", ""},
		{"### Task 1.1:no space", "1.1", "no space", "", ""},
		{"   ### Task 1.1: three spaces", "1.1", "three spaces", "", ""},
		{"### Task 1.1: closing hashes ###", "1.1", "closing hashes", "", ""},
		{"### Task 1.1: issue #42", "1.1", "issue #42", "", ""},
		{"### Task 1.1: C# port", "1.1", "C# port", "", ""},
		{"### Task 1.1: Tight (M-1h)", "1.1", "Tight", "M", "1h"},
		{"### Task 1.1: Wide (XL  -  2-3h)", "1.1", "Wide", "XL", "2-3h"},
		{"### Task 1.1: Spaced estimate (S - 30 min)", "1.1", "Spaced estimate", "S", "30 min"},
		{"### Task 1.1: Unknown estimate (L - TBD)", "1.1", "Unknown estimate", "L", "TBD"},
		{"### Task 1.1: Points (3 - 2d)", "1.1", "Points", "3", "2d"},
		{"### Task 1.1: Twice (a) (M - 1h)", "1.1", "Twice (a)", "M", "1h"},
		{"### Task 1.1: Follow (follow-up)", "1.1", "Follow (follow-up)", "", ""},
		{"### Task 1.1: Redo (re-do)", "1.1", "Redo (re-do)", "", ""},
		{"### Task 1.1: Notes (see notes)", "1.1", "Notes (see notes)", "", ""},
		{"### Task 1.1: Nothing ( - 1h)", "1.1", "Nothing ( - 1h)", "", ""},
		{"### Task 1.1: No estimate (M - )", "1.1", "No estimate (M - )", "", ""},
		{"### Task 1.1: Not last (M - 1h) then", "1.1", "Not last (M - 1h) then", "", ""},
		{"### Task 1.1: (M - 1h) Leading", "1.1", "(M - 1h) Leading", "", ""},
		{"### Task 0: Zero", "0", "Zero", "", ""},
		{"### Task 2: Single", "2", "Single", "", ""},
		{"### Task 2.1.3: Deep", "2.1.3", "Deep", "", ""},
		{"### Task 1.10: Ten", "1.10", "Ten", "", ""},
		{"### Task 999999999.1: Big", "999999999.1", "Big", "", ""},
		{"### Task 1.1: 🚀🎉", "1.1", "🚀🎉", "", ""},
		{"### Task 1.1: 数据库 (M - 1h)", "1.1", "数据库", "M", "1h"},
	}
	for _, c := range cases {
		t.Run(c.heading, func(t *testing.T) {
			p, ws := mustParse(t, "Run ID: r\n## Phase 1: P (Parallel)\n"+c.heading+"\n")
			if len(ws) != 0 {
				t.Errorf("warnings: %v", ws)
			}
			tk := p.Tasks()[0]
			if tk.ID != c.id || tk.Title != c.title || tk.Size != c.size || tk.Estimate != c.estimate || tk.Line != 3 {
				t.Errorf("got %q %q %q %q line %d", tk.ID, tk.Title, tk.Size, tk.Estimate, tk.Line)
			}
		})
	}
}

func TestIDsAreStrings(t *testing.T) {
	src := "Run ID: r\n## Phase 1: P (Parallel)\n### Task 1.1: A\n### Task 1.10: B\n### Task 1.1.2: C\n### Task 1: D\n"
	p, _ := mustParse(t, src)
	var ids []string
	for _, tk := range p.Tasks() {
		ids = append(ids, tk.ID)
	}
	if !reflect.DeepEqual(ids, []string{"1.1", "1.10", "1.1.2", "1"}) {
		t.Errorf("ids %v", ids)
	}
	for _, c := range []struct{ id, title string }{{"1.1", "A"}, {"1.10", "B"}, {"1.1.2", "C"}, {"1", "D"}} {
		if tk := p.Task(c.id); tk == nil || tk.Title != c.title {
			t.Errorf("Task(%q) = %+v", c.id, tk)
		}
	}
	names := map[string]bool{}
	for _, tk := range p.Tasks() {
		names[BranchName("r", tk)] = true
	}
	for _, n := range []string{"r-task-1-1-a", "r-task-1-10-b", "r-task-1-1-2-c", "r-task-1-d"} {
		if !names[n] {
			t.Errorf("missing branch %q in %v", n, names)
		}
	}
}

func TestMeta(t *testing.T) {
	src := strings.Join([]string{
		"Run ID: r",
		"## Phase 1: P (Sequential)",
		"- not meta: before any task",
		"### Task 1.1: A",
		"Some prose that is ignored.",
		"- Files: `a.go`",
		"* Star item  ",
		"+ Plus item",
		"  - nested item",
		"      - deep item",
		"-",
		"-no space is prose",
		"* * *",
		"- - -",
		"---",
		"1. numbered is prose",
		"```",
		"- inside a fence",
		"```",
		"- after the fence",
		"#### Notes",
		"- after a sub-heading: not meta",
		"### Task 1.2: B",
		"- b meta",
		"## Unrelated section",
		"- not meta either",
	}, "\n")
	p, _ := mustParse(t, src)
	want := [][]string{
		{"Files: `a.go`", "Star item", "Plus item", "nested item", "deep item", "after the fence"},
		{"b meta"},
	}
	for i, tk := range p.Tasks() {
		if !reflect.DeepEqual(tk.Meta, want[i]) {
			t.Errorf("task %s meta:\n got %q\nwant %q", tk.ID, tk.Meta, want[i])
		}
	}
}

// An unknown level-2 heading does not end the phase: tasks after it still
// belong to the phase above.
func TestUnknownHeadingsKeepPhase(t *testing.T) {
	src := "# Title\nRun ID: r\n## Overview\n## Phase 1: P (Parallel)\n### Task 1.1: A\n## Notes\n### Task 1.2: B\n# Appendix\n### Task 1.3: C\n### Something else\n#### Task 9.9: deep\n"
	p, ws := mustParse(t, src)
	if len(p.Phases) != 1 || len(p.Phases[0].Tasks) != 4 {
		t.Fatalf("phases %+v", p.Phases)
	}
	for _, tk := range p.Tasks() {
		if tk.Phase != p.Phases[0] {
			t.Errorf("task %s in wrong phase", tk.ID)
		}
	}
	// A task heading counts at any level, "#### Task 9.9:" too.
	if tk := p.Task("9.9"); tk == nil || tk.Line != 11 || tk.Title != "deep" {
		t.Errorf("task 9.9 = %+v", tk)
	}
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
}

func TestNotHeadings(t *testing.T) {
	src := strings.Join([]string{
		"Run ID: r",
		"## Phase 1: P (Parallel)",
		"### Task 1.1: real",
		"    ### Task 1.2: four spaces is code",
		"####### Task 1.4: seven hashes",
		"> ### Task 1.5: quoted",
		"\\### Task 1.6: escaped",
		"### Tasks: overview",
		"### Task: no id",
		"### Task overview and notes",
		"## Phases",
		"## Phase overview",
	}, "\n")
	p, ws := mustParse(t, src)
	if got := summarize(p); len(got) != 1 || got[0].ID != "1.1" {
		t.Errorf("tasks %+v", got)
	}
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
}

func TestFences(t *testing.T) {
	src := strings.Join([]string{
		"```markdown", // 1
		"Run ID: fake",
		"## Phase 9: Fake (Parallel)",
		"### Task 9.1: Fake",
		"```",
		"Run ID: real", // 6
		"~~~~",
		"### Task 1.1: inside tildes",
		"~~~",
		"```",
		"### Task 1.2: still inside: shorter and other fences do not close",
		"~~~~~ ",
		"## Phase 1: P (Sequential)", // 13
		"   ```go",
		"### Task 1.3: indented fence",
		"   ```",
		"    ```",
		"### Task 1.4: real, 4-space fence is not a fence", // 18
		"``` not `a` fence because of backticks",
		"### Task 1.5: real", // 20
		"~~~ info with `backticks` is fine for tildes",
		"### Task 1.6: hidden",
		"~~~",
		"### Task 1.7: real", // 24
		"```",
		"### Task 1.8: hidden by a fence that never closes",
	}, "\n")
	p, ws := mustParse(t, src)
	if p.RunID != "real" || p.RunIDLine != 6 {
		t.Errorf("run id %q@%d", p.RunID, p.RunIDLine)
	}
	var got []string
	for _, tk := range p.Tasks() {
		got = append(got, tk.ID+"@"+strconv.Itoa(tk.Line))
	}
	if want := []string{"1.4@18", "1.5@20", "1.7@24"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
	if len(p.Phases) != 1 || p.Phases[0].Number != 1 {
		t.Errorf("phases %+v", p.Phases)
	}
	if len(ws) != 1 || ws[0].Line != 25 || !strings.Contains(ws[0].Msg, "never closed") {
		t.Errorf("warnings %v", ws)
	}
}

func TestWarnings(t *testing.T) {
	src := strings.Join([]string{
		"Run ID: r",
		"## Phase 1: Empty (Parallel)",  // 2: no tasks
		"## Phase 2: No mode",           // 3: no mode
		"### Task 2.1: A",               // 4
		"- Depends on: 9.9",             // 5: no such task
		"## Phase 3: Odd strategy",      // 6: no mode
		"**Strategy**: whenever",        // 7: not a mode
		"### Task 3.1: B",               // 8
		"## Phase 4: Last (Sequential)", // 9: no tasks
		"```",                           // 10: never closed
	}, "\n")
	p, ws := mustParse(t, src)
	if len(p.Tasks()) != 2 {
		t.Errorf("tasks %+v", summarize(p))
	}
	want := []struct {
		line int
		msg  string
	}{
		{2, "phase 1 has no tasks"},
		{3, "phase 2 has no mode"},
		{5, "dependency 9.9 names no task of this plan"},
		{6, "phase 3 has no mode"},
		{7, `strategy "whenever" is neither parallel nor sequential; ignored`},
		{9, "phase 4 has no tasks"},
		{10, "code fence is never closed"},
	}
	if len(ws) != len(want) {
		t.Fatalf("warnings:\n%v", ws)
	}
	for i, w := range want {
		if ws[i].Line != w.line || !strings.Contains(ws[i].Msg, w.msg) || ws[i].Path != "plan.md" {
			t.Errorf("warning %d = %v, want line %d %q", i, ws[i], w.line, w.msg)
		}
		if strings.HasSuffix(ws[i].Msg, ".") {
			t.Errorf("warning ends with a period: %q", ws[i].Msg)
		}
	}
}

func TestErrors(t *testing.T) {
	const head = "Run ID: r\n## Phase 1: P (Parallel)\n" // tasks start at line 3
	cases := []struct {
		name string
		src  string
		line int
		msg  string
	}{
		{"empty file", "", 1, `empty plan: no task found (want a heading such as "### Task 1.1: <title>" or "## Task 3 - <title>", or checklist items "- [ ] **Task 1.1**: <title>")`},
		{"only a bom", "\uFEFF", 1, "empty plan"},
		{"blank lines", "\n\r\n\n", 1, "empty plan"},
		{"run id only", "Run ID: r\n", 1, "empty plan"},
		{"phase without tasks", head, 1, "empty plan"},
		{"no run id and no task", "# Plan\n", 1, "empty plan"},
		{"task before phase", "Run ID: r\n\n### Task 1.1: A\n## Phase 1: P\n", 3, "task 1.1 is outside any phase"},
		{"task after unknown heading before phase", "Run ID: r\n## Intro\n### Task 2: A\n", 3, "task 2 is outside any phase"},
		{"duplicate task", head + "### Task 2.1: A\n\n### Task 2.1: B\n", 5, "duplicate task id 2.1 (first at line 3)"},
		{"duplicate across phases", head + "### Task 1: A\n## Phase 2: Q\n### Task 1: B\n", 5, "duplicate task id 1 (first at line 3)"},
		{"letter id", head + "### Task 1.a: A\n", 3, `malformed task id "1.a" (want numbers joined by dots or dashes, such as 2.1 or 1-1)`},
		{"word id is prose, leaving no task", head + "### Task list: A\n", 1, "empty plan"},
		{"mixed separators", head + "### Task 1-2.3: A\n", 3, `malformed task id "1-2.3"`},
		{"double dash", head + "### Task 1--2: A\n", 3, `malformed task id "1--2"`},
		{"v prefix", head + "### Task v1: A\n", 3, `malformed task id "v1"`},
		{"letters with a dot", head + "### Task a.b: A\n", 3, `malformed task id "a.b"`},
		{"phase letter with a digit", "Run ID: r\n## Phase v2: P\n", 2, `malformed phase number "v2"`},
		{"dash and dot duplicate", head + "### Task 1.1: A\n### Task 1-1: B\n", 4, "duplicate task id 1-1 (first at line 3)"},
		{"leading zero", head + "### Task 01: A\n", 3, `malformed task id "01"`},
		{"leading zero component", head + "### Task 1.02: A\n", 3, `malformed task id "1.02"`},
		{"double dot", head + "### Task 1..2: A\n", 3, `malformed task id "1..2"`},
		{"trailing dot", head + "### Task 1.: A\n", 3, `malformed task id "1."`},
		{"leading dot", head + "### Task .1: A\n", 3, `malformed task id ".1"`},
		{"ten digits", head + "### Task 1234567890: A\n", 3, `malformed task id "1234567890"`},
		{"no colon", head + "### Task 2.2 Missing colon\n", 3, `malformed task heading: want "Task <id>: <title>" or "Task <id> - <title>"`},
		{"id alone", head + "### Task 2.2\n", 3, "malformed task heading"},
		{"empty title", head + "### Task 1.1:\n", 3, "task 1.1 has an empty title"},
		{"blank title", head + "### Task 1.1: \t \n", 3, "task 1.1 has an empty title"},
		{"only size", head + "### Task 1.1: (M - 1h)\n", 3, "task 1.1 has an empty title"},
		{"only hashes", head + "### Task 1.1: ###\n", 3, "task 1.1 has an empty title"},
		{"phase dashed", "Run ID: r\n## Phase 1-2: P\n", 2, `malformed phase number "1-2" (want an integer such as 2)`},
		{"phase without colon", "Run ID: r\n## Phase 2 Features (Parallel)\n", 2, `malformed phase heading: want "Phase <n>: <title>"`},
		{"phase other group", "Run ID: r\n## Phase 2 (Foundation)\n", 2, "malformed phase heading"},
		{"phase two modes", "Run ID: r\n## Phase 2: X (Parallel) (Sequential)\n", 2, "phase heading gives two different modes"},
		{"phase dotted", "Run ID: r\n## Phase 1.5: P\n", 2, `malformed phase number "1.5"`},
		{"phase negative", "Run ID: r\n## Phase -1: P\n", 2, `malformed phase number "-1"`},
		{"phase huge", "Run ID: r\n## Phase 1234567890: P\n", 2, `malformed phase number "1234567890"`},
		{"duplicate phase", head + "### Task 1: A\n## Phase 1: Again\n", 4, "duplicate phase 1 (first at line 2)"},
		{"duplicate phase zero padded", head + "### Task 1: A\n## Phase 01: Again\n", 4, "duplicate phase 1 (first at line 2)"},
		{"bad run id", "\n\nRun ID: a..b\n", 3, `run id "a..b" contains ".."`},
		{"empty run id", "Run ID:\n", 1, `run id "" is empty`},
		{"empty run id in backticks", "Run ID: ``\n", 1, "run id \"``\" must start with a letter or digit"},
		{"run id with trailing words", "Run ID: r1 (generated)\n", 1, `run id "r1 (generated)" contains " "`},
		{"option run id", "Run ID: --upload-pack=x\n", 1, "must start with a letter or digit"},
		{"second run id", head + "### Task 1: A\nRun ID: s\n", 4, `run id "s" differs from run id "r" at line 1`},
		{"second run id bold", head + "**Run ID:** `s`\n", 3, `run id "s" differs from run id "r" at line 1`},
		{"second run id invalid", head + "Run ID: s..t\n", 3, `run id "s..t" contains ".."`},
		{"nul byte", head + "### Task 1: A\x00\n", 3, "NUL byte"},
		{"invalid utf-8", head + "### Task 1: caf\xe9\n", 3, "not valid UTF-8"},
		{"invalid utf-8 before nul", "Run ID: r\r\n\xc3(\r\n\r\n\x00\n", 2, "not valid UTF-8"},
		{"nul before invalid utf-8", "a\rb\r\x00\r\xff", 3, "NUL byte"},
		{"nul first", "\x00", 1, "NUL byte"},
		{"nul after bom", "\uFEFF\n\n\x00", 3, "NUL byte"},
		{"truncated rune at end", "Run ID: r\n\n\xe2\x82", 3, "not valid UTF-8"},
		{"utf-16 le", "\xff\xfeR\x00u\x00n\x00", 1, "UTF-16"},
		{"utf-16 be", "\xfe\xff\x00R\x00u\x00n", 1, "UTF-16"},
		{"binary junk", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00", 1, "NUL byte"},
		{"fence hides every task", "Run ID: r\n```\n## Phase 1: P\n### Task 1: A\n", 1, "empty plan"},
		{"first error wins", head + "### Task 1x: A\n### Task 1: B\n### Task 1: C\n", 3, `malformed task id "1x"`},
		{"crlf line numbers", "Run ID: r\r\n\r\n## Phase 1: P\r\n\r\n### Task 1: A\r\n### Task 1: B\r\n", 6, "duplicate task id 1 (first at line 5)"},
		{"cr line numbers", "Run ID: r\r\r## Phase 1: P\r\r### Task 1: A\r### Task 1: B\r", 6, "duplicate task id 1 (first at line 5)"},
		{"bom line numbers", "\uFEFFRun ID: r\n### Task 1: A\n", 2, "task 1 is outside any phase"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := Parse("specs/r/plan.md", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; plan %+v", p)
			}
			if p != nil {
				t.Errorf("plan is not nil on error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error", err)
			}
			if pe.Line != c.line || pe.Path != "specs/r/plan.md" {
				t.Errorf("error at %s:%d, want line %d: %v", pe.Path, pe.Line, c.line, err)
			}
			if !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("message %q does not contain %q", pe.Msg, c.msg)
			}
			prefix := "specs/r/plan.md:" + strconv.Itoa(c.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), prefix)
			}
			if strings.HasSuffix(pe.Msg, ".") || pe.Msg == "" || strings.ToLower(pe.Msg[:1]) != pe.Msg[:1] {
				t.Errorf("message must be lower-case without trailing period: %q", pe.Msg)
			}
		})
	}
}

// Warnings are still returned with an error, those only the whole plan
// shows (a phase without a mode) too, since the plan is read to its end.
func TestWarningsWithError(t *testing.T) {
	_, ws, err := Parse("p", []byte("## Phase 1: P\n**Strategy**: soon\n### Task 1: A\n### Task 1: B\n"))
	if err == nil || len(ws) != 2 || ws[0].Line != 1 || !strings.Contains(ws[0].Msg, "has no mode") || ws[1].Line != 2 {
		t.Errorf("err %v warnings %v", err, ws)
	}
}

func TestRendering(t *testing.T) {
	cases := []struct {
		path string
		line int
		want string
	}{
		{"specs/r/plan.md", 3, "specs/r/plan.md:3: msg"},
		{"", 3, "line 3: msg"},
		{"p.md", 0, "p.md: msg"},
		{"", 0, "msg"},
	}
	for _, c := range cases {
		if got := (Warning{c.path, c.line, "msg"}).String(); got != c.want {
			t.Errorf("Warning.String() = %q, want %q", got, c.want)
		}
		if got := (&Error{c.path, c.line, "msg"}).Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestSlug(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Create database schema", "create-database-schema"},
		{"API: v2 (beta)!", "api-v2-beta"},
		{"E2E tests", "e2e-tests"},
		{"  leading and trailing  ", "leading-and-trailing"},
		{"--already--dashed--", "already-dashed"},
		{"snake_case_and.dots", "snake-case-and-dots"},
		{"Tabs\tand\nnewlines", "tabs-and-newlines"},
		{"MiXeD CaSe 123", "mixed-case-123"},
		{"café au lait", "caf-au-lait"},
		{"Ünïcödé", "n-c-d"},
		{"Straße", "stra-e"},
		{"İstanbul", "stanbul"},
		{"KELVIN \u212a", "kelvin"},
		{"数据库迁移", ""},
		{"データベース (M)", "m"},
		{"Миграция БД", ""},
		{"🚀🎉", ""},
		{"🚀 Launch 🎉", "launch"},
		{"", ""},
		{"---", ""},
		{"a", "a"},
		{"C++ / C# port", "c-c-port"},
		{"\xff\xfe bad bytes", "bad-bytes"},
	}
	for _, c := range cases {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBranchNames(t *testing.T) {
	cases := []struct {
		run, id, title, want, prefix string
	}{
		{"x1y2z3", "2.1", "User service", "x1y2z3-task-2-1-user-service", "x1y2z3-task-2-1-"},
		{"x1y2z3", "2", "Single", "x1y2z3-task-2-single", "x1y2z3-task-2-"},
		{"r", "1.1.2", "Deep one", "r-task-1-1-2-deep-one", "r-task-1-1-2-"},
		{"r", "1.1", "🚀🎉", "r-task-1-1", "r-task-1-1-"},
		{"r", "3.2", "数据库", "r-task-3-2", "r-task-3-2-"},
	}
	for _, c := range cases {
		tk := &Task{ID: c.id, Title: c.title}
		if got := BranchName(c.run, tk); got != c.want {
			t.Errorf("BranchName(%q, %q %q) = %q, want %q", c.run, c.id, c.title, got, c.want)
		}
		if got := BranchPrefix(c.run, c.id); got != c.prefix {
			t.Errorf("BranchPrefix(%q, %q) = %q, want %q", c.run, c.id, got, c.prefix)
		}
	}
	if got := DashedID("2.1.3"); got != "2-1-3" {
		t.Errorf("DashedID = %q", got)
	}
	if got := DashedID("7"); got != "7" {
		t.Errorf("DashedID = %q", got)
	}
}

func TestValidTaskID(t *testing.T) {
	valid := []string{"0", "1", "2", "2.1", "2.1.3", "1.10", "10.0", "999999999", "1.999999999.0",
		"1-1", "1-2", "2-1-3", "10-0"}
	invalid := []string{"", ".", "1.", ".1", "1..2", "a", "1.a", "01", "1.01", "00", "1234567890",
		"1.1234567890", "-1", "+1", "1 ", " 1", "1,2", "١", "1.1\n", "1/2",
		"1-", "-", "1--2", "1-2.3", "1.2-3", "1-02", "task-1-2", "1-1234567890"}
	for _, id := range valid {
		if !ValidTaskID(id) {
			t.Errorf("ValidTaskID(%q) = false", id)
		}
	}
	for _, id := range invalid {
		if ValidTaskID(id) {
			t.Errorf("ValidTaskID(%q) = true", id)
		}
	}
}

func TestValidateRunID(t *testing.T) {
	valid := []string{"x1y2z3", "a.b-c_d", "a", "0", "A-B", "run.1", "x_", "x-", strings.Repeat("a", 64), "9lock", "a.locks", "lock"}
	for _, id := range valid {
		if err := ValidateRunID(id); err != nil {
			t.Errorf("ValidateRunID(%q) = %v", id, err)
		}
	}
	invalid := []struct{ id, msg string }{
		{"", `run id "" is empty`},
		{"-x", `run id "-x" must start with a letter or digit`},
		{"--upload-pack=x", `run id "--upload-pack=x" must start with a letter or digit`},
		{".x", `run id ".x" must start with a letter or digit`},
		{"_x", "must start with a letter or digit"},
		{"a..b", `run id "a..b" contains ".."`},
		{"a b", `run id "a b" contains " "`},
		{"a/b", `run id "a/b" contains "/"`},
		{"a~b", `contains "~"`},
		{"a^b", `contains "^"`},
		{"a:b", `contains ":"`},
		{"a?b", `contains "?"`},
		{"a*b", `contains "*"`},
		{"a[b", `contains "["`},
		{"a\\b", `run id "a\\b" contains "\\"`},
		{"a@{b", `contains "@"`},
		{"a=b", `contains "="`},
		{strings.Repeat("a", 65), "is longer than 64 characters"},
		{"héllo", `run id "héllo" contains "é"`},
		{"x.lock", `run id "x.lock" ends with ".lock"`},
		{"x.LOCK", `ends with ".lock"`},
		{"x.", `run id "x." ends with "."`},
		{"a\x00b", `run id "a\x00b" contains "\x00"`},
		{"a\tb", `contains "\t"`},
		{"a\nb", `contains "\n"`},
		{"a\x7fb", `contains "\x7f"`},
		{"a\xffb", "contains byte 0xff"},
		{"\x01", "must start with a letter or digit"},
	}
	for _, c := range invalid {
		err := ValidateRunID(c.id)
		if err == nil {
			t.Errorf("ValidateRunID(%q) = nil", c.id)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ValidateRunID(%q) = %q, want it to contain %q", c.id, err, c.msg)
		}
		if msg := err.Error(); strings.HasSuffix(msg, ".") || !strings.HasPrefix(msg, "run id ") {
			t.Errorf("ValidateRunID(%q) message style: %q", c.id, msg)
		}
	}
	// A hostile id must not make a huge message.
	if err := ValidateRunID(strings.Repeat("a", 1<<20)); err == nil || len(err.Error()) > 200 {
		t.Errorf("long id: %v", err)
	}

	// Cross-check with git itself where it is installed: every valid id must
	// make the refs the commands create, and every id rejected for a ref
	// reason must really be rejected by git or be one we refuse on purpose.
	git, err := exec.LookPath("git")
	if err != nil {
		t.Log("git not found; skipping the check-ref-format cross-check")
		return
	}
	for _, id := range valid {
		for _, ref := range []string{"refs/heads/" + id + "-task-1", "refs/heads/" + id + "-main", "refs/taskclean/" + id + "/x"} {
			if out, err := exec.Command(git, "check-ref-format", ref).CombinedOutput(); err != nil {
				t.Errorf("git check-ref-format %q: %v %s", ref, err, out)
			}
			if err := checkRefFormat(ref); err != nil {
				t.Errorf("checkRefFormat(%q) = %v but git accepts it", ref, err)
			}
		}
	}
	for _, id := range []string{"a..b", "x.lock", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a@{b"} {
		ref := "refs/taskclean/" + id + "/x"
		if exec.Command(git, "check-ref-format", ref).Run() == nil {
			t.Errorf("git accepts %q although ValidateRunID rejects %q for a ref reason", ref, id)
		}
		if checkRefFormat(ref) == nil {
			t.Errorf("checkRefFormat accepts %q but git does not", ref)
		}
	}
}

// TestLarge checks that the parser stays linear in the size of the plan:
// on many tasks, and on huge lines and many lines of every kind it reads.
// Each input is parsed at two sizes, n and 8n, and the cost per unit (per
// task, per input byte) at 8n must stay within maxGrowth times the cost at
// n; a parser with a quadratic step costs about 8 times as much per unit at
// 8n. The costs are allocations (how many, and how many bytes), which
// depend on the input alone, not on how busy the machine is, so the check
// cannot flake. Time is measured in BenchmarkParseLarge, never asserted
// here.
func TestLarge(t *testing.T) {
	const head = "Run ID: r\n## Phase 1: P (Parallel)\n### Task 1: A\n"
	rep := strings.Repeat
	cases := map[string]func(n int) string{
		"prose line":      func(n int) string { return head + rep("word ", n/5) },
		"title":           func(n int) string { return "## Phase 1: P\n### Task 1: " + rep("(a", n/2) + ")" },
		"title groups":    func(n int) string { return "## Phase 1: P\n### Task 1: A" + rep(" (M)", n/4) },
		"phase title":     func(n int) string { return "## Phase 1: " + rep("(", n) + "\n### Task 1: A\n" },
		"phase groups":    func(n int) string { return "## Phase 1: A" + rep(" (4h)", n/5) + "\n### Task 1: A\n" },
		"phase segments":  func(n int) string { return "## Phase 1 - A" + rep(" - Parallel", n/11) + "\n### Task 1: A\n" },
		"hashes":          func(n int) string { return head + rep("#", n) },
		"heading hashes":  func(n int) string { return head + "## " + rep("# ", n/2) },
		"backticks":       func(n int) string { return head + rep("`", n) },
		"tildes":          func(n int) string { return head + rep("~", n) + "\n" + rep("~", n-1) },
		"bullet":          func(n int) string { return head + "- " + rep("x", n) },
		"run id value":    func(n int) string { return head + "Run ID: " + rep("**", n/2) },
		"spaces":          func(n int) string { return head + rep(" \t", n/2) + "x" },
		"many lines":      func(n int) string { return head + rep("\n", n) },
		"many cr":         func(n int) string { return head + rep("\r", n) },
		"many headings":   func(n int) string { return head + rep("## Notes\n", n/9) },
		"many run ids":    func(n int) string { return head + rep("Run ID: r\n", n/10) },
		"many fences":     func(n int) string { return head + rep("```\n", n/4) },
		"many dots in id": func(n int) string { return "## Phase 1: P\n### Task " + rep("1.", n/2) + "1: A\n" },
		"braces":          func(n int) string { return head + "## " + rep("{", n) },
		"dollar braces":   func(n int) string { return head + "## " + rep("${a", n/3) },
		"front matter":    func(n int) string { return "---\n" + rep("key: value\n", n/11) + "---\n" + head },
		"comments":        func(n int) string { return rep("<!--\n", n/5) + "-->\n" + head },
		"strategy lines": func(n int) string {
			return "## Phase 1: P\n" + rep("**Strategy**: parallel\n", n/23) + "### Task 1: A\n"
		},
		"dependencies":        func(n int) string { return head + "**Dependencies**: " + rep("1, ", n/3) },
		"dependency bullets":  func(n int) string { return head + "**Dependencies:**\n" + rep("- Task 1 (x)\n", n/13) },
		"checklist":           func(n int) string { return "## Phase 1: P\n" + rep("- [ ] **Task 1.1**: x | y\n", n/26) },
		"checklist bars":      func(n int) string { return "## Phase 1: P\n- [ ] Task 1: x" + rep(" | y", n/4) },
		"long first word":     func(n int) string { return head + "## " + rep("Tassk", n/5) + " 1" },
		"many near words":     func(n int) string { return head + rep("## Test 1\n", n/10) },
		"decorations":         func(n int) string { return head + "### " + rep("🚧 ", n/5) + "Task 1.2: x\n" },
		"decorated prose":     func(n int) string { return head + rep("### 🚧 **4. Notes**\n", n/22) },
		"glued hashes":        func(n int) string { return head + rep("###Notes\n", n/9) },
		"mixed checklists":    func(n int) string { return head + "## Phase 2: Q\n" + rep("- [ ] **Task 2.1**: x\n", n/22) },
		"many tasks":          func(n int) string { return largePlan(n / 60) },
		"many unknown deps":   func(n int) string { return largePlan(n/120) + rep("**Dependencies**: 9.9\n", n/44) },
		"many phases no mode": func(n int) string { return largePhases(n / 30) },
	}
	// A linear parser's cost per unit still moves a little between sizes:
	// maps and slices grow in steps, so how much of their last step is used
	// depends on the size (up to 1.3x among the inputs below).
	const maxGrowth = 1.5

	// Per task: plans of n and 8n tasks, 100 to a phase.
	t.Run("per task", func(t *testing.T) {
		const n = 1000
		small, large := []byte(largePlan(n)), []byte(largePlan(8*n))
		count := func(data []byte) float64 {
			return testing.AllocsPerRun(2, func() { _, _, _ = Parse("big.md", data) })
		}
		cs, cl := count(small)/n, count(large)/(8*n)
		bs, bl := float64(allocated(small))/n, float64(allocated(large))/(8*n)
		t.Logf("allocations per task: %.1f at %d tasks, %.1f at %d (%.2fx)", cs, n, cl, 8*n, cl/cs)
		t.Logf("bytes allocated per task: %.0f at %d tasks, %.0f at %d (%.2fx)", bs, n, bl, 8*n, bl/bs)
		if cl > maxGrowth*cs {
			t.Errorf("allocations per task grew %.2fx from %d to %d tasks (limit %.1fx): not linear", cl/cs, n, 8*n, maxGrowth)
		}
		if bl > maxGrowth*bs {
			t.Errorf("bytes allocated per task grew %.2fx from %d to %d tasks (limit %.1fx): not linear", bl/bs, n, 8*n, maxGrowth)
		}
	})

	// Per input byte, for every kind of input.
	const n = 1 << 17
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			small, large := []byte(gen(n)), []byte(gen(8*n))
			// The parse copies its input, so a byte per byte is the least
			// it allocates; the floor keeps a near-empty parse from
			// dividing by nothing.
			ps := max(float64(allocated(small))/float64(len(small)), 1)
			pl := float64(allocated(large)) / float64(len(large))
			t.Logf("bytes allocated per input byte: %.2f at %d bytes, %.2f at %d (%.2fx)", ps, len(small), pl, len(large), pl/ps)
			if pl > maxGrowth*ps {
				t.Errorf("bytes allocated per input byte grew %.2fx from %d to %d bytes (limit %.1fx): not linear", pl/ps, len(small), len(large), maxGrowth)
			}
		})
	}

	p, ws := mustParse(t, largePlan(5000))
	if n := len(p.Tasks()); n != 5000 || len(ws) != 0 {
		t.Errorf("%d tasks, warnings %v", n, ws)
	}
	if tk := p.Task("50.100"); tk == nil || tk.Line != 1+50+5000*3-2 {
		t.Errorf("last task %+v", tk)
	}
}

// allocated is how many bytes one parse of data allocates.
func allocated(data []byte) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _ = Parse("big.md", data)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// largePlan is a valid plan of about tasks tasks, 100 to a phase.
func largePlan(tasks int) string {
	var b strings.Builder
	b.WriteString("Run ID: big\n")
	for ph := 1; ph <= (tasks+99)/100; ph++ {
		b.WriteString("## Phase " + strconv.Itoa(ph) + ": Phase (Parallel)\n")
		for tk := 1; tk <= 100 && (ph-1)*100+tk <= tasks; tk++ {
			b.WriteString("### Task " + strconv.Itoa(ph) + "." + strconv.Itoa(tk) + ": Task number " + strconv.Itoa(tk) + " (M - 1h)\n- Files: `x`\n\n")
		}
	}
	return b.String()
}

// largePhases is a plan of many phases without a mode, each with one task:
// every phase gets a warning.
func largePhases(phases int) string {
	var b strings.Builder
	for ph := 1; ph <= phases; ph++ {
		b.WriteString("## Phase " + strconv.Itoa(ph) + ": P\n### Task " + strconv.Itoa(ph) + ": T\n")
	}
	return b.String()
}

// BenchmarkParseLarge times the largest inputs of TestLarge's kinds that
// cost most: compare the 1x and 8x sizes (ns/op should grow about 8 times).
func BenchmarkParseLarge(b *testing.B) {
	for _, size := range []int{1 << 17, 8 << 17} {
		for name, data := range map[string]string{
			"tasks":    largePlan(size / 60),
			"segments": "## Phase 1 - A" + strings.Repeat(" - Parallel", size/11) + "\n### Task 1: A\n",
			"prose":    "Run ID: r\n## Phase 1: P (Parallel)\n### Task 1: A\n" + strings.Repeat("word ", size/5),
		} {
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					_, _, _ = Parse("big.md", []byte(data))
				}
			})
		}
	}
}

func BenchmarkParseExample(b *testing.B) {
	data, err := os.ReadFile("testdata/example.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Parse("plan.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
