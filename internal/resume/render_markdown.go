package resume

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// RenderMarkdown writes the report as one Markdown document, for a pull
// request or a CI job's summary page (--format markdown): the report's
// first line as a heading, where the run resumes, a table a phase (id,
// title, status, branch and the notes the report gives), the problems and
// stale worktrees, and a Mermaid flowchart of the phases, their tasks and
// the plan's dependencies, coloured by status, which GitHub draws. Every
// text that comes from the plan or the repository is escaped for where it
// goes: a title can hold anything a Markdown heading line can.
func RenderMarkdown(w io.Writer, rep *Report, rel string) {
	r := &renderer{w: w, rep: rep, rel: rel}
	// Statuses and problem kinds are written as they are: words of
	// lowercase letters and underscores within a word, which Markdown
	// reads as text.
	fmt.Fprintf(w, "## %s\n\n", runLine(rep, mdText(rep.RunID), string(rep.Status)))
	if n := rep.versionNote(); n != "" {
		fmt.Fprintf(w, "> **%s**\n\n", mdText(n))
	}
	if rep.Plan != nil {
		fmt.Fprintf(w, "Plan %s, base %s (%s).\n\n", mdCode(*rep.Plan), mdCode(rep.Base.Ref), ui.Short(rep.Base.Commit))
	} else {
		fmt.Fprintf(w, "Base %s (%s).\n\n", mdCode(rep.Base.Ref), ui.Short(rep.Base.Commit))
	}
	fmt.Fprintf(w, "**%s**\n", mdText(resumeLine(rep)))
	for _, ph := range rep.Phases {
		fmt.Fprintf(w, "\n### %s: %s\n\n", phaseTitle(ph, mdText(ph.Name)), ph.Status)
		fmt.Fprintln(w, "| Task | Title | Status | Branch | Notes |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
		for _, t := range ph.Tasks {
			branch := ""
			if t.Branch != nil {
				branch = mdCodeCell(*t.Branch)
			}
			var notes []string
			for _, n := range r.markdownNotes(t) {
				notes = append(notes, mdText(n))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdText(t.ID), mdText(t.Title), t.Status, branch, strings.Join(notes, "; "))
		}
	}
	problems := rep.problemsButStale()
	if len(problems) > 0 {
		fmt.Fprintln(w, "\nProblems:")
		fmt.Fprintln(w)
		for _, p := range problems {
			fmt.Fprintf(w, "- %s: %s\n", p.Kind, mdText(p.Message))
		}
	}
	if len(rep.StaleWorktrees) > 0 {
		fmt.Fprintf(w, "\n%s: %s\n", staleText(len(rep.StaleWorktrees)), mdCode(rep.CleanCommand))
	}
	if hs := rep.Hints(); len(hs) > 0 {
		fmt.Fprintln(w)
		for _, h := range hs {
			fmt.Fprintf(w, "- hint: %s\n", mdText(h))
		}
	}
	if len(rep.Phases) > 0 {
		fmt.Fprintln(w, "\n```mermaid")
		writeMermaid(w, rep)
		fmt.Fprintln(w, "```")
	}
}

// markdownNotes are what the report says of a task beside its status and
// branch, as the human report words them: whether it runs next, its
// branch's commits, how it landed, its other branches, its claim, why it
// was interrupted and its worktree. Not yet escaped.
func (r *renderer) markdownNotes(t *Task) []string {
	var notes []string
	if t.Runnable {
		notes = append(notes, "runs next")
	}
	if t.Branch != nil {
		notes = append(notes, branchNote(t))
	}
	notes = append(notes, taskNotes(t)...)
	if t.Interrupted != nil {
		notes = append(notes, "interrupted: "+ui.Display(t.Interrupted.Why))
	}
	if t.Worktree != nil {
		notes = append(notes, "worktree "+r.path(t.Worktree.Path)+": "+describeWorktree(t.Worktree))
	}
	return notes
}

// mermaidClasses colour the task nodes by status, one class a status (the
// class is the status's name), with dark text on every fill so that the
// graph reads on GitHub's light and dark themes alike; "next" thickens the
// border of the tasks that run next.
var mermaidClasses = []struct{ name, style string }{
	{string(TaskCompleted), "fill:#c3f0c8,stroke:#2b8a3e,color:#111"},
	{string(TaskLanded), "fill:#cfe2ff,stroke:#1864ab,color:#111"},
	{string(TaskInterrupted), "fill:#ffd8a8,stroke:#d9480f,color:#111"},
	{string(TaskEmpty), "fill:#fff3bf,stroke:#e67700,color:#111"},
	{string(TaskPending), "fill:#f1f3f5,stroke:#868e96,color:#111"},
	{"next", "stroke-width:3px"},
}

// writeMermaid writes the flowchart: a subgraph a phase (the phases
// joined in their order by dotted arrows), a node a task labelled with its
// id, title and status, and an arrow from each task a task depends on
// (the plan's Dependencies lines; an id the plan lacks draws nothing).
// Node and subgraph ids are made here (t1_2, p1), never taken from the
// plan, so no title can be read as Mermaid syntax or as the keyword end.
func writeMermaid(w io.Writer, rep *Report) {
	fmt.Fprintln(w, "flowchart TB")
	for _, c := range mermaidClasses {
		fmt.Fprintf(w, "  classDef %s %s\n", c.name, c.style)
	}
	ids := mermaidIDs{}
	node := map[string]string{} // canonical task id -> node id
	var phases, next []string
	for _, ph := range rep.Phases {
		pid := ids.make("p" + strconv.Itoa(ph.Number))
		phases = append(phases, pid)
		// Its tasks side by side: a subgraph is otherwise laid out across
		// the graph's direction, one task under another.
		fmt.Fprintf(w, "  subgraph %s[\"%s\"]\n    direction TB\n", pid, mermaidLabel(phaseTitle(ph, ph.Name)+": "+string(ph.Status)))
		for _, t := range ph.Tasks {
			nid := ids.make("t" + t.ID)
			node[plan.CanonicalID(t.ID)] = nid
			status := string(t.Status)
			if t.Runnable {
				next = append(next, nid)
				status += ", runs next"
			}
			fmt.Fprintf(w, "    %s[\"%s<br/>%s\"]:::%s\n", nid, mermaidLabel(t.ID+" "+t.Title), status, t.Status)
		}
		fmt.Fprintln(w, "  end")
	}
	for i := 1; i < len(phases); i++ {
		fmt.Fprintf(w, "  %s -.-> %s\n", phases[i-1], phases[i])
	}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			for _, d := range t.DependsOn {
				if from, ok := node[plan.CanonicalID(d)]; ok {
					fmt.Fprintf(w, "  %s --> %s\n", from, node[plan.CanonicalID(t.ID)])
				}
			}
		}
	}
	if len(next) > 0 {
		fmt.Fprintf(w, "  class %s next\n", strings.Join(next, ","))
	}
}

