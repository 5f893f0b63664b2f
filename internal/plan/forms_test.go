package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shape is what a person reads off a plan at a glance: run id, and per phase
// its number, mode letter (P parallel, S sequential as written, s sequential
// by default) and task ids.
func shape(p *Plan) string {
	var b strings.Builder
	b.WriteString(p.RunID)
	for _, ph := range p.Phases {
		letter := "s"
		switch {
		case ph.Mode == Parallel:
			letter = "P"
		case ph.ModeGiven:
			letter = "S"
		}
		fmt.Fprintf(&b, " | %d%s:", ph.Number, letter)
		for i, t := range ph.Tasks {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(t.ID)
		}
	}
	return b.String()
}

func parseErr(t *testing.T, src string) *Error {
	t.Helper()
	p, _, err := Parse("plan.md", []byte(src))
	if err == nil {
		t.Fatalf("no error; plan %s\ninput:\n%s", shape(p), src)
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not *Error: %v", err, err)
	}
	return pe
}

// TestFixtures reads the plans in testdata, each written in one of the forms
// the orchestrators produce, and checks what a person reads from them.
func TestFixtures(t *testing.T) {
	cases := []struct {
		file, shape string
		warnings    int
	}{
		// A dependency inside a parallel phase is honoured and warned.
		{"example.md", "x1y2z3 | 1S:1.1,1.2 | 2P:2.1,2.2,2.3 | 3S:3.1,3.2", 2},
		{"plugin.md", "7f3a1c | 1S:1 | 2P:2,3 | 3P:4,5", 1},
		{"codex.md", "c0de42 | 1P:1-1,1-2 | 2S:2-1", 1},
		{"segments.md", "seg001 | 1S:1,2 | 2P:3,4 | 3P:5", 0},
		{"checklist.md", " | 1S:1.1 | 2P:2.1,2.2", 0},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			p, ws, err := Parse(c.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(p); got != c.shape {
				t.Errorf("shape\n got %q\nwant %q", got, c.shape)
			}
			if len(ws) != c.warnings {
				t.Errorf("warnings %v", ws)
			}
			for _, tk := range p.Tasks() {
				if tk.Path != c.file || tk.Phase.Path != c.file {
					t.Errorf("task %s path %q phase path %q", tk.ID, tk.Path, tk.Phase.Path)
				}
			}
		})
	}

	// Details a person reads in the plugin's form: titles, sizes from the
	// Complexity lines, dependencies in every form, and where modes came from.
	p, _, err := Parse("plugin.md", mustRead(t, "testdata/plugin.md"))
	if err != nil {
		t.Fatal(err)
	}
	if p.RunIDLine != 4 {
		t.Errorf("run id line %d", p.RunIDLine)
	}
	type detail struct {
		ID, Title, Size, Estimate string
		DependsOn                 []string
	}
	var got []detail
	for _, tk := range p.Tasks() {
		got = append(got, detail{tk.ID, tk.Title, tk.Size, tk.Estimate, tk.DependsOn})
	}
	want := []detail{
		{"1", "Invoice Schema", "M", "3h", nil},
		{"2", "CSV Exporter", "S", "2h", []string{"1"}},
		{"3", "PDF Exporter", "L", "5h", []string{"1", "2"}},
		{"4", "Feature Flag", "S", "1h", []string{"2", "3"}},
		{"5", "User Guide", "M", "3h", nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tasks\n got %+v\nwant %+v", got, want)
	}
	var modeLines []int
	for _, ph := range p.Phases {
		modeLines = append(modeLines, ph.ModeLine)
	}
	if !reflect.DeepEqual(modeLines, []int{21, 45, 63}) {
		t.Errorf("mode lines %v", modeLines)
	}
	if ph := p.Phases[2]; ph.Title != "Sequential Rollout & Docs" || ph.Mode != Parallel {
		t.Errorf("a mode word in the title is title text: %+v", ph)
	}

	p, _, err = Parse("segments.md", mustRead(t, "testdata/segments.md"))
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, ph := range p.Phases {
		phases = append(phases, fmt.Sprintf("%q %s %q @%d", ph.Title, ph.Mode, ph.Estimate, ph.ModeLine))
	}
	if want := []string{`"" sequential "4h" @7`, `"Run simultaneously" parallel "6h" @13`, `"Cleanup" parallel "" @19`}; !reflect.DeepEqual(phases, want) {
		t.Errorf("phases\n got %q\nwant %q", phases, want)
	}

	p, _, err = Parse("checklist.md", mustRead(t, "testdata/checklist.md"))
	if err != nil {
		t.Fatal(err)
	}
	if tk := p.Task("2.2"); tk == nil || tk.Title != "Add UI component" || tk.Size != "M" || !reflect.DeepEqual(tk.Meta, []string{"repo: frontend"}) || tk.Line != 8 {
		t.Errorf("task 2.2 %+v", tk)
	}
	if tk := p.Task("1.1"); tk == nil || !reflect.DeepEqual(tk.Meta, []string{"repo: shared-lib", "files: src/types.ts"}) {
		t.Errorf("task 1.1 %+v", tk)
	}

	pe := parseErrFile(t, "testdata/template.md")
	if pe.Line != 1 || !strings.Contains(pe.Msg, `template placeholder "{Feature Name}"`) || !strings.HasSuffix(pe.Msg, "fill it in") {
		t.Errorf("template: %v", pe)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseErrFile(t *testing.T, path string) *Error {
	t.Helper()
	return parseErr(t, string(mustRead(t, path)))
}

func TestFrontMatter(t *testing.T) {
	const body = "## Phase 1: P (Parallel)\n### Task 1: A\n"
	cases := []struct {
		name, src, run string
		line           int
	}{
		{"plain", "---\nrunId: ab12cd\n---\n" + body, "ab12cd", 2},
		{"other keys", "---\nfeature: x\nrunId: ab12cd\ncreated: 2025-01-01\n---\n" + body, "ab12cd", 3},
		{"run_id", "---\nrun_id: ab12cd\n---\n" + body, "ab12cd", 2},
		{"RUN-ID", "---\nRUN-ID:  ab12cd  \n---\n" + body, "ab12cd", 2},
		{"double quotes", "---\nrunId: \"ab12cd\"\n---\n" + body, "ab12cd", 2},
		{"single quotes", "---\nrunid: 'ab12cd'\n---\n" + body, "ab12cd", 2},
		{"closed by dots", "---\nrunId: ab12cd\n...\n" + body, "ab12cd", 2},
		{"after blank lines", "\n\n---\nrunId: ab12cd\n---\n" + body, "ab12cd", 4},
		{"after a comment", "<!-- source: x -->\n---\nrunId: ab12cd\n---\n" + body, "ab12cd", 3},
		{"after a long comment", "<!--\nsource: x\n---\n-->\n\n---\nrunId: ab12cd\n---\n" + body, "ab12cd", 7},
		{"crlf", "---\r\nrunId: ab12cd\r\n---\r\n" + body, "ab12cd", 2},
		{"no run id key", "---\nfeature: x\n---\n" + body, "", 0},
		// Not front matter: "---" is not the first content line, so it is a
		// thematic break and "runId:" is prose.
		{"not first", "# Plan\n---\nrunId: ab12cd\n---\n" + body, "", 0},
		{"after text in a comment line", "<!-- x --> hi\n---\nrunId: ab12cd\n---\n" + body, "", 0},
		{"same id twice", "---\nrunId: ab12cd\n---\n**Run ID:** ab12cd\n" + body, "ab12cd", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := mustParse(t, c.src)
			if p.RunID != c.run || p.RunIDLine != c.line {
				t.Errorf("run id %q@%d, want %q@%d", p.RunID, p.RunIDLine, c.run, c.line)
			}
		})
	}
	errs := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"unclosed", "---\nrunId: ab12cd\n" + body, 1, "front matter opened here is never closed"},
		{"unclosed after comment", "<!-- c -->\n\n---\nrunId: ab12cd\n", 3, "never closed"},
		{"invalid", "---\nrunId: a..b\n---\n" + body, 2, `run id "a..b" contains ".."`},
		{"template", "---\nrunId: ${runId}\n---\n" + body, 2, `template placeholder "${runId}" in the plan: fill it in`},
		{"template other key", "---\nfeature: {Feature Name}\n---\n" + body, 2, "template placeholder"},
		{"differs from body", "---\nrunId: ab12cd\n---\nRun ID: ef34\n" + body, 4, `run id "ef34" differs from run id "ab12cd" at line 2`},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			pe := parseErr(t, c.src)
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %v, want line %d %q", pe, c.line, c.msg)
			}
		})
	}
}

