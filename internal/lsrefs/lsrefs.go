// Package lsrefs lists the refs of a remote that match patterns, as
// `git ls-remote --refs --symref REMOTE PATTERN...` does (full ids, and the
// symbolic refs with their targets), without making the remote send its
// whole ref list.
//
// git's ls-remote asks a protocol v2 server for ref prefixes only for
// --heads and --tags: for patterns it lists every ref of the remote and
// matches them itself, so a remote with 22,000 refs costs every reader of
// a few claims over a hundred milliseconds. Here a remote that git reaches
// by starting `git-upload-pack` on a local path (a path, or a file:// URL)
// is asked exactly that way, with GIT_PROTOCOL=version=2, and sent one
// `ref-prefix` per pattern (its text before the first '*'); the answer is
// then filtered as ls-remote filters. Every other transport (ssh, git://,
// http(s), remote helpers, bundles), and any configuration this package
// does not reproduce, is read with ls-remote as before: see fallback.
package lsrefs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Via says how a list was read.
type Via string

const (
	// ViaPrefixes: protocol v2 ls-refs with ref-prefix lines.
	ViaPrefixes Via = "ls-refs"
	// ViaV0: the server answered in protocol v0 (or v1), which sends its
	// whole ref list, and names no symbolic ref but HEAD.
	ViaV0 Via = "v0"
	// ViaLsRemote: git ls-remote, for what is not read directly.
	ViaLsRemote Via = "ls-remote"
)

// Result is a remote's refs that match the patterns asked.
type Result struct {
	// Refs are the refs by full name: their object ids (a symbolic ref's
	// is its target's).
	Refs map[string]string
	// Symrefs are the symbolic refs among them: name to the ref they
	// point to, the last of a chain (what the server resolves).
	Symrefs map[string]string
	// Via is how the list was read; Why says why ls-remote was used.
	Via Via
	Why string
}

// List returns the refs of remote (a remote's name, or a URL or path as
// ls-remote takes them) matching patterns, with ls-remote's meaning: a
// pattern matches a ref when the ref is the pattern or ends in "/" and the
// pattern, '*' matching any text, '/' included. Only refs that begin with
// a pattern's text before its first '*' are asked for: a ref that merely
// ends in a pattern (refs/x/refs/heads/main for refs/heads/main), which
// ls-remote of the whole list would also name, is not in the answer
// whichever way it is read. Nothing is written to the repository. ctx
// bounds the whole exchange.
func List(ctx context.Context, repo *gitcmd.Repo, remote string, patterns ...string) (*Result, error) {
	ep, why, err := resolve(ctx, repo, remote, patterns)
	if err != nil {
		return nil, err
	}
	if ep == nil {
		return lsRemote(ctx, repo, remote, patterns, why)
	}
	return ep.list(ctx, repo, patterns)
}

// lsRemote is the fallback: git's own ls-remote, protocol v2 asked for
// (only v2 names every symbolic ref). It lists the whole ref list.
func lsRemote(ctx context.Context, repo *gitcmd.Repo, remote string, patterns []string, why string) (*Result, error) {
	args := append([]string{"-c", "protocol.version=2", "ls-remote", "--refs", "--symref", remote}, patterns...)
	out, err := repo.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	res := &Result{Refs: map[string]string{}, Symrefs: map[string]string{}, Via: ViaLsRemote, Why: why}
	// The refs that only end in a pattern are dropped as when asked by
	// prefix: one answer whichever way the remote is read.
	filter := len(patterns) > 0
	for _, p := range patterns {
		filter = filter && simplePattern(p)
	}
	for _, line := range strings.Split(string(out), "\n") {
		left, ref, ok := strings.Cut(line, "\t")
		if !ok || (filter && !keep(ref, patterns)) {
			continue
		}
		if target, sym := strings.CutPrefix(left, "ref: "); sym {
			res.Symrefs[ref] = target
			continue
		}
		res.Refs[ref] = left
	}
	return res, nil
}