// mermaidIDs makes node ids: letters, digits and underscores only, each
// used once.
type mermaidIDs map[string]bool

var notIDChar = regexp.MustCompile(`[^A-Za-z0-9]`)

// make turns want into an unused id: "t1.2" becomes t1_2, a second t1_2
// becomes t1_2_2.
func (m mermaidIDs) make(want string) string {
	base := notIDChar.ReplaceAllString(want, "_")
	id := base
	for n := 2; m[id]; n++ {
		id = base + "_" + strconv.Itoa(n)
	}
	m[id] = true
	return id
}

// mermaidLabel makes s safe inside a quoted Mermaid label: the quote that
// would end it, '#' that starts Mermaid's own entity codes, '<', '>' and
// '&' that it would read as HTML, '`' that starts a Markdown label, '|'
// that delimits edge text and '%' ("%%{" anywhere starts a directive) are
// written as Mermaid entity codes (#quot;, #35;). Before parsing, Mermaid
// drops the last ';' of any line that holds "style" or "classDef", then
// ':', then '#' (a colour in a style statement): in a label holding either
// word ':' is written #58; too, so that no entity code of the line loses
// its ';'. Line breaks and other control characters, which would end the
// statement, become spaces. Two '$' side by side are kept apart by a word
// joiner (U+2060): "$$...$$" is KaTeX math to Mermaid, which fails on
// what it cannot parse. (Mermaid marks entity codes with "ﬂ°" and
// "¶ß" while it draws and turns any left in the SVG into '&' and ';': no
// escape keeps those two pairs.)
func mermaidLabel(s string) string {
	styled := strings.Contains(s, "style") || strings.Contains(s, "classDef")
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '$' && prev == '$':
			// "$$...$$" is KaTeX math to Mermaid, even written #36;
			// (decoded first): a word joiner, which shows nothing,
			// keeps two '$' apart.
			b.WriteString("\u2060$")
		case r == '"':
			b.WriteString("#quot;")
		case strings.ContainsRune("#<>&`|%", r) || styled && r == ':':
			fmt.Fprintf(&b, "#%d;", r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// mdText makes s plain text in Markdown, in a table cell as in a line:
// '<', '>' and '&' become HTML entities (no tag, no entity of the text's
// own is read), the ASCII punctuation Markdown reads as syntax is
// backslash-escaped ('|' would end the cell, '`' start code, '*', '_' and
// '~' emphasis, '[' and ']' a link, '!' an image, '#' a heading's end,
// '$' math, which GitHub draws from "$...$"),
// and line breaks and other control characters, which would end the row,
// become spaces.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_~[]|!#$", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode shows a name (a branch, a path, a command) as code; one that a
// code span cannot hold (a backtick, a control character) as plain text.
// Outside a table a code span shows what it holds as it is: a '|' stays
// '|' (escaped, the command a person copies would hold "\|").
func mdCode(s string) string {
	if strings.ContainsRune(s, '`') || strings.IndexFunc(s, unicode.IsControl) >= 0 || s == "" {
		return mdText(s)
	}
	return "`" + s + "`"
}

// mdCodeCell is mdCode in a table cell, where a '|' ends the cell even in
// code unless escaped (GitHub takes the escape out of the code).
func mdCodeCell(s string) string {
	c := mdCode(s)
	if strings.HasPrefix(c, "`") { // mdText, which escapes '|' itself, starts otherwise
		return strings.ReplaceAll(c, "|", `\|`)
	}
	return c
}
