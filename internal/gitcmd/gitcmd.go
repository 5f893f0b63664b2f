// Package gitcmd is the one place that runs the git binary. Every other
// package asks domain-shaped questions (Refs, Worktrees, RunCommits) and gets
// parsed answers; none of them builds an argument list.
//
// History and worktree questions go to git rather than go-git: git uses the
// commit-graph and supports every repository layout git itself accepts
// (worktreeConfig, reftable, partial clones), which go-git v5 does not.
package gitcmd

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
	"sync"
	"sync/atomic"
	"time"
)

// processes counts git processes started by this program.
var processes atomic.Int64

// Processes returns how many git processes this program has started.
func Processes() int64 { return processes.Load() }

// Error is a failed git invocation. Callers use errors.As and look at
// ExitCode; they never match Stderr text for control flow.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	msg := firstLine(e.Stderr)
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	sub := ""
	if len(e.Args) > 0 {
		sub = " " + e.Args[0]
	}
	return fmt.Sprintf("git%s: %s", sub, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// firstLine is git's message on one line: its first line, with the indented
// lines that continue it ("unknown repository extension found:\n\tfoo").
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "fatal: ")
	s = strings.TrimPrefix(s, "error: ")
	lines := strings.Split(s, "\n")
	out := lines[0]
	for _, l := range lines[1:] {
		if l == "" || (l[0] != ' ' && l[0] != '\t') {
			break
		}
		out += " " + strings.TrimSpace(l)
	}
	return out
}

// OneLine is an error's message cut to its first line, for one-line
// reports.
func OneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ExitCode returns git's exit code when err is a *Error, else -1.
func ExitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// Runner runs git in one directory. The zero value runs in the current
// directory.
type Runner struct {
	// Dir is the directory git runs in (git -C Dir).
	Dir string
	// Write marks a runner allowed to take git's optional locks. Read-only
	// runners set GIT_OPTIONAL_LOCKS=0 so that a report running beside live
	// agents never refreshes (and locks) their index.
	Write bool
	// Worktree marks a runner that works inside one linked worktree (its
	// status, its files). It must see that worktree and nothing else, so
	// the caller's GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE... (set inside git
	// hooks, or by `git --git-dir`) are not passed on: with them, status
	// would describe another tree and dirty work could go unsaved.
	Worktree bool
	// shared, when set, answers the reads every run of a list makes
	// alike (Repo.WithShared).
	shared *Shared
}

// repoScoped are the variables that pin git to one repository and tree.
var repoScoped = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_COMMON_DIR=",
	"GIT_PREFIX=", "GIT_OBJECT_DIRECTORY=", "GIT_NAMESPACE="}

// WorktreeEnviron is this process's environment without the variables
// that pin git to one repository and tree: for a command run inside a
// worktree that must see that worktree (a hook).
func WorktreeEnviron() []string { return environ(true) }