// endpoint is a remote read directly: the upload-pack git would start.
type endpoint struct {
	path string
	// uploadPack is remote.<name>.uploadpack, run through the shell as
	// git runs it; "" for git's own upload-pack.
	uploadPack string
	execPath   string
}

// killWait is how long a killed upload-pack's pipes are waited for: a
// process it started may hold them (a wrapper's sleep).
const killWait = time.Second

// repoLocal are the variables git removes from the environment of the
// upload-pack it starts for a local remote (local_repo_env): they describe
// this repository, not the remote's.
var repoLocal = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR"}

// environ is the upload-pack's environment: what a git run by this
// program would hand it (gitcmd's read-only runner adds the same), less
// the repository's own variables, and protocol v2 asked for.
func (ep *endpoint) environ() []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, v := range repoLocal {
			if k == v {
				continue next
			}
		}
		if k == "GIT_PROTOCOL" || (k == "PATH" && ep.execPath != "") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ADVICE=0", "GIT_OPTIONAL_LOCKS=0",
		"GIT_PROTOCOL=version=2")
	if ep.execPath != "" {
		// git puts its exec-path first on PATH for what it starts: a
		// wrapper's `exec git-upload-pack` finds it there.
		path := os.Getenv("PATH")
		if path == "" {
			path = "/usr/local/bin:/usr/bin:/bin"
		}
		env = append(env, "PATH="+ep.execPath+":"+path)
	}
	return env
}

// list starts the upload-pack, asks for the refs under the patterns'
// prefixes, and filters the answer.
func (ep *endpoint) list(ctx context.Context, repo *gitcmd.Repo, patterns []string) (*Result, error) {
	var cmd *exec.Cmd
	args := []string{"upload-pack", ep.path}
	if ep.uploadPack == "" {
		cmd = exec.CommandContext(ctx, "git", args...)
	} else {
		// As git's connect.c: "<uploadpack> '<path>'" through the shell.
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", ep.uploadPack+" "+sqQuote(ep.path))
		// Traced as an upload-pack, the command it is run as said.
		args = []string{"upload-pack", "(" + ep.uploadPack + ")", ep.path}
	}
	cmd.Dir = repo.Dir
	cmd.Env = ep.environ()
	cmd.WaitDelay = killWait
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// Counted and traced as gitcmd's own processes are; the timing trace
	// gets named points, its lines being gitcmd's to write.
	gitcmd.Started(args)
	gitcmd.Mark("ls-refs: " + strings.Join(args, " ") + " started")
	defer gitcmd.Mark("ls-refs: " + strings.Join(args, " ") + " ended")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// A remote that stops answering: once ctx ends the reads and writes
	// below return (the process is killed, and a child of it that holds
	// the pipes is not waited for).
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			stdout.Close()
			stdin.Close()
		case <-done:
		}
	}()
	res, perr := talk(newPktReader(stdout), stdin, patterns)
	// The exchange is over: the end of its input ends upload-pack, and
	// one that still writes (a protocol error) finds its reader gone
	// rather than blocking the wait below.
	stdin.Close()
	stdout.Close()
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if perr != nil || werr != nil {
		ge := &gitcmd.Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: perr}
		if ee, ok := werr.(*exec.ExitError); ok {
			ge.ExitCode = ee.ExitCode()
		}
		if ge.Err == nil {
			ge.Err = werr
		}
		return nil, ge
	}
	return res, nil
}

// talk reads the server's greeting and asks for the refs: protocol v2's
// ls-refs with a prefix per pattern, else (a server that answered v0 or v1)
// the ref list it sent. The answer is filtered as ls-remote does.
func talk(r *pktReader, w io.Writer, patterns []string) (*Result, error) {
	first, err := r.line()
	if err != nil {
		return nil, err
	}
	if first.kind != pktData {
		return nil, fmt.Errorf("the remote sent no ref list")
	}
	if first.text == "version 2" {
		return v2(r, w, patterns)
	}
	if first.text == "version 1" {
		if first, err = r.line(); err != nil {
			return nil, err
		}
	}
	return v0(r, w, first, patterns)
}

