package formatcmp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// scratch is one directory for every input of the test binary, so that the
// benchmarks and the tests build the repositories once.
var (
	scratchOnce sync.Once
	scratchDir  string
	scratchErr  error
	goCache     string
)

// TestMain isolates git from the user's and the system's configuration, and
// removes the scratch directory at the end.
func TestMain(m *testing.M) {
	// Where the fuzz corpus is, asked before HOME changes.
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	home, err := os.MkdirTemp("", "formatcmp-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg := "[init]\n\tdefaultBranch = main\n[core]\n\tquotePath = false\n[user]\n\tname = Ada\n\temail = ada@example.com\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	if scratchDir != "" {
		os.RemoveAll(scratchDir)
	}
	os.RemoveAll(home)
	os.Exit(code)
}

// need skips unless FORMATCMP is set: the inputs take a while to build.
func need(tb testing.TB) string {
	tb.Helper()
	if os.Getenv("FORMATCMP") == "" {
		tb.Skip("set FORMATCMP=1 to build the inputs and compare")
	}
	scratchOnce.Do(func() {
		scratchDir, scratchErr = os.MkdirTemp("", "formatcmp-")
		if scratchErr == nil {
			scratchDir, scratchErr = filepath.EvalSymlinks(scratchDir)
		}
	})
	if scratchErr != nil {
		tb.Fatal(scratchErr)
	}
	return scratchDir
}

// git runs git in dir and returns its standard output; a failure is fatal.
func git(tb testing.TB, dir string, env []string, stdin string, args ...string) string {
	tb.Helper()
	out, errOut, err := gitRun(dir, env, stdin, args...)
	if err != nil {
		tb.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, errOut)
	}
	return strings.TrimRight(out, "\n")
}

// gitRun runs git in dir; a failure is returned, with git's stderr. A
// minute is the most any of these may take (a fuzzed index could make git
// loop).
func gitRun(dir string, env []string, stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

func write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// newRepo makes an empty repository of the object format (sha1, sha256)
// under the scratch directory.
func newRepo(tb testing.TB, name, format string) string {
	tb.Helper()
	root := filepath.Join(need(tb), name)
	git(tb, need(tb), nil, "", "init", "-q", "--object-format="+format, root)
	return root
}

// table prints rows as aligned columns.
func table(tb testing.TB, head []string, rows [][]string) {
	tb.Helper()
	var b strings.Builder
	wid := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for i, c := range r {
			wid[i] = max(wid[i], len(c))
		}
	}
	for _, r := range append([][]string{head}, rows...) {
		for i, c := range r {
			fmt.Fprintf(&b, "%-*s  ", wid[i], c)
		}
		b.WriteString("\n")
	}
	tb.Log("\n" + b.String())
}
