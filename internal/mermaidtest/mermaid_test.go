package mermaidtest

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// defaultMMDC is where .ci/run installs mmdc, under the HOME the tests
// were started with (testbin.Main gives them another).
var defaultMMDC string

func TestMain(m *testing.M) {
	if home, err := os.UserHomeDir(); err == nil {
		defaultMMDC = filepath.Join(home, ".cache", "taskresume-mmdc", "node_modules", ".bin", "mmdc")
	}
	os.Exit(testbin.Main(m, testbin.Options{Date: "2026-01-01T00:00:00Z"}))
}

// browsers are the names a system Chromium goes by: Debian's, Ubuntu's,
// Google's (a GitHub runner has the last).
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// renderer finds mmdc ($TASKRESUME_MMDC, else where .ci/run installs it)
// and a Chromium ($TASKRESUME_CHROMIUM, else one on PATH). Where either is
// missing the test is skipped, but not in CI on Linux, where .ci/run
// installs both: a CI that silently skipped the renderer would prove
// nothing.
func renderer(t *testing.T) (mmdc, browser string) {
	t.Helper()
	if runtime.GOOS == "darwin" {
		t.Skip("macOS: the Mermaid graph is rendered on Linux only, where .ci/run installs mmdc and Debian's chromium; " +
			"the macOS job has neither, and the graph's text does not depend on the platform")
	}
	var missing []string
	mmdc = os.Getenv("TASKRESUME_MMDC")
	if mmdc == "" {
		mmdc = defaultMMDC
	}
	if st, err := os.Stat(mmdc); mmdc == "" || err != nil || st.IsDir() {
		missing = append(missing, fmt.Sprintf("no mmdc (TASKRESUME_MMDC, or %s)", defaultMMDC))
	}
	if browser = os.Getenv("TASKRESUME_CHROMIUM"); browser != "" {
		if _, err := os.Stat(browser); err != nil {
			browser = ""
		}
	} else {
		for _, b := range browsers {
			if p, err := exec.LookPath(b); err == nil {
				browser = p
				break
			}
		}
	}
	if browser == "" {
		missing = append(missing, "no Chromium (TASKRESUME_CHROMIUM, or "+strings.Join(browsers, ", ")+" on PATH)")
	}
	if len(missing) > 0 {
		why := strings.Join(missing, " and ")
		if os.Getenv("CI") != "" && runtime.GOOS == "linux" {
			t.Fatalf("CI is set on Linux but there is %s: .ci/run installs both", why)
		}
		t.Skipf("%s: the Mermaid graph is not rendered here (.ci/run installs both on Linux)", why)
	}
	return mmdc, browser
}

// render draws graph (Mermaid text) to SVG with mmdc in browser, the
// browser told never to reach the network, and returns the SVG.
func render(t *testing.T, mmdc, browser, graph string) string {
	t.Helper()
	dir := t.TempDir()
	// puppeteer's own options: the system browser, no sandbox (CI runs as
	// root or in a container), nothing fetched in the background.
	config := fmt.Sprintf(`{"executablePath": %q, "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking", `+
		`"--disable-component-update", "--no-first-run"]}`, browser)
	testbin.WriteFile(t, filepath.Join(dir, "puppeteer.json"), config)
	testbin.WriteFile(t, filepath.Join(dir, "graph.mmd"), graph)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mmdc, "-q", "-p", filepath.Join(dir, "puppeteer.json"),
		"-i", filepath.Join(dir, "graph.mmd"), "-o", filepath.Join(dir, "graph.svg"))
	cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mmdc: %v\n%s\ngraph:\n%s", err, out, graph)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "graph.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return string(svg)
}

// mermaidBlock is the Mermaid text of a Markdown document's one
// ```mermaid block.
func mermaidBlock(t *testing.T, md string) string {
	t.Helper()
	_, block, ok := strings.Cut(md, "\n```mermaid\n")
	if !ok {
		t.Fatalf("no ```mermaid block in:\n%s", md)
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatalf("the ```mermaid block does not end:\n%s", md)
	}
	return block + "\n"
}