func TestNoRunID(t *testing.T) {
	p, ws := mustParse(t, "# Plan\n## Phase 1: P (Parallel)\n### Task 1: A\n")
	if p.RunID != "" || p.RunIDLine != 0 || len(ws) != 0 {
		t.Errorf("run id %q@%d warnings %v", p.RunID, p.RunIDLine, ws)
	}
	// A fence hides a run id line like any other.
	p, _ = mustParse(t, "~~~\nRun ID: r\n~~~\n## Phase 1: P\n### Task 1: A\n")
	if p.RunID != "" {
		t.Errorf("run id %q read from inside a fence", p.RunID)
	}
}

func TestPhaseHeadingForms(t *testing.T) {
	cases := []struct {
		heading   string
		number    int
		title     string
		mode      Mode
		modeGiven bool
		estimate  string
	}{
		{"# Phase 1: Setup", 1, "Setup", Sequential, false, ""},
		{"###### Phase 1: Setup (Parallel)", 1, "Setup", Parallel, true, ""},
		{"## phase 2: Setup (parallel)", 2, "Setup", Parallel, true, ""},
		{"## Phase 1: Create Verification Skill (Foundation)", 1, "Create Verification Skill (Foundation)", Sequential, false, ""},
		{"## Phase 1: Setup (Foundation) (Parallel)", 1, "Setup (Foundation)", Parallel, true, ""},
		{"## Phase 1: Domains (Parallel by Domain)", 1, "Domains", Parallel, true, ""},
		{"## Phase 1: Steps (SEQUENTIAL - after 2.1)", 1, "Steps", Sequential, true, ""},
		{"## Phase 1: Setup (Parallel) (4h)", 1, "Setup", Parallel, true, "4h"},
		{"## Phase 1: Setup (4h) (Parallel)", 1, "Setup", Parallel, true, "4h"},
		{"## Phase 1: Setup (M - 2h)", 1, "Setup", Sequential, false, "2h"},
		{"## Phase 1: Setup (M)", 1, "Setup", Sequential, false, ""},
		{"## Phase 2: Parallel Execution MVP", 2, "Parallel Execution MVP", Sequential, false, ""},
		{"## Phase 4: Sequential & Generators", 4, "Sequential & Generators", Sequential, false, ""},
		{"# Phase 1", 1, "", Sequential, false, ""},
		{"# Phase 1 (4h)", 1, "", Sequential, false, "4h"},
		{"# Phase 1 (Parallel)", 1, "", Parallel, true, ""},
		{"# Phase 1 (2-3 days)", 1, "", Sequential, false, "2-3 days"},
		{"# Phase 3 - PARALLEL (6h) - Run simultaneously:", 3, "Run simultaneously", Parallel, true, "6h"},
		{"# Phase 3 - Sequential - Wire it up", 3, "Wire it up", Sequential, true, ""},
		{"# Phase 3 - Backend - Parallel", 3, "Backend", Parallel, true, ""},
		{"# Phase 3 - Multi-Repo Core (Parallel)", 3, "Multi-Repo Core", Parallel, true, ""},
		{"# Phase 3 - Parallel Work - Now", 3, "Parallel Work - Now", Sequential, false, ""},
		{"## Phase1: Glued", 1, "Glued", Sequential, false, ""},
	}
	for _, c := range cases {
		t.Run(c.heading, func(t *testing.T) {
			p, _ := mustParse(t, c.heading+"\n### Task 1.1: T\n")
			ph := p.Phases[0]
			if ph.Number != c.number || ph.Title != c.title || ph.Mode != c.mode || ph.ModeGiven != c.modeGiven || ph.Estimate != c.estimate {
				t.Errorf("got %d %q %s given=%v estimate %q", ph.Number, ph.Title, ph.Mode, ph.ModeGiven, ph.Estimate)
			}
			if p.Tasks()[0].Phase != ph {
				t.Error("task not in the phase")
			}
		})
	}
}

