package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// The git processes a clean keeps open for all its saves (the commit
// writer and its object checker) and the one-off reads made for all of
// them are started here, not through gitcmd.Runner, which runs a process to
// its end and cannot drop a variable from the environment.

// saveScoped are the variables that would point git at another repository,
// tree or object store than the one it is started in: dropped, as a
// worktree runner of gitcmd drops them, so that these processes write
// where the per-worktree git calls of a save write. GIT_CONFIG is dropped
// too: `git config` would read that one file instead of the files every
// other git command reads.
var saveScoped = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_COMMON_DIR=",
	"GIT_PREFIX=", "GIT_OBJECT_DIRECTORY=", "GIT_NAMESPACE=", "GIT_CONFIG="}

// saveEnviron is the environment of those processes, extra last (the last
// value of a variable wins).
func saveEnviron(extra ...string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, p := range saveScoped {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ADVICE=0")
	return append(env, extra...)
}

// envValue is the last value of key in env, and whether it is set.
func envValue(env []string, key string) (string, bool) {
	val, ok := "", false
	for _, kv := range env {
		if k, v, found := strings.Cut(kv, "="); found && k == key {
			val, ok = v, true
		}
	}
	return val, ok
}

// gitOutput runs git in dir to its end and returns its standard output.
func gitOutput(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	gitcmd.Started(args)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &gitError{args: args, stderr: stderr.String(), err: err}
	}
	return stdout.Bytes(), nil
}

type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + e.args[0] + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is git's exit code for a gitError, else -1.
func exitCode(err error) int {
	var ge *gitError
	var ee *exec.ExitError
	if errors.As(err, &ge) && errors.As(ge.err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// lineProc is a git process that answers one line of standard input with
// one line of standard output, flushed as it goes (cat-file --batch-check,
// hash-object --stdin-paths).
type lineProc struct {
	args   []string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

func startLineProc(ctx context.Context, dir string, env []string, args ...string) (*lineProc, error) {
	gitcmd.Started(args)
	p := &lineProc{args: args, cmd: exec.CommandContext(ctx, "git", args...)}
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stderr = &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	p.in, p.out = in, bufio.NewReader(out)
	return p, nil
}

// ask writes one line and reads the answer. An error means the process is
// gone or out of step: it answers no more.
func (p *lineProc) ask(line string) (string, error) {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		return "", p.fail(err)
	}
	ans, err := p.out.ReadString('\n')
	if err != nil {
		return "", p.fail(err)
	}
	return strings.TrimSuffix(ans, "\n"), nil
}

// fail ends the process and names what git said, if anything.
func (p *lineProc) fail(err error) error {
	p.close()
	if msg := strings.TrimSpace(p.stderr.String()); msg != "" {
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		err = fmt.Errorf("%s (%w)", msg, err)
	}
	return fmt.Errorf("git %s stopped: %w", p.args[0], err)
}

// close ends the process: its standard input closes, it exits.
func (p *lineProc) close() error {
	if p == nil || p.cmd == nil {
		return nil
	}
	p.in.Close()
	err := p.cmd.Wait()
	p.cmd = nil
	return err
}
