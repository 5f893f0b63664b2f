package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCQuoteStdinPaths: every name, quoted, reaches `git hash-object
// --stdin-paths` as it is: one starting with a quote (which git would
// otherwise unquote into another file's name), one with a newline (which
// would otherwise split the list), a backslash, a tab, non-UTF-8 bytes.
func TestCQuoteStdinPaths(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	names := []string{`"a.txt"`, "a.txt", "n\nl.txt", `back\slash`, "tab\tx", "caf\xe9", "sp ace "}
	var list strings.Builder
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(strings.Repeat("x", i+1)+n), 0o644); err != nil {
			t.Fatal(err)
		}
		list.WriteString(cQuote(n) + "\n")
	}
	cmd := exec.Command("git", "hash-object", "--no-filters", "--stdin-paths")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(list.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(names) {
		t.Fatalf("%d ids for %d names: %q", len(got), len(names), out)
	}
	for i, n := range names {
		data, _ := os.ReadFile(filepath.Join(dir, n))
		if want := BlobID(data, 20); got[i] != want {
			t.Errorf("%q: git hashed %s, the file is %s", n, got[i], want)
		}
	}
}
