package clean

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// preRemoveTimeout bounds one run of taskclean.preRemove unless
// taskclean.preRemoveTimeout says otherwise: a hook that hangs must not
// hold the run's lock for ever.
const preRemoveTimeout = 2 * time.Minute

// preRemove runs git config taskclean.preRemove inside each worktree the
// wave removes, before it is stopped and saved, so that whatever the
// command writes (a cache flushed, a log closed) is saved too. A command
// that fails keeps its worktree (and the branch checked out there): the
// skip says so with the command's last line of output. A dry run says what
// it would run.
func (c *cleaner) preRemove(wave []*Target) []*Target {
	cmd := c.st.PreRemove
	if cmd == "" {
		return wave
	}
	var out []*Target
	ran := false
	defer func() {
		if ran {
			// What the commands wrote must be older than the moment the
			// worktrees are stopped (stopWriters starts 20ms early, and
			// file times trail the clock by up to a tick), or the proof
			// takes it for a late write and keeps the worktree.
			time.Sleep(50 * time.Millisecond)
		}
	}()
	for _, t := range wave {
		if t.Kind != kindRemove {
			out = append(out, t) // no directory to run in
			continue
		}
		a := c.add(&Action{Op: OpPreRemove, Task: t.W.TaskID(), Path: t.W.Path, Command: cmd})
		if c.opts.DryRun {
			out = append(out, t)
			continue
		}
		ran = true
		last, err := runHook(c.ctx, cmd, t.W.Path, c.opts.Run, t.W.TaskID(), c.st.PreRemoveTimeout)
		if err != nil {
			a.Reason = err.Error()
			if last != "" {
				a.Reason += ": " + last
			}
			c.skip(t, "git config taskclean.preRemove failed in it ("+a.Reason+"); it stays")
			continue
		}
		a.Done = true
		out = append(out, t)
	}
	return out
}

// runHook runs cmd through the shell in dir, with the run and task in its
// environment and no git variable that would point it at another tree. It
// returns the last non-empty line of its output and, when it failed, why.
func runHook(ctx context.Context, cmd, dir, run, task string, timeout time.Duration) (string, error) {
	if timeout <= 0 {
		timeout = preRemoveTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sh := exec.CommandContext(ctx, "sh", "-c", cmd)
	sh.Dir = dir
	sh.Env = append(gitcmd.WorktreeEnviron(), "GIT_TASKCLEAN_RUN="+run, "GIT_TASKCLEAN_TASK="+task, "GIT_TASKCLEAN_WORKTREE="+dir)
	sh.Stdin = nil // /dev/null: a hook never waits for the user
	var buf bytes.Buffer
	sh.Stdout, sh.Stderr = &buf, &buf
	// A hook that starts a background process leaves it holding the
	// output: do not wait for it past the hook's own exit.
	sh.WaitDelay = time.Second
	err := sh.Run()
	last := lastLine(buf.String())
	var ee *exec.ExitError
	switch {
	case err == nil:
		return last, nil
	case ctx.Err() == context.DeadlineExceeded:
		return last, fmt.Errorf("still running after %s", timeout)
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return last, fmt.Errorf("exit %d", ee.ExitCode())
	case errors.Is(err, os.ErrNotExist):
		return last, errors.New("no sh to run it")
	}
	return last, err
}

// lastLine is the last non-empty line of out, shortened for one line of a
// report.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if r := []rune(l); len(r) > 200 {
				l = string(r[:200]) + "..."
			}
			return l
		}
	}
	return ""
}
