package testbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Result is a finished command.
type Result struct {
	// Args is the command line, the program first; Dir where it ran.
	Args []string
	Dir  string
	// Stdout and Stderr are what it printed.
	Stdout, Stderr string
	// Code is its exit code: -1 when it was killed by a signal, or could
	// not start (Stderr then ends with why).
	Code int
}

// String is the command and what it did, for a failure message; long
// output is cut short.
func (r Result) String() string {
	return fmt.Sprintf("%q: exit %d\nstdout: %s\nstderr: %s", r.Args, r.Code, clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// Run runs a program in dir ("" for the test's own directory) with the
// test environment plus env, and returns what it did; it never fails the
// test by itself.
func Run(dir string, env []string, name string, args ...string) Result {
	return RunStdin(dir, env, "", name, args...)
}

// RunStdin is Run with stdin as the program's standard input.
func RunStdin(dir string, env []string, stdin string, name string, args ...string) Result {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Args: append([]string{name}, args...), Dir: dir}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		r.Code = -1
		stderr.WriteString(err.Error())
	}
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	return r
}

// Must fails the test unless r exited 0, and returns r.
func Must(t testing.TB, r Result) Result {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("%s (in %s): exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.Args, " "), r.Dir, r.Code, clip(r.Stdout), clip(r.Stderr))
	}
	return r
}

// Git runs git in dir, fails the test when git fails, and returns its
// standard output without the white space around it.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Must(t, Run(dir, nil, "git", args...)).Stdout)
}

// GitStdin is Git with stdin as git's standard input.
func GitStdin(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Must(t, RunStdin(dir, nil, stdin, "git", args...)).Stdout)
}

// Taskresume runs `git taskresume ARGS` in dir, through git's dispatch,
// with extra environment.
func Taskresume(dir string, env []string, args ...string) Result {
	return Run(dir, env, "git", append([]string{"taskresume"}, args...)...)
}

// Taskclean runs `git taskclean ARGS` in dir, through git's dispatch, with
// extra environment.
func Taskclean(dir string, env []string, args ...string) Result {
	return Run(dir, env, "git", append([]string{"taskclean"}, args...)...)
}