func environ(worktree bool) []string {
	env := os.Environ()
	if !worktree {
		return env
	}
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, p := range repoScoped {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// traceMu serialises appends to the trace file; commands run git
// concurrently (status of several worktrees).
var traceMu sync.Mutex

// trace appends the argument list to $GIT_TASKRESUME_TRACE, when set. Tests
// use it to count git processes; a user can use it to see what ran.
func trace(dir string, args []string) {
	appendTo("GIT_TASKRESUME_TRACE", "git "+strings.Join(args, " "))
}

// Started records a git process started outside Runner (a long-lived one
// of the clean): traced and counted as Runner's are.
func Started(args []string) {
	trace("", args)
	processes.Add(1)
}

// appendTo appends line to the file the environment variable names, when
// set; a file that cannot be written is let go (tracing never fails a
// command).
func appendTo(variable, line string) {
	path := os.Getenv(variable)
	if path == "" {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// started is when the program started, the origin of the timing trace.
var started = time.Now()

// timing appends "<start ms> <end ms> git <args>" to
// $GIT_TASKRESUME_TIMING, when set: where each git process sits on the
// command's wall clock (the benchmark's profile reads it). Times are
// milliseconds since the program started.
func timing(t0 time.Time, args []string) {
	if os.Getenv("GIT_TASKRESUME_TIMING") == "" {
		return
	}
	t1 := time.Now()
	line := strings.Join(args, " ")
	if len(line) > 120 {
		line = line[:120] + "..."
	}
	appendTo("GIT_TASKRESUME_TIMING", fmt.Sprintf("%7.2f %7.2f git %s", ms(t0.Sub(started)), ms(t1.Sub(started)), line))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run runs git with args and returns its standard output.
func (r Runner) Run(ctx context.Context, args ...string) ([]byte, error) {
	return r.RunInput(ctx, nil, args...)
}

// RunInput runs git with args, feeding stdin, and returns standard output.
func (r Runner) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.RunEnv(ctx, nil, stdin, args...)
}

// killWait is how long a killed git's pipes are waited for.
const killWait = time.Second

// RunEnv is RunInput with extra environment variables (KEY=VALUE).
func (r Runner) RunEnv(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	if r.shared != nil && env == nil && stdin == nil {
		if key, ok := memoKey(args); ok {
			return r.shared.memoized(r.Dir+"\x00"+key, func() ([]byte, error) {
				c := r
				c.shared = nil
				return c.RunEnv(ctx, nil, nil, args...)
			})
		}
	}
	cmd := r.command(ctx, env, args)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout bytes.Buffer
	err := run(cmd, &stdout, args)
	return stdout.Bytes(), err
}

// command is git with args, counted and traced, in r's directory and
// environment plus env.
func (r Runner) command(ctx context.Context, env []string, args []string) *exec.Cmd {
	trace(r.Dir, args)
	processes.Add(1)
	full := args
	if r.Dir != "" {
		full = append([]string{"-C", r.Dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", full...)
	// Once the context ends and git is killed, a process git started that
	// still holds our pipes (the upload-pack or ssh of a remote that does
	// not answer) is not waited for: the timeout is the timeout.
	cmd.WaitDelay = killWait
	cmd.Env = append(environ(r.Worktree), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ADVICE=0")
	if !r.Write {
		cmd.Env = append(cmd.Env, "GIT_OPTIONAL_LOCKS=0")
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// run runs cmd, its standard output written to w, and says how it failed.
func run(cmd *exec.Cmd, w io.Writer, args []string) error {
	var stderr bytes.Buffer
	cmd.Stdout = w
	cmd.Stderr = &stderr
	t0 := time.Now()
	err := cmd.Run()
	timing(t0, args)
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return &Error{Args: args, ExitCode: code, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// RunUntil runs git like Run, but stops it as soon as enough(out), asked
// each time output arrives with what came so far, says the rest is not
// needed: a history read back to the commit that matters need not walk
// the rest of it. The output is returned whole as read; a git stopped so
// is no error.
func (r Runner) RunUntil(ctx context.Context, enough func(out []byte) bool, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &untilWriter{enough: enough, stop: cancel}
	err := run(r.command(ctx, nil, args), w, args)
	if w.stopped {
		return w.buf.Bytes(), nil
	}
	return w.buf.Bytes(), err
}

// untilWriter collects a git's output and stops it once enough.
type untilWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	enough  func([]byte) bool
	stop    func()
	stopped bool
}

func (w *untilWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return len(p), nil
	}
	w.buf.Write(p)
	if w.enough(w.buf.Bytes()) {
		w.stopped = true
		w.stop()
	}
	return len(p), nil
}

// Mark writes a named point of the program's run to the timing trace
// ($GIT_TASKRESUME_TIMING), between the git processes' lines.
func Mark(label string) {
	if os.Getenv("GIT_TASKRESUME_TIMING") == "" {
		return
	}
	appendTo("GIT_TASKRESUME_TIMING", fmt.Sprintf("%7.2f         -- %s", ms(time.Since(started)), label))
}

// stream runs git with args, in r's environment plus env, and hands its
// standard output to read as it comes: for an output too large to hold
// whole. read's failure wins over git's (git is stopped once read fails);
// git's failure is returned when read succeeded.
func (r Runner) stream(ctx context.Context, env []string, read func(*bufio.Reader) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.command(ctx, env, args)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	rerr := read(bufio.NewReaderSize(out, 64<<10))
	if rerr != nil {
		cancel() // git need not go on
	}
	err = cmd.Wait()
	timing(t0, args)
	if err != nil && rerr == nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return &Error{Args: args, ExitCode: code, Stderr: stderr.String(), Err: err}
	}
	return rerr
}