// Headings that start with Phase or Task but put no number after it are
// prose: they neither start a phase nor end one.
func TestProseHeadings(t *testing.T) {
	src := strings.Join([]string{
		"## Phase 1: P (Parallel)",
		"### Phase Overview",
		"### Task 1.1: A",
		"## Phase Dependency Graph",
		"### Task 1.2: B",
		"## Phase Execution Strategy",
		"### Task Complexity Breakdown",
		"### Task Overview",
		"## Phase: planning",
		"## Tasks: all of them",
		"## Phases",
		"## Test 1: smoke",
		"## Case 2: empty",
		"## Pass 1 (fast)",
		"## Base 3",
		"## Page 2",
		"## Track 1: API",
		"### Ask 2: why",
		"## Risk 1: late",
		"## Step 1: Setup",
		"### Task 1.3: C",
	}, "\n")
	p, ws := mustParse(t, src)
	if got := shape(p); got != " | 1P:1.1,1.2,1.3" {
		t.Errorf("shape %q", got)
	}
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
}

func TestNearMisses(t *testing.T) {
	for _, h := range []string{
		"### Taks 3.1: x", "## Phsae 2: y", "## Pahse 1", "## Fase 1: y", "### Tsak 1: x",
		"### Tasks 1.1: x", "## Phases 1-2", "### tak 1: x", "### Taskk 1: x", "## PHASEE 1",
	} {
		t.Run(h, func(t *testing.T) {
			pe := parseErr(t, "## Phase 1: P (Parallel)\n### Task 1: A\n"+h+"\n")
			if pe.Line != 3 || !strings.Contains(pe.Msg, "misspelt") || !strings.Contains(pe.Msg, "want ") {
				t.Errorf("got %v", pe)
			}
		})
	}
	// Far from the keyword, or not followed by a number: prose.
	for _, h := range []string{"## Phrase 1: x", "## Tusker 1", "## Toast 1", "## Taks list", "## Stage 1: x", "## Part 2", "## Paste 1"} {
		t.Run("prose/"+h, func(t *testing.T) {
			p, _ := mustParse(t, "## Phase 1: P (Parallel)\n### Task 1: A\n"+h+"\n")
			if len(p.Phases) != 1 || len(p.Tasks()) != 1 {
				t.Errorf("shape %q", shape(p))
			}
		})
	}
}

