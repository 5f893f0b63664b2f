// Package testbin is the harness of every end-to-end test: it builds the
// real git-taskresume and git-taskclean once per test binary, puts them
// first on PATH so that `git taskresume` reaches them through git's own
// dispatch, and gives every test one environment (env.go) that does not
// depend on the machine's configuration nor on a git hook that runs the
// tests. It also holds what those tests share: running commands (run.go),
// the seven-task run (fixtures.go), and a mirror of the JSON documents the
// commands print (report.go).
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Options are what one test package needs beyond the common environment.
type Options struct {
	// Date, when set, pins GIT_AUTHOR_DATE and GIT_COMMITTER_DATE, so
	// that one scenario built twice has the same commit ids.
	Date string
	// Setup runs once the environment is in place, before the tests, with
	// a scratch directory of the package's own (symbolic links resolved:
	// git prints real paths) that is removed after the tests.
	Setup func(scratch string) error
}

// binDir holds the commands Main built.
var binDir string

// BinDir is where Main built git-taskresume and git-taskclean.
func BinDir() string { return binDir }

// Main is the TestMain of an end-to-end test package:
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Main(m, testbin.Options{})) }
//
// It builds both commands with `go build -o DIR/ ./cmd/...` from the module
// root, before HOME moves (the Go build cache lives under the real HOME),
// puts DIR first on PATH, makes a HOME holding GitConfig, drops what Dropped
// names and sets Vars, runs o.Setup and then the tests. Without git it runs
// nothing and says so.
func Main(m *testing.M, o Options) int {
	if _, err := exec.LookPath("git"); err != nil {
		fmt.Fprintln(os.Stderr, "git not installed: skipping the end-to-end tests")
		return 0
	}
	tmp, err := os.MkdirTemp("", "taskresume-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bin := filepath.Join(tmp, "bin")
	if err := build(bin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = bin
	home := filepath.Join(tmp, "home")
	if err := WriteHome(home); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	isolate(home, o)
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if o.Setup != nil {
		scratch := filepath.Join(tmp, "scratch")
		if err := os.MkdirAll(scratch, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := o.Setup(scratch); err != nil {
			fmt.Fprintln(os.Stderr, "setting up the tests:", err)
			return 1
		}
	}
	return m.Run()
}

// build builds every command of cmd/ into bin.
func build(bin string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	// The caller's environment but for what Dropped names: the go command
	// runs git for its version stamp, which a hook's GIT_DIR would misdirect.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !Dropped(k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/...: %v\n%s", err, out)
	}
	for _, name := range []string{"git-taskresume", "git-taskclean"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return fmt.Errorf("go build ./cmd/... did not make %s: %v", name, err)
		}
	}
	return nil
}

// moduleRoot is the directory of go.mod, wherever the test runs.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module (go env GOMOD is empty)")
	}
	return filepath.Dir(mod), nil
}
