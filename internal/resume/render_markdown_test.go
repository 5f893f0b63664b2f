package resume

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// nasty holds every character a title may bring that Markdown or Mermaid
// would read as syntax.
const nasty = "a|b `c` <d> \"e\" 'f' #g; #quot; &amp; %%{init: {}}%% *h* _i_ [j](k) ![l] ~m~ \\n end\tx\ny\x01z\u2028w"

func TestMermaidLabel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Create database schema", "Create database schema"},
		{`say "hi"`, "say #quot;hi#quot;"},
		{"a<b>c", "a#60;b#62;c"},
		{"a|b", "a#124;b"},
		{"`code`", "#96;code#96;"},
		{"#quot; stays text", "#35;quot; stays text"},
		{"&amp;", "#38;amp;"},
		{"%%{init: {'theme':'dark'}}%%", "#37;#37;{init: {'theme':'dark'}}#37;#37;"},
		{"end", "end"},
		{"line\nbreak\r\tand\x00nul", "line break  and nul"},
		{"para\u2028sep\u2029", "para sep "},
		{"ünïcode ✓ 日本", "ünïcode ✓ 日本"},
		{"a: b", "a: b"},
		{"style x fill:#f00", "style x fill#58;#35;f00"},
		{"classDef: #quot;", "classDef#58; #35;quot;"},
		{"$$\\frac{$$ and $5", "$\u2060$\\frac{$\u2060$ and $5"},
		{"$$$", "$\u2060$\u2060$"},
	} {
		if got := mermaidLabel(c.in); got != c.want {
			t.Errorf("mermaidLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMarkdownText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Create database schema", "Create database schema"},
		{"a|b", `a\|b`},
		{"`code`", "\\`code\\`"},
		{"<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"},
		{"&amp;", "&amp;amp;"},
		{"*bold* _it_ ~del~", `\*bold\* \_it\_ \~del\~`},
		{"[link](http://x) ![img](y)", `\[link\](http://x) \!\[img\](y)`},
		{`back\slash`, `back\\slash`},
		{"heading #", `heading \#`},
		{"$\\color{red}{x}$ costs $5", `\$\\color{red}{x}\$ costs \$5`},
		{"two\nlines\r\tand\x1bESC", "two lines  and ESC"},
		{"ünïcode ✓", "ünïcode ✓"},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"x1y2z3-task-1-1-setup", "`x1y2z3-task-1-1-setup`"},
		{"git taskclean --run r1 --base 'a|b'", "`git taskclean --run r1 --base 'a|b'`"},
		{"run-task-1-1-a`b", "run-task-1-1-a\\`b"},
		{"a\tb", "a b"},
		{"", ""},
	} {
		if got := mdCode(c.in); got != c.want {
			t.Errorf("mdCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// In a table cell '|' is escaped: it would end the cell.
	for _, c := range []struct{ in, want string }{
		{"run-task-1-1-a|b", "`run-task-1-1-a\\|b`"},
		{"run-task-1-1-a`b", "run-task-1-1-a\\`b"},
	} {
		if got := mdCodeCell(c.in); got != c.want {
			t.Errorf("mdCodeCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMermaidIDs(t *testing.T) {
	ids := mermaidIDs{}
	for _, c := range []struct{ in, want string }{
		{"t1.2", "t1_2"}, {"t1-2", "t1_2_2"}, {"t1.2", "t1_2_3"}, {"p1", "p1"}, {"tend", "tend"}, {"t<x>", "t_x_"},
	} {
		if got := ids.make(c.in); got != c.want {
			t.Errorf("make(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The document keeps its shape whatever the titles hold: every table row
// has five cells, every Mermaid line is one statement of the forms
// written here, node ids are the generated ones, and the phases and the
// plan's dependencies are drawn.
func TestRenderMarkdownShape(t *testing.T) {
	branch := "r1-task-1-1-a|b"
	rep := &Report{RunID: "r1", Status: RunInProgress, Plan: new(string), CompletedTasks: 1, TotalTasks: 3,
		PhasesTotal: 2, Base: BaseRef{Ref: "main", Commit: "0123456789abcdef"},
		Phases: []Phase{
			{Number: 1, Name: nasty, Mode: ModeSequential, Status: PhaseCompleted, Tasks: []*Task{
				{ID: "1.1", Title: nasty, Status: TaskCompleted, Branch: &branch, OwnCommits: 1},
			}},
			{Number: 2, Name: "end", Mode: ModeParallel, Status: PhaseInProgress, Tasks: []*Task{
				{ID: "2.1", Title: "end", Status: TaskPending, Runnable: true, DependsOn: []string{"1-1"}},
				{ID: "2.2", Title: "x", Status: TaskInterrupted, Interrupted: &Interruption{Why: nasty},
					DependsOn: []string{"1.1", "2.1", "9.9"}},
			}},
		},
		Resume:   &Resume{Phase: 2, Mode: ModeParallel, Kind: ResumeMidPhase, Tasks: []string{"2.1"}},
		Problems: []Problem{{Kind: ProblemKind("plan_doubt"), Message: nasty}},
	}
	var b bytes.Buffer
	RenderMarkdown(&b, rep, "")
	doc := b.String()
	before, graph, ok := strings.Cut(doc, "\n```mermaid\n")
	if !ok || !strings.HasSuffix(graph, "\n```\n") {
		t.Fatalf("no Mermaid block at the end:\n%s", doc)
	}
	graph = strings.TrimSuffix(graph, "```\n")
	cellSep := regexp.MustCompile(`(^|[^\\])\|`)
	rows := 0
	for _, line := range strings.Split(before, "\n") {
		if strings.HasPrefix(line, "|") {
			rows++
			// Four separators inside the row: the cells' own | are escaped.
			if n := len(cellSep.FindAllString(line[1:len(line)-1], -1)); n != 4 {
				t.Errorf("table row with %d cell separators, want 4: %s", n+1, line)
			}
		} else if strings.Contains(line, "\x01") || strings.Contains(line, "<d>") {
			t.Errorf("unescaped title text: %q", line)
		}
	}
	if rows != 2*2+3 {
		t.Errorf("%d table rows, want 7 (two headers and separators, three tasks):\n%s", rows, before)
	}
	statement := regexp.MustCompile(`^(flowchart TB|  classDef [a-z]+ [a-z0-9:#,-]+|  subgraph p[0-9_]+\["[^"]*"\]|    direction TB|` +
		`    t[0-9_]+\["[^"]*<br/>[a-z, ]+"\]:::[a-z]+|  end|  p[0-9_]+ -\.-> p[0-9_]+|  t[0-9_]+ --> t[0-9_]+|  class [t0-9_,]+ next)$`)
	for _, line := range strings.Split(strings.TrimSuffix(graph, "\n"), "\n") {
		if !statement.MatchString(line) {
			t.Errorf("Mermaid line not of a form written here: %q", line)
		}
		for _, label := range regexp.MustCompile(`"[^"]*"`).FindAllString(line, -1) {
			if strings.ContainsAny(strings.Replace(label, "<br/>", "", 1), "`<>|%\x01\n") {
				t.Errorf("Mermaid label holds an unescaped character: %q", label)
			}
		}
	}
	for _, want := range []string{"  p1 -.-> p2\n", "  t1_1 --> t2_1\n", "  t1_1 --> t2_2\n", "  t2_1 --> t2_2\n",
		"  class t2_1 next\n", `t2_1["2.1 end<br/>pending, runs next"]:::pending`, `subgraph p2["Phase 2: end (parallel): in_progress"]`} {
		if !strings.Contains(graph, want) {
			t.Errorf("graph lacks %q:\n%s", want, graph)
		}
	}
	if strings.Contains(graph, "9_9") {
		t.Errorf("graph draws a dependency on a task the plan lacks:\n%s", graph)
	}
}