func TestWithinTwoEdits(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"task", "task", true}, {"taks", "task", true}, {"atsk", "task", true}, {"tsak", "task", true},
		{"phsae", "phase", true}, {"pahse", "phase", true}, {"hpase", "phase", true}, {"fase", "phase", true},
		{"PHSAE", "phase", true}, {"phasexx", "phase", true}, {"pha", "phase", true},
		{"ph", "phase", false}, {"phasexxx", "phase", false}, {"stage", "phase", false},
		{"paralel", "parallel", true}, {"sequental", "sequential", true}, {"parallels", "parallel", true},
		{"serial", "sequential", false}, {"", "task", false}, {strings.Repeat("a", 1000), "task", false},
	}
	for _, c := range cases {
		if got := withinTwoEdits(c.a, c.b); got != c.want {
			t.Errorf("withinTwoEdits(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestStrategyLines(t *testing.T) {
	cases := []struct {
		name, src string
		mode      Mode
		modeLine  int
	}{
		{"bold colon outside", "## Phase 1: P\n\n**Strategy**: Parallel\n### Task 1: A\n", Parallel, 3},
		{"bold colon inside", "## Phase 1: P\n**Strategy:** parallel\n### Task 1: A\n", Parallel, 2},
		{"plain", "## Phase 1: P\nStrategy: SEQUENTIAL\n### Task 1: A\n", Sequential, 2},
		{"list item", "## Phase 1: P\n- **Strategy**: parallel\n### Task 1: A\n", Parallel, 2},
		{"star item", "## Phase 1: P\n* Strategy: Parallel\n### Task 1: A\n", Parallel, 2},
		{"with a reason", "## Phase 1: P\n**Strategy**: Parallel (after Task 4.1)\n### Task 1: A\n", Parallel, 2},
		{"reason after a dash", "## Phase 1: P\n**Strategy**: sequential - each builds on the last\n### Task 1: A\n", Sequential, 2},
		{"in backticks", "## Phase 1: P\n**Strategy**: `parallel`\n### Task 1: A\n", Parallel, 2},
		{"after other lines", "## Phase 1: P\n\nSome words.\n### Notes\n**Strategy**: parallel\n### Task 1: A\n", Parallel, 5},
		{"agrees with heading", "## Phase 1: P (Parallel)\n**Strategy**: parallel\n### Task 1: A\n", Parallel, 1},
		{"title mode word", "## Phase 2: Parallel Execution MVP\n**Strategy**: parallel\n### Task 1: A\n", Parallel, 2},
		{"title sequential word", "## Phase 4: Sequential & Generators\n**Strategy**: parallel\n### Task 1: A\n", Parallel, 2},
		{"after the first task is ignored", "## Phase 1: P\n### Task 1: A\n**Strategy**: parallel\n", Sequential, 0},
		{"before any phase is ignored", "**Strategy**: parallel\n## Phase 1: P\n### Task 1: A\n", Sequential, 0},
		{"testing strategy is not one", "## Phase 1: P\n**Testing Strategy:** parallel\n### Task 1: A\n", Sequential, 0},
		{"execution strategy is not one", "## Phase 1: P\n**Execution Strategy**: parallel\n### Task 1: A\n", Sequential, 0},
		{"strategy in a fence", "## Phase 1: P\n```\nStrategy: parallel\n```\n### Task 1: A\n", Sequential, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := mustParse(t, c.src)
			ph := p.Phases[0]
			if ph.Mode != c.mode || ph.ModeLine != c.modeLine || ph.ModeGiven != (c.modeLine != 0) {
				t.Errorf("mode %s given %v at line %d, want %s at line %d", ph.Mode, ph.ModeGiven, ph.ModeLine, c.mode, c.modeLine)
			}
		})
	}
	// Each phase reads its own Strategy line.
	p, _ := mustParse(t, "## Phase 1: A\n**Strategy**: parallel\n### Task 1: a\n## Phase 2: B\n**Strategy**: sequential\n### Task 2: b\n## Phase 3: C\n### Task 3: c\n")
	if got := shape(p); got != " | 1P:1 | 2S:2 | 3s:3" {
		t.Errorf("shape %q", got)
	}

	_, ws, err := Parse("plan.md", []byte("## Phase 1: P\n**Strategy**: Mixed\n### Task 1: A\n"))
	if err != nil || len(ws) != 2 || ws[0].Line != 1 || ws[1].Line != 2 || !strings.Contains(ws[1].Msg, `strategy "Mixed" is neither parallel nor sequential`) {
		t.Errorf("err %v warnings %v", err, ws)
	}

	errs := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"heading disagrees", "## Phase 1: P (Parallel)\n\n**Strategy**: Sequential\n### Task 1: A\n", 3, "strategy line says sequential but line 1 says parallel for phase 1: choose one"},
		{"two strategies", "## Phase 1: P\n**Strategy**: parallel\n- Strategy: sequential\n### Task 1: A\n", 3, "strategy line says sequential but line 2 says parallel"},
		{"misspelt", "## Phase 1: P\n**Strategy**: Paralel\n### Task 1: A\n", 2, `misspelt mode "Paralel"`},
		{"choice", "## Phase 1: P\n**Strategy:** parallel|sequential\n### Task 1: A\n", 2, `offers a choice: choose one`},
		{"choice with blanks", "## Phase 1: P\n**Strategy:** sequential | parallel\n### Task 1: A\n", 2, "choose one"},
		{"template", "## Phase 1: P\n**Strategy**: {sequential|parallel}\n### Task 1: A\n", 2, `template placeholder "{sequential|parallel}"`},
		{"heading misspelt", "## Phase 1: P (Paralel)\n### Task 1: A\n", 1, `misspelt mode "Paralel"`},
		{"heading sequental", "## Phase 1: P (Sequental)\n### Task 1: A\n", 1, `misspelt mode "Sequental"`},
		{"heading choice", "## Phase 1: P (parallel|sequential)\n### Task 1: A\n", 1, "choose one"},
		{"segment misspelt", "# Phase 3 - Paralell - Go\n### Task 1: A\n", 1, "misspelt mode"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			pe := parseErr(t, c.src)
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %v, want line %d %q", pe, c.line, c.msg)
			}
		})
	}
}

