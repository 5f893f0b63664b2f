// Package doccheck checks what the repository's files cite: every
// docs/<file>.md they name exists, every section they cite by its title
// ("docs/DESIGN.md, \"Claims: ...\"") is a heading there, every relative
// Markdown link leads to a file, and nothing cites a document a clone of
// the repository does not have.
package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tracked lists the repository's files as git does, from its top.
func tracked(t *testing.T) (top string, files []string) {
	t.Helper()
	top = filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", top, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if _, err := os.Stat(filepath.Join(top, f)); err == nil && textFile(f) {
			files = append(files, f)
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d files found: not the repository", len(files))
	}
	return top, files
}

func textFile(f string) bool {
	switch filepath.Ext(f) {
	case ".go", ".md", ".sh", ".txtar", ".yaml", ".yml", ".fish", ".bash":
		return true
	}
	return strings.HasPrefix(f, ".ci/") || strings.HasPrefix(f, "completion/")
}

// unwrap joins comment lines, so that a citation broken across two lines
// of a Go or shell comment reads as one.
var lineJoin = regexp.MustCompile(`\n[ \t]*(//|#)?[ \t]*`)

var (
	citation = regexp.MustCompile(`docs/([A-Z][A-Z0-9-]*\.md)(, "([^"\s][^"]*)")?`)
	mdLink   = regexp.MustCompile(`\]\(([^)#\s]+\.md)(#[^)]*)?\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	// A document named in capitals (NAME.md, or NAME-NAME without the
	// suffix, as prose cites one) must be a file of the repository; and
	// no file cites a review's findings or a tracker's issues by number,
	// which a clone does not have.
	docName    = regexp.MustCompile(`\b([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\.md\b`)
	hyphenated = regexp.MustCompile(`\b[A-Z]{2,}(?:-[A-Z]{2,})+\b`)
	numbered   = regexp.MustCompile(`\b[Ff]inding [0-9]+\b|\b[Ii]ssue [0-9]+\b`)
)

func TestCitationsResolve(t *testing.T) {
	top, files := tracked(t)
	headings := map[string]map[string]bool{}
	headingsOf := func(doc string) map[string]bool {
		if h, ok := headings[doc]; ok {
			return h
		}
		data, err := os.ReadFile(filepath.Join(top, "docs", doc))
		if err != nil {
			headings[doc] = nil
			return nil
		}
		h := map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
			h[m[1]] = true
		}
		headings[doc] = h
		return h
	}
	docs := map[string]bool{} // the base names of the repository's Markdown files
	for _, f := range files {
		if filepath.Ext(f) == ".md" {
			docs[strings.TrimSuffix(filepath.Base(f), ".md")] = true
		}
	}
	cited := 0
	for _, f := range files {
		if strings.HasPrefix(f, "internal/doccheck/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(top, f))
		if err != nil {
			t.Fatal(err)
		}
		text := lineJoin.ReplaceAllString(string(data), " ")
		for _, m := range citation.FindAllStringSubmatch(text, -1) {
			h := headingsOf(m[1])
			if h == nil {
				t.Errorf("%s cites docs/%s, which does not exist", f, m[1])
				continue
			}
			cited++
			if m[3] != "" && !h[m[3]] {
				t.Errorf("%s cites docs/%s, %q: no such heading there", f, m[1], m[3])
			}
		}
		if filepath.Ext(f) == ".md" {
			for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
				if strings.Contains(m[1], "://") {
					continue
				}
				if _, err := os.Stat(filepath.Join(top, filepath.Dir(f), m[1])); err != nil {
					t.Errorf("%s links to %s, which does not exist", f, m[1])
				}
			}
		}
		for _, m := range foreignRefs(prose(f, string(data)), docs) {
			t.Errorf("%s cites %q, a document or tracker the repository does not have", f, m)
		}
	}
	if cited < 5 {
		t.Errorf("only %d citations of docs/ found: the pattern no longer matches how files cite", cited)
	}
}

// foreignRefs are the citations in text of documents that are not among
// docs (base names without .md), and of numbered findings or issues.
func foreignRefs(text string, docs map[string]bool) []string {
	var out []string
	for _, m := range docName.FindAllStringSubmatch(text, -1) {
		if !docs[m[1]] {
			out = append(out, m[0])
		}
	}
	for _, m := range hyphenated.FindAllString(text, -1) {
		if !docs[m] {
			out = append(out, m)
		}
	}
	return append(out, numbered.FindAllString(text, -1)...)
}

// The rule itself, on made-up names: what a clone has passes, what it
// lacks does not.
func TestForeignRefs(t *testing.T) {
	docs := map[string]bool{"README": true, "PLAN-FORMAT": true}
	for text, want := range map[string]int{
		"see README.md and docs/PLAN-FORMAT.md":           0,
		"the PLAN-FORMAT page":                            0,
		"as NOTES-ELSEWHERE says":                         1,
		"see OTHER.md, section 3":                         1,
		"review finding 4; tracker issue 12":              2,
		"UTF-8, SHA-256, GIT_DIR, HEAD, JSON, RFC 3339":   0,
		"a retry's -2 and a 2-task run in MAIN-ish prose": 0,
	} {
		if got := foreignRefs(text, docs); len(got) != want {
			t.Errorf("foreignRefs(%q) = %q, want %d", text, got, want)
		}
	}
}

// comment is a line of a Go, shell, YAML or scenario file that is a comment.
var comment = regexp.MustCompile(`(?m)^[ \t]*(//|#)(.*)$`)

// prose is what of a file cites documents: a Markdown file whole, and the
// comments of the others (their code and test data name files as data).
func prose(name, text string) string {
	if filepath.Ext(name) == ".md" {
		return text
	}
	var b strings.Builder
	for _, m := range comment.FindAllStringSubmatch(text, -1) {
		b.WriteString(m[2])
		b.WriteByte('\n')
	}
	return b.String()
}

// The README is a front page: short enough to read through, the two
// commands a newcomer needs in its first block, and a link to every page
// of docs/, where the reference lives, so that nothing moved there is out
// of reach.
func TestREADMEIsAFrontPage(t *testing.T) {
	top, files := tracked(t)
	data, err := os.ReadFile(filepath.Join(top, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines; a front page has at most 300: move reference text to docs/", n)
	}
	i := strings.Index(readme, "```sh\n")
	if i < 0 {
		t.Fatal("README.md has no ```sh block")
	}
	first := readme[i+len("```sh\n"):]
	first = first[:strings.Index(first, "```")]
	if !strings.Contains(first, "./install.sh") || !strings.Contains(first, "go test ./...") {
		t.Errorf("README.md's first block is not the install and test commands:\n%s", first)
	}
	for _, f := range files {
		if strings.HasPrefix(f, "docs/") && strings.HasSuffix(f, ".md") && !strings.Contains(readme, "]("+f+")") {
			t.Errorf("README.md does not link %s", f)
		}
	}
}
