package manpage

import (
	"regexp"
	"strings"
	"testing"
)

func samplePage() *Page {
	return &Page{
		Name:     "git-demo",
		Summary:  "show a demo of <run>",
		Synopsis: []string{"git demo <run> [--json] [--older-than DURATION]", "git demo --list"},
		Brief:    "Demo of <run>: nothing more.",
		Version:  "v1",
		Sections: []Section{
			{Title: "DESCRIPTION", Blocks: []Block{
				Para(".starts with a dot, and a back\\slash; `git demo <run>` is typed"),
				Para("'starts with a quote; a branch <run>-main and specs/<run>/plan.md"),
				Para("naïve 🚧 text"),
			}},
			{Title: "OPTIONS", Blocks: []Block{
				Sub("Modes"),
				Option{Names: []string{"--json"}, Short: "one JSON document"},
				Option{Names: []string{"--dry-run", "-n"}, Short: "change nothing", Long: "Print.\n\nChange nothing."},
				Option{Names: []string{"--older-than"}, Arg: "DURATION", Short: "only old ones"},
				Option{Names: []string{"--man"}, Long: "roff", NoSummary: true},
			}},
			{Title: "EXAMPLES", Blocks: []Block{
				Para("Run:"),
				Code{"git demo x1 --json", ".not a request", "'nor this", `echo 'a\b'`},
				Item{Tag: "`refs/demo/<run>/`", Text: "saves", Code: []string{"## Phase 1: x"}},
			}},
		},
	}
}

func roff(t *testing.T, p *Page) string {
	t.Helper()
	var b strings.Builder
	if err := p.Roff(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRoffEscapes(t *testing.T) {
	out := roff(t, samplePage())
	for _, want := range []string{
		`.TH "GIT-DEMO" "1"`,
		".SH NAME\ngit\\-demo \\- show a demo of <run>\n",
		// A line that would start with "." or "'" is not a request.
		"\\&.starts with a dot",
		"\\&'starts with a quote",
		// A backslash is printed, not taken as an escape.
		`back\eslash`,
		// Quoted input is bold, kept on one line, with straight quotes.
		`\fBgit\ demo\ <run>\fR`,
		`echo \(aqa\eb\(aq`,
		// <run> is text: nothing eats it.
		"<run>\\-main and specs/<run>/plan.md",
		`\[u00EF]`, `\[u1F6A7]`,
		".SS Modes",
		".TP\n\\fB\\-n\\fR, \\fB\\-\\-dry\\-run\\fR\nPrint.\n.IP\nChange nothing.\n",
		`\fB\-\-older\-than\fR \fIDURATION\fR`,
		".SH SYNOPSIS\n.PD 0\n.HP 4\n\\fBgit demo\\fR <run> [\\-\\-json] [\\-\\-older\\-than DURATION]\n",
		".nf\ngit demo x1 \\-\\-json\n\\&.not a request\n\\(aqnor this\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("roff lacks %q:\n%s", want, out)
		}
	}
	// Every line that starts with a dot is a request this package writes.
	req := regexp.MustCompile(`^\.(TH|SH|SS|PP|TP|IP|HP|PD|RS|RE|nf|fi|nh|ad)( |$)`)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, ".") && !req.MatchString(l) || strings.HasPrefix(l, "'") {
			t.Errorf("line read as a request: %q", l)
		}
	}
	if strings.Contains(out, "]=[") {
		t.Errorf("roff has a urfave-style [--x]=[value] synopsis:\n%s", out)
	}
	for _, r := range out {
		if r > 0x7e {
			t.Fatalf("roff holds a non-ASCII character %q: some formatters read pages as ASCII", r)
		}
	}
}

func TestTextRendering(t *testing.T) {
	var b strings.Builder
	if err := samplePage().Text(&b, 40); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"NAME\n    git-demo - show a demo of <run>\n",
		"SYNOPSIS\n    git demo <run> [--json]\n        [--older-than DURATION]\n",
		"    -n, --dry-run\n        Print.\n\n        Change nothing.\n",
		"        git demo x1 --json\n        .not a request\n",
		"    refs/demo/<run>/\n        saves\n\n            ## Phase 1: x\n",
		"  Modes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "`") {
		t.Errorf("text keeps the backquotes of quoted input:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 40 && !strings.Contains(l, "git demo x1") {
			t.Errorf("line over 40 columns: %q", l)
		}
	}
	// Quoted input is not broken across lines.
	if !strings.Contains(out, "git demo <run>") {
		t.Errorf("quoted input was broken:\n%s", out)
	}
}

func TestUsage(t *testing.T) {
	var b strings.Builder
	if err := samplePage().Usage(&b); err != nil {
		t.Fatal(err)
	}
	want := `usage: git demo <run> [--json] [--older-than DURATION]
   or: git demo --list
Demo of <run>: nothing more.

  --json                 one JSON document
  -n, --dry-run          change nothing
  --older-than DURATION  only old ones
Full manual: git demo help
`
	if b.String() != want {
		t.Errorf("usage:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aaa bbb ccc dddddddddd e", 7)
	want := []string{"aaa bbb", "ccc", "dddddddddd", "e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}
