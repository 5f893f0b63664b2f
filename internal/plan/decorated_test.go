package plan

import (
	"errors"
	"strings"
	"testing"
)

// A task written in a way the parser did not expect must never vanish: a
// missing task makes an unfinished run look complete. Each case was found
// by an adversary.

func TestChecklistTasksInAPhaseWithoutHeadings(t *testing.T) {
	p, _ := mustParse(t, strings.Join([]string{
		"- [ ] **Task 9.9**: an overview item before any phase, not a task",
		"## Phase 1: Setup (Sequential)",
		"### Task 1.1: First",
		"- [ ] **Task 1.9**: an acceptance criterion under a task heading, not a task",
		"## Phase 2: Core (Parallel)",
		"- [ ] **Task 2.1**: Build the API",
		"- [x] **Task 2.2**: Build the UI",
	}, "\n"))
	var ids []string
	for _, tk := range p.Tasks() {
		ids = append(ids, tk.ID+"@"+string(rune('0'+tk.Phase.Number)))
	}
	if got := strings.Join(ids, " "); got != "1.1@1 2.1@2 2.2@2" {
		t.Errorf("tasks %s, want 1.1 in phase 1, 2.1 and 2.2 in phase 2", got)
	}
}

func TestDecoratedHeadings(t *testing.T) {
	p, _ := mustParse(t, strings.Join([]string{
		"## Phase 1: Setup (Sequential)",
		"### Task 1.1: First",
		"### 🚧 Task 1.2: Second (in progress)",
		"### **Task 1.3: Third**",
		"### 4. Task 1.4: Fourth",
		"### ✅ Task 1.5 - Fifth",
		"## 🚀 Phase 2: Core (Parallel)",
		"### Task 2.1: A",
		"### 📋 Overview of the work", // decoration before prose stays prose
		"### 2. Testing notes",
	}, "\n"))
	var got []string
	for _, tk := range p.Tasks() {
		got = append(got, tk.ID+"="+tk.Title)
	}
	want := "1.1=First 1.2=Second (in progress) 1.3=Third 1.4=Fourth 1.5=Fifth 2.1=A"
	if strings.Join(got, " ") != want {
		t.Errorf("tasks %q,\nwant %q", strings.Join(got, " "), want)
	}
	if len(p.Phases) != 2 || p.Phases[1].Mode != Parallel || p.Phases[1].Tasks[0].ID != "2.1" {
		t.Errorf("phase 2 not read from its decorated heading: %+v", p.Phases)
	}
}

func TestDecoratedOrGluedHeadingErrors(t *testing.T) {
	for src, want := range map[string]string{
		"## Phase 1: A (Sequential)\n### Task 1.1: x\n###Task 1.2: no space\n":      `plan.md:3: "###Task 1.2: no space" is not a heading`,
		"## Phase 1: A (Sequential)\n### Task 1.1: x\n##Phase 2: glued\n":           `plan.md:3: "##Phase 2: glued" is not a heading`,
		"## Phase 1: A (Sequential)\n### Task 1.1: x\n### 🚧 Task 1.2 no colon\n":    "plan.md:3: malformed task heading",
		"## Phase 1: A (Sequential)\n### Task 1.1: x\n### **Taks 1.2: Second**\n":   `plan.md:3: heading "**Taks 1.2: Second**" starts with`,
		"## Phase 1: A (Sequential)\n### Task 1.1: x\n## 🚀 Phase 2 Core (Parallel)": "plan.md:3: malformed phase heading",
	} {
		_, _, err := Parse("plan.md", []byte(src))
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", src, err, want)
		}
	}
}

func TestPlanSizeCap(t *testing.T) {
	big := "## Phase 1: A (Sequential)\n### Task 1.1: x\n" + strings.Repeat("word ", maxPlanSize/5+1)
	_, _, err := Parse("plan.md", []byte(big))
	if err == nil || !strings.Contains(err.Error(), "plan.md:1: plan is 16.0 MiB; a plan over 16 MiB is refused") {
		t.Errorf("Parse of a %d-byte plan: %v", len(big), err)
	}
	parts := []File{{"a.md", []byte("# Phase 1: A\n## Task 1: x\n" + strings.Repeat("w", maxPlanSize/2))},
		{"b.md", []byte("# Phase 2: B\n## Task 2: y\n" + strings.Repeat("w", maxPlanSize/2))}}
	if _, _, err := ParseFiles(parts); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("ParseFiles of a split plan over the cap: %v", err)
	}
}