func TestTaskHeadingForms(t *testing.T) {
	cases := []struct {
		heading                   string
		id, title, size, estimate string
	}{
		{"# Task 1: Top level", "1", "Top level", "", ""},
		{"## Task 4: Split plan", "4", "Split plan", "", ""},
		{"###### Task 4: Deep", "4", "Deep", "", ""},
		{"### Task 1-1: Dashed id", "1-1", "Dashed id", "", ""},
		{"### Task 2-1-3: Deep dashed", "2-1-3", "Deep dashed", "", ""},
		{"### Task 2.1 - Dash form", "2.1", "Dash form", "", ""},
		{"### Task 1-1 - Dash form, dashed id (M - 2h)", "1-1", "Dash form, dashed id", "M", "2h"},
		{"### Task 1: Size only (M)", "1", "Size only", "M", ""},
		{"### Task 1: Size only (xxl)", "1", "Size only", "xxl", ""},
		{"### Task 1: Time only (2h)", "1", "Time only", "", "2h"},
		{"### Task 1: Time only (1.5 hours)", "1", "Time only", "", "1.5 hours"},
		{"### Task 1: Both apart (M) (2h)", "1", "Both apart", "M", "2h"},
		{"### Task 1: Not a size (Q)", "1", "Not a size (Q)", "", ""},
		{"### Task 1: Mode stays (Parallel)", "1", "Mode stays (Parallel)", "", ""},
		{"### Task 1: Multi-Repo Core", "1", "Multi-Repo Core", "", ""},
		{"### Task1: Glued", "1", "Glued", "", ""},
	}
	for _, c := range cases {
		t.Run(c.heading, func(t *testing.T) {
			p, ws := mustParse(t, "## Phase 1: P (Parallel)\n"+c.heading+"\n")
			if len(ws) != 0 {
				t.Errorf("warnings: %v", ws)
			}
			tk := p.Tasks()[0]
			if tk.ID != c.id || tk.Title != c.title || tk.Size != c.size || tk.Estimate != c.estimate || tk.Line != 2 {
				t.Errorf("got %q %q %q %q line %d", tk.ID, tk.Title, tk.Size, tk.Estimate, tk.Line)
			}
		})
	}
}

