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
	// Documents of the project's first life, which a clone does not have,
	// and the reviews and trackers it was built from.
	foreign = regexp.MustCompile(`SPEC(\.md| [0-9])|GIT-NOTES|STYLE\.md|REAL-WORLD|\.\./shared|[Ff]inding [0-9]+\b|\b[Ii]ssue [0-9]+\b`)
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
		for _, m := range foreign.FindAllString(string(data), -1) {
			t.Errorf("%s cites %q, a document or tracker the repository does not have", f, m)
		}
	}
	if cited < 5 {
		t.Errorf("only %d citations of docs/ found: the pattern no longer matches how files cite", cited)
	}
}