func TestPathTemplatesAndYAMLComments(t *testing.T) {
	p, _ := mustParse(t, "---\nrunId: a1b2c3   # set by the orchestrator\n---\n## Phase 1: API (Parallel)\n### Task 1.1: GET /users/{id} endpoint\n### Task 1.2: Map x{i} to y{i}\n")
	if p.RunID != "a1b2c3" || len(p.Tasks()) != 2 || p.Tasks()[0].Title != "GET /users/{id} endpoint" {
		t.Errorf("run %q, tasks %+v", p.RunID, p.Tasks())
	}
	q, _ := mustParse(t, "---\nrunId: \"b2c3d4\" # quoted, then a comment\n---\n## Phase 1: A (Parallel)\n### Task 1.1: x\n")
	if q.RunID != "b2c3d4" {
		t.Errorf("quoted run id with a comment: %q", q.RunID)
	}
	for _, src := range []string{
		"## Phase 1: {Phase Name} (Parallel)\n### Task 1.1: x\n",
		"## Phase 1: A (Parallel)\n### Task 1.1: Add {Feature Name}\n",
		"**Run ID:** ${runId}\n## Phase 1: A (Parallel)\n### Task 1.1: x\n",
		"## Phase 1: A (Parallel)\n### Task {ID}: {Name}\n",
	} {
		if _, _, err := Parse("plan.md", []byte(src)); err == nil || !strings.Contains(err.Error(), "placeholder") {
			t.Errorf("Parse(%q) = %v; want a template placeholder error", src, err)
		}
	}
}

func TestDashesAtTheTopAreNotAlwaysFrontMatter(t *testing.T) {
	p, _ := mustParse(t, "---\n## Phase 1: Setup (Sequential)\n### Task 1.1: First\n---\n## Phase 2: Core (Parallel)\n### Task 2.1: Second\n")
	if len(p.Phases) != 2 || len(p.Tasks()) != 2 {
		t.Errorf("phases %d, tasks %d; want 2 and 2 (the first block is the plan, not front matter)", len(p.Phases), len(p.Tasks()))
	}
	q, _ := mustParse(t, "---\n# a YAML comment\nrunId: c0ffee\n---\n## Phase 1: A (Parallel)\n### Task 1.1: x\n")
	if q.RunID != "c0ffee" || len(q.Tasks()) != 1 {
		t.Errorf("front matter with a YAML comment: run %q, tasks %d", q.RunID, len(q.Tasks()))
	}
}

func TestHTMLCommentsHideHeadings(t *testing.T) {
	p, ws := mustParse(t, "## Phase 1: A (Parallel)\n### Task 1.1: kept\n<!--\n### Task 1.2: dropped from the plan\n-->\n<!-- ### Task 1.3: one line -->\n### Task 1.4: kept too\n<!-- open\n### Task 1.5: never closed\n")
	var ids []string
	for _, tk := range p.Tasks() {
		ids = append(ids, tk.ID)
	}
	if strings.Join(ids, " ") != "1.1 1.4" {
		t.Errorf("tasks %v, want 1.1 1.4", ids)
	}
	if len(ws) != 1 || !strings.Contains(ws[0].String(), "plan.md:8: HTML comment is never closed") {
		t.Errorf("warnings %v", ws)
	}
}

func TestEmAndEnDashes(t *testing.T) {
	p, _ := mustParse(t, "## Phase 1 \u2014 Setup\n\n**Strategy**: parallel\n\n### Task 1.1 \u2013 Schema\n### Task 1.2 \u2014 Service (M)\n")
	if len(p.Phases) != 1 || p.Phases[0].Title != "Setup" || p.Phases[0].Mode != Parallel {
		t.Fatalf("phases %+v", p.Phases)
	}
	if tk := p.Tasks(); len(tk) != 2 || tk[0].Title != "Schema" || tk[1].Title != "Service" || tk[1].Size != "M" {
		t.Errorf("tasks %+v %+v", tk[0], tk[1])
	}
}