func TestTaskBody(t *testing.T) {
	src := strings.Join([]string{
		"## Phase 1: P (Parallel)",
		"### Task 1.1: A",
		"**Complexity**: M (4h)",
		"**Dependencies**: None",
		"### Task 1.2: B (S - 1h)",
		"Complexity: L (9h)", // the heading already gave the size
		"**Dependencies:** 1.1",
		"### Task 1.3: C",
		"Complexity: XL",
		"**Dependencies:**",
		"",
		"- Task 1.1 (needs database models)",
		"- Task 1-2 (same task, other spelling)",
		"",
		"**Acceptance criteria:**",
		"- [ ] 2.1 is not a dependency",
		"### Task 1.4: D",
		"**Complexity**: 3h",
		"**Dependencies**: [task-1-2, task-1-3]",
		"### Task 1.5: E",
		"**Dependencies:**",
		"- None (foundation task)",
		"### Task 1.6: F",
		"**Dependencies**: Tasks 1.1 and 1.2, 1.3 (after review); see notes",
		"- Depends on: 1.5",
		"**Complexity**: {S|M|L} ({hours}h)",
	}, "\n")
	p, ws := mustParse(t, src)
	type detail struct {
		ID, Size, Estimate string
		DependsOn          []string
	}
	var got []detail
	for _, tk := range p.Tasks() {
		got = append(got, detail{tk.ID, tk.Size, tk.Estimate, tk.DependsOn})
	}
	want := []detail{
		{"1.1", "M", "4h", nil},
		{"1.2", "S", "1h", []string{"1.1"}},
		{"1.3", "XL", "", []string{"1.1", "1-2"}},
		{"1.4", "", "3h", []string{"1-2", "1-3"}},
		{"1.5", "", "", nil},
		{"1.6", "", "", []string{"1.1", "1.2", "1.3", "1.5"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tasks\n got %+v\nwant %+v", got, want)
	}
	// Every dependency here is on a task of the same parallel phase: each
	// is honoured and warned, none ignored.
	if len(ws) != 9 || !strings.Contains(ws[0].Msg, "same parallel phase 1: 1.2 waits for it") {
		t.Errorf("warnings %v", ws)
	}
	if n := p.Task("1.6").Needs; len(n) != 4 || n[3] != p.Task("1.5") {
		t.Errorf("1.6 needs %v", n)
	}
	if m := p.Task("1.3").Meta; !reflect.DeepEqual(m, []string{"Task 1.1 (needs database models)", "Task 1-2 (same task, other spelling)", "[ ] 2.1 is not a dependency"}) {
		t.Errorf("meta %q", m)
	}

	_, ws, err := Parse("plan.md", []byte("## Phase 1: P (Parallel)\n### Task 1: A\n**Dependencies**: 0, 9\n- Task 7\n"))
	if err != nil || len(ws) != 2 || ws[0].Line != 3 || ws[0].Msg != "dependency 0 names no task of this plan" || ws[1].Line != 3 {
		t.Errorf("err %v warnings %v", err, ws)
	}
}

func TestChecklistTasks(t *testing.T) {
	src := strings.Join([]string{
		"## Phase 1: Foundation (sequential)",
		"- [ ] **Task 1.1**: Add types | repo: shared-lib | files: src/types.ts",
		"- [x] **Task 1.2:** Done already",
		"- [X] Task 1-3: Plain (M - 2h) | repo: a",
		"  - [ ] Task 1.4: Nested counts too",
		"- [ ] Task list: not a task",
		"- Task 1.9: no checkbox, not a task",
		"- [ ] plain item",
	}, "\n")
	p, _ := mustParse(t, src)
	want := []taskSummary{
		{"1.1", "Add types", "", "", 2, 1, []string{"repo: shared-lib", "files: src/types.ts"}},
		{"1.2", "Done already", "", "", 3, 1, nil},
		{"1-3", "Plain", "M", "2h", 4, 1, []string{"repo: a"}},
		{"1.4", "Nested counts too", "", "", 5, 1, nil},
	}
	if got := summarize(p); !reflect.DeepEqual(got, want) {
		t.Errorf("tasks:\n got %+v\nwant %+v", got, want)
	}

	// With task headings, checklist items are ordinary bullets.
	p, _ = mustParse(t, "## Phase 1: P (Parallel)\n- [ ] **Task 1.1**: early\n### Task 2: Real\n- [ ] **Task 1.2**: a bullet\n")
	if got := summarize(p); len(got) != 1 || got[0].ID != "2" || !reflect.DeepEqual(got[0].Meta, []string{"[ ] **Task 1.2**: a bullet"}) {
		t.Errorf("tasks %+v", got)
	}

	for _, c := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"outside a phase", "- [ ] **Task 1.1**: A\n## Phase 1: P\n", 1, "task 1.1 is outside any phase"},
		{"duplicate", "## Phase 1: P\n- [ ] Task 1.1: A\n- [ ] Task 1-1: B\n", 3, "duplicate task id 1-1 (first at line 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pe := parseErr(t, c.src)
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %v, want line %d %q", pe, c.line, c.msg)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	const body = "## Phase 1: P (Parallel)\n### Task 1: A\n"
	for _, c := range []struct {
		name, src string
		line      int
		ph        string
	}{
		{"phase heading", "## Phase {N}: {Phase Name}\n### Task 1: A\n", 1, "{N}"},
		{"task heading", "## Phase 1: P\n### Task {ID}: {Name}\n", 2, "{ID}"},
		{"task title", "## Phase 1: P\n### Task 1-1: {Task Name} (XS|S|M|L)\n", 2, "{Task Name}"},
		{"other heading", "# Implementation Plan: {Feature Name}\n" + body, 1, "{Feature Name}"},
		{"run id line", "**Run ID:** ${runId}\n" + body, 1, "${runId}"},
		{"run id braces", "Run ID: {run_id}\n" + body, 1, "{run_id}"},
		{"strategy", "## Phase 1: P\n**Strategy**: {sequential|parallel}\n### Task 1: A\n", 2, "{sequential|parallel}"},
		{"front matter", "---\nrunId: {RUN ID}\n---\n" + body, 2, "{RUN ID}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pe := parseErr(t, c.src)
			want := "template placeholder \"" + c.ph + "\" in the plan: fill it in"
			if pe.Line != c.line || pe.Msg != want {
				t.Errorf("got %v, want line %d %q", pe, c.line, want)
			}
		})
	}
	// Braces elsewhere are fine: in prose, in fences, in task bodies, and
	// braces around anything but a name.
	p, _ := mustParse(t, "Write to .worktrees/{runId}-main.\n```\n# {N}\n```\n## Phase 1: P (Parallel)\n### Task 1: Parse {\"a\": 1} and {}\n- files: {a,b}.go\n")
	if tk := p.Task("1"); tk == nil || tk.Title != `Parse {"a": 1} and {}` {
		t.Errorf("task %+v", tk)
	}
}

func TestPlaceholder(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{N}", "{N}"}, {"a {Feature Name} b", "{Feature Name}"}, {"{S|M|L}", "{S|M|L}"},
		{"${runId}", "${runId}"}, {"${a.b-c}", "${a.b-c}"}, {"x {a_b 1}", "{a_b 1}"},
		{"{", ""}, {"{}", ""}, {"{ }", ""}, {"{a:1}", ""}, {"{{", ""}, {"${", ""}, {"{a", ""},
		{"{[ids] or \"None\"}", ""}, {"{{N}}", "{N}"},
	}
	for _, c := range cases {
		got, ok := placeholder(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("placeholder(%q) = %q %v, want %q", c.in, got, ok, c.want)
		}
	}
}

