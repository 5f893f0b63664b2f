package gitcmd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// LockPaths lists the lock files git's files backend takes for updates:
// <ref>.lock beside each ref, and packed-refs.lock when a deletion may have
// to rewrite packed-refs. A caller records them before the transaction, so
// that after a crash it can tell its own leftover locks from anyone else's.
// Every update is written with no-deref (writeUpdates): git locks the ref
// named, a symbolic ref's own file, never the ref it points to (which a
// dereferencing update would lock instead, unrecorded).
func LockPaths(commonDir string, updates []RefUpdate) []string {
	var out []string
	del := false
	for _, u := range updates {
		out = append(out, commonDir+"/"+u.Ref+".lock")
		if u.Op == "delete" {
			del = true
		}
	}
	if del {
		// The packed-refs rewrite: its lock, and the temporary file git
		// writes the new content to before renaming it into place.
		out = append(out, commonDir+"/packed-refs.lock", commonDir+"/packed-refs.new")
	}
	return out
}

// UpdateRefsPrepared is UpdateRefs in git's two steps: every ref is locked
// and checked ("prepare"), prepared is called while git holds the locks,
// then the transaction commits. prepared exists for the crash tests: it
// may kill the git process and exit, leaving git's lock files behind as a
// real crash would.
func (r *Repo) UpdateRefsPrepared(ctx context.Context, updates []RefUpdate, prepared func(*os.Process)) error {
	if len(updates) == 0 {
		return nil
	}
	var in bytes.Buffer
	in.WriteString("start\n")
	writeUpdates(&in, updates)
	in.WriteString("prepare\n")
	args := []string{"update-ref", "--stdin"}
	trace(r.Dir, args)
	processes.Add(1)
	full := args
	if r.Dir != "" {
		full = append([]string{"-C", r.Dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(environ(false), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	fail := func(err error) error {
		stdin.Close()
		werr := cmd.Wait()
		if werr != nil {
			return &Error{Args: args, ExitCode: cmd.ProcessState.ExitCode(), Stderr: stderr.String(), Err: werr}
		}
		return err
	}
	if _, err := stdin.Write(in.Bytes()); err != nil {
		return fail(err)
	}
	sc := bufio.NewScanner(stdout)
	ok := false
	for !ok && sc.Scan() {
		ok = strings.TrimSpace(sc.Text()) == "prepare: ok"
	}
	if !ok {
		return fail(fmt.Errorf("git update-ref did not prepare the transaction"))
	}
	if prepared != nil {
		prepared(cmd.Process)
	}
	if _, err := stdin.Write([]byte("commit\n")); err != nil {
		return fail(err)
	}
	stdin.Close()
	for sc.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		return &Error{Args: args, ExitCode: cmd.ProcessState.ExitCode(), Stderr: stderr.String(), Err: err}
	}
	return nil
}
