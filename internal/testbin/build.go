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

// buildEnv is the environment of the go command: the caller's, read before
// Main moves HOME (the build cache and go env file live under the real
// one), but for what Dropped names: the go command runs git for its
// version stamp, which a hook's GIT_DIR would misdirect.
var buildEnv []string

// build builds every command of cmd/ into bin, with go build's flags.
func build(bin string, flags ...string) error {
	if buildEnv == nil {
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !Dropped(k) {
				buildEnv = append(buildEnv, kv)
			}
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	args := append(append([]string{"build"}, flags...), "-o", bin+string(filepath.Separator), "./cmd/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = buildEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, name := range []string{"git-taskresume", "git-taskclean"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return fmt.Errorf("go build ./cmd/... did not make %s: %v", name, err)
		}
	}
	return nil
}

// Build builds both commands again, with go build's flags (an -ldflags
// stamp, -buildvcs=true), into a directory of the test's, and returns it:
// for the tests of what a release, go install or a checkout build says it
// is. Only Main's package may call it (it builds in Main's environment).
func Build(t testing.TB, flags ...string) string {
	t.Helper()
	if buildEnv == nil {
		t.Fatal("testbin.Build before testbin.Main")
	}
	bin := t.TempDir()
	if err := build(bin, flags...); err != nil {
		t.Fatal(err)
	}
	return bin
}

// BuildInto builds both commands, with go build's flags, into dir: for a
// package whose TestMain wants builds of its own for all its tests (two
// stamped versions, say). Call it before Main, whose HOME the build cache
// does not follow.
func BuildInto(dir string, flags ...string) error { return build(dir, flags...) }

// ModuleRoot is the directory of go.mod: the checkout the commands are
// built from.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// moduleRoot is the directory of go.mod, wherever the test runs.
func moduleRoot() (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Env = buildEnv // nil, the process's, before the first build
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module (go env GOMOD is empty)")
	}
	return filepath.Dir(mod), nil
}