func TestIDSpellings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1-1", "1.1"}, {"2.1", "2.1"}, {"4", "4"}, {"2-1-3", "2.1.3"}, {"1-2.3", "1-2.3"}, {"x", "x"}, {"", ""}, {"01", "01"},
	} {
		if got := CanonicalID(c.in); got != c.want {
			t.Errorf("CanonicalID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1-1", "1.1", true}, {"1.1", "1.1", true}, {"4", "4", true}, {"1-1", "1.1.1", false},
		{"1.1", "1.10", false}, {"", "", false}, {"x", "x", false}, {"1-2.3", "1-2.3", false},
	} {
		if got := SameTaskID(c.a, c.b); got != c.want {
			t.Errorf("SameTaskID(%q, %q) = %v", c.a, c.b, got)
		}
	}
	if DashedID("1-1") != "1-1" || DashedID("2.1") != "2-1" {
		t.Error("DashedID")
	}

	p, _ := mustParse(t, "## Phase 1: P (Parallel)\n### Task 1-1: A\n### Task 2.1: B\n")
	for _, c := range []struct{ id, want string }{{"1.1", "1-1"}, {"1-1", "1-1"}, {"2-1", "2.1"}, {"2.1", "2.1"}} {
		if tk := p.Task(c.id); tk == nil || tk.ID != c.want {
			t.Errorf("Task(%q) = %+v", c.id, tk)
		}
	}
	if p.Task("1.1.0") != nil || p.Task("1--1") != nil {
		t.Error("Task found an id the plan does not have")
	}
	if got := BranchName("r", p.Task("1.1")); got != "r-task-1-1-a" {
		t.Errorf("branch %q", got)
	}
}