// nodeLabels are the text of the task nodes' labels in an SVG mmdc drew,
// by node id (t1_2), a line break as "\n", read as the XML it is.
func nodeLabels(t *testing.T, svg string) map[string]string {
	t.Helper()
	nodeID := regexp.MustCompile(`-flowchart-(t[0-9_]+)-[0-9]+$`)
	attr := func(e xml.StartElement, name string) string {
		for _, a := range e.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	labels := map[string]string{}
	dec := xml.NewDecoder(strings.NewReader(svg))
	var node string
	var text strings.Builder
	depth, nodeDepth, labelDepth := 0, -1, -1
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			class := " " + attr(e, "class") + " "
			switch {
			case e.Name.Local == "g" && strings.HasPrefix(class, " node "):
				if m := nodeID.FindStringSubmatch(attr(e, "id")); m != nil {
					node, nodeDepth = m[1], depth
				}
			case node != "" && e.Name.Local == "span" && strings.Contains(class, " nodeLabel "):
				labelDepth = depth
				text.Reset()
			case labelDepth >= 0 && e.Name.Local == "br":
				text.WriteString("\n")
			}
		case xml.CharData:
			if labelDepth >= 0 {
				text.Write(e)
			}
		case xml.EndElement:
			switch depth {
			case labelDepth:
				labels[node], labelDepth = text.String(), -1
			case nodeDepth:
				node, nodeDepth = "", -1
			}
			depth--
		}
	}
	return labels
}

// checkLabels asserts the SVG draws one node a task, each labelled with
// its id, then its title as written (control characters as spaces, as
// the Markdown gives them), then on a line of its own its status.
func checkLabels(t *testing.T, svg string, tasks []task) {
	t.Helper()
	labels := nodeLabels(t, svg)
	if len(labels) != len(tasks) {
		t.Errorf("the SVG draws %d task nodes, want %d", len(labels), len(tasks))
	}
	for _, tk := range tasks {
		id := "t" + strings.ReplaceAll(tk.id, ".", "_")
		got, ok := labels[id]
		if !ok {
			t.Errorf("the SVG has no node %s for task %s", id, tk.id)
			continue
		}
		title := strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				return ' '
			}
			return r
		}, tk.title)
		// Two '$' side by side are drawn with a word joiner between them
		// (no KaTeX math), which shows nothing.
		got = strings.ReplaceAll(got, "\u2060", "")
		if want := tk.id + " " + title + "\n" + tk.status; got != want {
			t.Errorf("task %s: the SVG's label is\n  %q\nwant\n  %q", tk.id, got, want)
		}
	}
}

// task is what the graph must show of one task.
type task struct{ id, title, status string }

// TestMermaidRendersTheDemo: the graph of the crash examples/demo.sh
// --keep leaves (the README's getting started) renders, with every task;
// the picture committed for the README is that graph.
func TestMermaidRendersTheDemo(t *testing.T) {
	mmdc, browser := renderer(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	r := testbin.Must(t, testbin.Run(root, nil, filepath.Join(root, "examples", "demo.sh"), "--keep"))
	m := regexp.MustCompile(`(?m)^repository kept at ([^\s,]+)`).FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("demo.sh --keep does not say where it kept the repository:\n%s", r.Stdout)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(m[1])) })
	md := testbin.Must(t, testbin.Taskresume(m[1], nil, "x1y2z3", "--format", "markdown")).Stdout
	svg := render(t, mmdc, browser, mermaidBlock(t, md))
	checkLabels(t, svg, []task{
		{"1.1", "Create database schema", "completed"}, {"1.2", "Install dependencies", "completed"},
		{"2.1", "User service", "completed"}, {"2.2", "Product service", "pending, runs next"},
		{"2.3", "Order service", "pending, runs next"},
		{"3.1", "API integration tests", "pending"}, {"3.2", "E2E tests", "pending"},
	})
	committed, err := os.ReadFile(filepath.Join(root, "docs", "run-graph.svg"))
	if err != nil {
		t.Fatalf("the README's picture of the demo run: %v", err)
	}
	if got, want := nodeLabels(t, string(committed)), nodeLabels(t, svg); !maps.Equal(got, want) {
		t.Errorf("docs/run-graph.svg is not the demo's graph as git taskresume draws it now: labels\n%q\nwant\n%q\n"+
			"Redraw it: in the repository examples/demo.sh --keep leaves, git taskresume x1y2z3 --format markdown "+
			"| sed -n '/^```mermaid$/,/^```$/{//!p;}' > run-graph.mmd, then mmdc -p PUPPETEER_JSON -i run-graph.mmd "+
			"-o docs/run-graph.svg -b white", got, want)
	}
}

