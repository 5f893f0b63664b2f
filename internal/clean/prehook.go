package clean

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// preRemoveTimeout bounds one run of taskclean.preRemove unless
// taskclean.preRemoveTimeout says otherwise: a hook that hangs must not
// hold the run's lock for ever.
const preRemoveTimeout = 2 * time.Minute

// hookTimeout reads git config taskclean.preRemoveTimeout: the default
// when unset, an input error (before anything changes) when it is not a
// duration.
func hookTimeout(st *resume.State) (time.Duration, error) {
	t := st.PreRemoveTimeout
	if t == "" {
		return preRemoveTimeout, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, exit.BadInput("git config taskclean.preRemoveTimeout %q: want a duration such as 30s, 5m or 1h; nothing was changed", t)
	}
	return d, nil
}

// runPreRemove runs git config taskclean.preRemove inside each worktree
// the selection removes, before anything of the clean changes, so that
// whatever the command writes (a cache flushed, a log closed, a commit) is
// in the state the clean then reads again, saves and proves. It says
// whether any command ran (then the caller reads the state again). A
// worktree in which a process works is left alone, and so is one whose
// command fails (non-zero, or past its timeout): preRemove keeps them. A
// dry run runs nothing (preRemove lists the commands).
func (c *cleaner) runPreRemove(sel *Selection) bool {
	cmd := c.st.PreRemove
	c.hooked, c.hookFailed = map[string]bool{}, map[string]string{}
	if cmd == "" || c.opts.DryRun {
		return false
	}
	ran := false
	for _, t := range sel.Targets {
		if t.Kind != kindRemove || t.skip != nil {
			continue
		}
		path := t.W.Path
		c.hooked[path] = true
		a := c.add(&Action{Op: OpPreRemove, Task: t.W.TaskID(), Path: path, Command: cmd})
		// An agent may have started in it since the state was read (an
		// earlier command took its time): its command is not for a live
		// worktree.
		if !c.opts.IgnoreLive {
			if live, _ := worktree.LiveIn([]string{path}); len(live[path]) > 0 {
				a.Reason = "not run: in use by " + describeProcs(live[path])
				c.hookFailed[path] = a.Reason
				continue
			}
		}
		ran = true
		last, err := runHook(c.ctx, cmd, path, c.opts.Run, t.W.TaskID(), c.hookTimeout)
		if err != nil {
			a.Reason = err.Error()
			if last != "" {
				a.Reason += ": " + last
			}
			c.hookFailed[path] = "git config taskclean.preRemove failed in it (" + a.Reason + "); it stays"
			continue
		}
		a.Done = true
	}
	if ran {
		// What the commands wrote must be older than the moment the
		// worktrees are stopped (stopWriters starts 20ms early, and file
		// times trail the clock by up to a tick), or the proof takes it
		// for a late write and keeps the worktree.
		time.Sleep(50 * time.Millisecond)
	}
	return ran
}

// preRemove applies what runPreRemove found to a wave: a worktree whose
// command failed, or that the commands' state brought in without its
// command having run, stays. A dry run lists the command it would run.
func (c *cleaner) preRemove(wave []*Target) []*Target {
	cmd := c.st.PreRemove
	if cmd == "" {
		return wave
	}
	var out []*Target
	for _, t := range wave {
		if t.Kind != kindRemove {
			out = append(out, t) // no directory to run in
			continue
		}
		path := t.W.Path
		switch {
		case c.opts.DryRun:
			c.add(&Action{Op: OpPreRemove, Task: t.W.TaskID(), Path: path, Command: cmd})
		case c.hookFailed[path] != "":
			c.skip(t, c.hookFailed[path])
			continue
		case !c.hooked[path]:
			c.skip(t, "its git config taskclean.preRemove did not run (it became a worktree to remove after the commands ran); rerun git taskclean")
			continue
		}
		out = append(out, t)
	}
	return out
}

// runHook runs cmd through the shell in dir, with the run and task in its
// environment and no git variable that would point it at another tree, in
// a process group of its own (a timeout stops whatever it started). It
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
	out := &tailBuffer{max: 4 << 10}
	sh.Stdout, sh.Stderr = out, out
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sh.Cancel = func() error { return syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	// A hook that starts a background process leaves it holding the
	// output: its own exit decides, not the output's end (a process left
	// working in the worktree keeps it, once the clean stops writers).
	sh.WaitDelay = time.Second
	err := sh.Run()
	last := lastLine(string(out.buf))
	var ee *exec.ExitError
	switch {
	case err == nil || errors.Is(err, exec.ErrWaitDelay):
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

// tailBuffer keeps the last max bytes written to it: a command's last line
// is all the report shows, and its output may be endless.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.max {
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// lastLine is the last non-empty line of out, shortened for one line of a
// report.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 300 {
				l = l[:300]
			}
			if r := []rune(l); len(r) > 200 {
				l = string(r[:200]) + "..."
			}
			return l
		}
	}
	return ""
}