func TestParseFiles(t *testing.T) {
	read := func(name string) File {
		return File{Path: "specs/5p1175-x/plan/" + name, Data: mustRead(t, filepath.Join("testdata/split", name))}
	}
	one, two := read("plan-phase1.md"), read("plan-phase2.md")
	p, ws, err := ParseFiles([]File{one, two})
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(p); got != "5p1175 | 1S:1,2 | 2P:3,4" {
		t.Errorf("shape %q", got)
	}
	if p.Path != one.Path || p.RunIDLine != 2 {
		t.Errorf("path %q run id line %d", p.Path, p.RunIDLine)
	}
	for _, tk := range p.Tasks() {
		want := one.Path
		if tk.Phase.Number == 2 {
			want = two.Path
		}
		if tk.Path != want || tk.Phase.Path != want {
			t.Errorf("task %s read from %q, phase from %q", tk.ID, tk.Path, tk.Phase.Path)
		}
	}
	if tk := p.Task("3"); tk == nil || tk.Line != 5 || !reflect.DeepEqual(tk.DependsOn, []string{"1", "2"}) {
		t.Errorf("task 3 %+v", tk)
	}
	// Dependencies are checked against the whole plan: only 7 is unknown
	// (and 3, honoured, is in 4's parallel phase).
	if len(ws) != 2 || ws[0].Path != two.Path || ws[0].Line != 11 || !strings.Contains(ws[0].Msg, "dependency 7") ||
		!strings.Contains(ws[1].Msg, "dependency 3 of task 4 is a task of the same parallel phase 2") {
		t.Errorf("warnings %v", ws)
	}

	file := func(path, src string) File { return File{Path: path, Data: []byte(src)} }
	for _, c := range []struct {
		name  string
		files []File
		path  string
		line  int
		msg   string
	}{
		{"duplicate phase", []File{one, file("b.md", "# Phase 1: Again\n## Task 9: x\n")}, "b.md", 1, "duplicate phase 1 (first at " + one.Path + ":5)"},
		{"duplicate task", []File{one, file("b.md", "# Phase 3: P\n## Task 2: x\n")}, "b.md", 2, "duplicate task id 2 (first at " + one.Path + ":13)"},
		{"duplicate task other spelling", []File{file("a.md", "# Phase 1\n## Task 1.1: x\n"), file("b.md", "# Phase 2\n## Task 1-1: y\n")}, "b.md", 2, "duplicate task id 1-1 (first at a.md:2)"},
		{"run ids differ", []File{one, file("b.md", "---\nrunId: other1\n---\n# Phase 3: P\n## Task 9: x\n")}, "b.md", 2, `run id "other1" differs from run id "5p1175" at ` + one.Path + ":2"},
		{"phase does not carry over", []File{one, file("b.md", "## Task 9: x\n")}, "b.md", 1, "task 9 is outside any phase"},
		{"empty", []File{file("a.md", "# Phase 1\n"), file("b.md", "# Phase 2\n")}, "a.md", 1, "empty plan"},
		{"none", nil, "", 0, "no plan file given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := ParseFiles(c.files)
			var pe *Error
			if !errors.As(err, &pe) || p != nil {
				t.Fatalf("err %v plan %v", err, p)
			}
			if pe.Path != c.path || pe.Line != c.line || pe.Msg != c.msg && !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %s:%d %q, want %s:%d %q", pe.Path, pe.Line, pe.Msg, c.path, c.line, c.msg)
			}
		})
	}

	// The same run id in two files is fine; the first one is kept.
	p, _, err = ParseFiles([]File{one, file("b.md", "Run ID: 5p1175\n# Phase 3: P\n## Task 9: x\n")})
	if err != nil || p.RunID != "5p1175" || p.RunIDLine != 2 {
		t.Errorf("err %v plan %+v", err, p)
	}
	// Parse is ParseFiles of one file.
	p1, _, err1 := Parse(one.Path, one.Data)
	p2, _, err2 := ParseFiles([]File{one})
	if err1 != nil || err2 != nil || shape(p1) != shape(p2) {
		t.Errorf("Parse %v %v, ParseFiles %v %v", p1, err1, p2, err2)
	}
}

func TestFrontMatterVersion(t *testing.T) {
	const body = "## Phase 1: P (Parallel)\n### Task 1: A\n"
	for _, c := range []struct{ name, src, constraint, source string }{
		{"key", "---\nrunId: ab12cd\ntaskresume-version: \">= 1.4, < 2\"\n---\n" + body, ">= 1.4, < 2", "plan.md:3"},
		{"bare version is a minimum", "---\ntaskresume-version: 1.4\n---\n" + body, ">= 1.4", "plan.md:2"},
		{"underscore, any case, comment", "---\nTaskResume_Version: '>=1.2'  # the team's floor\n---\n" + body, ">=1.2", "plan.md:2"},
		{"camel case", "---\ntaskresumeVersion: ^1.4\n---\n" + body, "^1.4", "plan.md:2"},
		{"none", "---\nrunId: ab12cd\n---\n" + body, "", ""},
		{"not front matter", "# Plan\n\ntaskresume-version: >= 9\n\n" + body, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := Parse("plan.md", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			var got, src string
			if p.Requires != nil {
				got, src = p.Requires.Constraint, p.Requires.Source
			}
			if got != c.constraint || src != c.source {
				t.Errorf("requires %q at %q, want %q at %q", got, src, c.constraint, c.source)
			}
		})
	}
	for _, c := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"not a constraint", "---\ntaskresume-version: latest\n---\n" + body, 2, `taskresume-version "latest" is not a version constraint`},
		{"empty", "---\ntaskresume-version: \"\"\n---\n" + body, 2, "taskresume-version is empty"},
		{"twice, differing", "---\ntaskresume-version: 1.4\ntaskresume_version: 1.5\n---\n" + body, 3, `differs from ">= 1.4" at line 2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pe := parseErr(t, c.src)
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) || strings.Contains(pe.Error(), "\n") {
				t.Errorf("got %v, want line %d %q on one line", pe, c.line, c.msg)
			}
		})
	}
}