// titles hold every character Markdown or Mermaid reads as syntax, the
// word end alone and in company, control characters and a line
// separator, and text Mermaid would take for statements.
var titles = []string{
	"Pipe | in a cell", "`backticks` and ``double``", "<script>alert(1)</script>", "a > b < c",
	`"double" and 'single' quotes`, "end", "the end", "end end", "#quot; #35; &amp; &lt; entities",
	`%%{init: {"theme": "dark"}}%% directive`, "tab\there", "bell\x07 soh\x01 del\x7f nel\u0085",
	"line\u2028separator", "*bold* _it_ [link](x) ![i](y) ~del~", `back\slash`, "semi; colon: comma,",
	"{a: 1} (paren) [square]", "--> arrow -.-> ==> A-->B", "subgraph", "click t1_1 call x()",
	"style t1_1 fill:#f00", "classDef x fill:#f00", "ünïcode ✓ 日本語 😀",
	`math $$\frac{$$ and $$x^2$$, $5 $$$`,
}

// TestMermaidRendersEveryCharacter: a 51-task run in 11 phases, every
// title of the list above (and its phase names, and their dependencies)
// renders, and each node shows its title as written.
func TestMermaidRendersEveryCharacter(t *testing.T) {
	mmdc, browser := renderer(t)
	const run, n = "c0ffee", 51
	dir := testbin.TempDir(t)
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan\n\nRun ID: %s\n", run)
	var tasks []task
	for i := 0; i < n; i++ {
		phase, k := i/5+1, i%5+1
		if k == 1 {
			fmt.Fprintf(&b, "\n## Phase %d: %s (Parallel)\n", phase, strings.Map(func(r rune) rune {
				if unicode.IsControl(r) || r == '\u2028' {
					return -1 // a heading ends at a line break
				}
				return r
			}, titles[(phase*7)%len(titles)]))
		}
		id := fmt.Sprintf("%d.%d", phase, k)
		title := titles[i%len(titles)]
		fmt.Fprintf(&b, "\n### Task %s: %s\n", id, title)
		if phase > 1 {
			fmt.Fprintf(&b, "\n**Dependencies**: %d.%d, %d-%d\n", phase-1, k, phase-1, (k%5)+1)
		}
		tasks = append(tasks, task{id, title, "pending"})
	}
	testbin.Git(t, "", "init", "-q", "-b", "main", dir)
	testbin.WriteFile(t, filepath.Join(dir, "specs", run, "plan.md"), b.String())
	testbin.Git(t, dir, "add", "-A")
	testbin.Git(t, dir, "commit", "-q", "-m", "plan")
	testbin.Git(t, dir, "branch", run+"-main")
	// Phases 1 and 2 done (their branches named from the titles, as an
	// orchestrator names them), one task of phase 3 empty: three classes.
	from := run + "-main"
	for i := 0; i < 10; i++ {
		from = testbin.Finish(t, dir, run, tasks[i].id, plan.Slug(tasks[i].title), from)
		tasks[i].status = "completed"
	}
	testbin.Git(t, dir, "branch", run+"-task-3-1-"+plan.Slug(tasks[10].title), from)
	tasks[10].status = "empty"
	for i := 10; i < 15; i++ {
		tasks[i].status += ", runs next"
	}
	if n := len(strings.Split(testbin.Git(t, dir, "branch", "--list", run+"-task-*"), "\n")); n != 11 {
		t.Fatalf("%d task branches, want 11", n)
	}
	md := testbin.Must(t, testbin.Taskresume(dir, nil, run, "--format", "markdown")).Stdout
	graph := mermaidBlock(t, md)
	for _, want := range []string{"  t10_1 --> t11_1\n", "  t10_2 --> t11_1\n", "  p10 -.-> p11\n"} {
		if !strings.Contains(graph, want) {
			t.Errorf("the graph lacks %q:\n%s", want, graph)
		}
	}
	svg := render(t, mmdc, browser, graph)
	checkLabels(t, svg, tasks)
	// 46 tasks with two dependencies each, and the 10 arrows between phases.
	if edges := len(regexp.MustCompile(`<path [^>]*class="[^"]*flowchart-link`).FindAllString(svg, -1)); edges != 46*2+10 {
		t.Errorf("the SVG draws %d arrows, want 102", edges)
	}
	if next := len(regexp.MustCompile(`<g class="node [^"]* next"`).FindAllString(svg, -1)); next != 5 {
		t.Errorf("the SVG draws %d tasks as running next, want phase 3's 5", next)
	}
}