// v2 reads the capabilities and runs ls-refs.
func v2(r *pktReader, w io.Writer, patterns []string) (*Result, error) {
	caps := map[string]string{}
	for {
		p, err := r.line()
		if err != nil {
			return nil, err
		}
		if p.kind == pktFlush {
			break
		}
		k, v, _ := strings.Cut(p.text, "=")
		caps[k] = v
	}
	if _, ok := caps["ls-refs"]; !ok {
		return nil, fmt.Errorf("the remote's upload-pack does not support ls-refs")
	}
	var req bytes.Buffer
	writePkt(&req, "command=ls-refs\n")
	if f, ok := caps["object-format"]; ok {
		// The server assumes sha1 unless told: echo its own.
		writePkt(&req, "object-format="+f+"\n")
	}
	req.WriteString("0001")
	writePkt(&req, "symrefs\n")
	for _, p := range prefixes(patterns) {
		writePkt(&req, "ref-prefix "+p+"\n")
	}
	req.WriteString("0000")
	if _, err := w.Write(req.Bytes()); err != nil {
		return nil, err
	}
	res := &Result{Refs: map[string]string{}, Symrefs: map[string]string{}, Via: ViaPrefixes}
	for {
		p, err := r.line()
		if err != nil {
			return nil, err
		}
		if p.kind == pktFlush {
			return res, nil
		}
		if p.kind != pktData {
			return nil, fmt.Errorf("unexpected packet in the ref list")
		}
		// "<oid> <name>[ symref-target:<ref>][ peeled:<oid>]"; "unborn
		// <name>" for a HEAD without a commit, never under refs/.
		f := strings.Split(p.text, " ")
		if len(f) < 2 || !keep(f[1], patterns) {
			continue
		}
		res.Refs[f[1]] = f[0]
		for _, attr := range f[2:] {
			if t, ok := strings.CutPrefix(attr, "symref-target:"); ok {
				res.Symrefs[f[1]] = t
			}
		}
	}
}

// v0 reads a v0 ref advertisement (every ref; symbolic refs only as the
// symref= capability names them, which upload-pack does for HEAD alone),
// then ends the exchange as a client that wants nothing does.
func v0(r *pktReader, w io.Writer, first pkt, patterns []string) (*Result, error) {
	res := &Result{Refs: map[string]string{}, Symrefs: map[string]string{}, Via: ViaV0}
	symrefs := map[string]string{}
	p := first
	for i := 0; ; i++ {
		if i > 0 {
			var err error
			if p, err = r.line(); err != nil {
				return nil, err
			}
		}
		if p.kind == pktFlush {
			break
		}
		if p.kind != pktData {
			return nil, fmt.Errorf("unexpected packet in the ref list")
		}
		line := p.text
		if i == 0 {
			var caps string
			line, caps, _ = strings.Cut(line, "\x00")
			for _, c := range strings.Fields(caps) {
				if v, ok := strings.CutPrefix(c, "symref="); ok {
					if from, to, ok := strings.Cut(v, ":"); ok {
						symrefs[from] = to
					}
				}
			}
		}
		oid, name, ok := strings.Cut(line, " ")
		if !ok || oid == "shallow" || !keep(name, patterns) {
			continue
		}
		res.Refs[name] = oid
	}
	for name := range res.Refs {
		if t, ok := symrefs[name]; ok {
			res.Symrefs[name] = t
		}
	}
	_, err := io.WriteString(w, "0000")
	return res, err
}

// sqQuote quotes s for the shell as git's sq_quote_buf does.
func sqQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, c := range []byte(s) {
		if c == '\'' || c == '!' {
			b.WriteString("'\\")
			b.WriteByte(c)
			b.WriteByte('\'')
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}
