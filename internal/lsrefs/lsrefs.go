// Package lsrefs lists the refs of a remote that match patterns, as
// `git ls-remote --refs --symref REMOTE PATTERN...` does (full ids, and the
// symbolic refs with their targets), without making the remote send its
// whole ref list.
//
// git's ls-remote asks a protocol v2 server for ref prefixes only for
// --heads and --tags: for patterns it lists every ref of the remote and
// matches them itself, so a remote with 22,000 refs costs every reader of
// a few claims over a hundred milliseconds. Here the remotes git reaches
// by starting a process (upload-pack on a local path or file:// URL; ssh,
// run as git runs it, for ssh:// and host:path) are reached through the
// same process, asked for protocol v2 as git asks, and sent ls-refs with
// one `ref-prefix` per pattern (its text before the first '*'); the answer
// is filtered as ls-remote filters. A server that answers v0 sends its
// whole list, read as ls-remote reads it. git://, http(s) and the other
// remote helpers, bundles, relative paths, and configuration this package
// does not reproduce are read with ls-remote itself (resolve says which).
package lsrefs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
// (only v2 names every symbolic ref). It lists the whole ref list. The
// remote is a remote whatever its spelling (a push URL read from the
// configuration may begin with '-'), never an option of ls-remote's such
// as --upload-pack.
func lsRemote(ctx context.Context, repo *gitcmd.Repo, remote string, patterns []string, why string) (*Result, error) {
	args := append([]string{"-c", "protocol.version=2", "ls-remote", "--refs", "--symref", "--end-of-options", remote}, patterns...)
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

// endpoint is a remote read directly: the process git would start to
// reach its upload-pack.
type endpoint struct {
	// argv is that process: a path, or a name looked up in PATH.
	argv []string
	// protocol is whether GIT_PROTOCOL=version=2 is handed to it: git
	// does for a local upload-pack and OpenSSH, not for ssh variants
	// that cannot pass it on (their servers answer v0).
	protocol bool
	// execPath is git's exec-path, which git puts first on PATH for what
	// it starts ("" when the process is git itself, found as gitcmd
	// finds it).
	execPath string
	// trace is how the process is named in the traces.
	trace []string
	// dir is the directory it runs in (workDir).
	dir string
}

// killWait is how long a killed upload-pack's pipes are waited for: a
// process it started may hold them (a wrapper's sleep).
const killWait = time.Second

// shellPath is the shell git runs commands with (its SHELL_PATH).
const shellPath = "/bin/sh"

// shellMeta are the characters that make git run a command through the
// shell (run-command.c's prepare_shell_cmd).
const shellMeta = "|&;<>()$`\\\"' \t\n*?[#~=%"

// shellCommand is argv as git runs a command with use_shell: through
// the shell when argv[0] holds a shell metacharacter, "$@" passing the
// arguments; else as it is.
func shellCommand(argv []string) []string {
	if !strings.ContainsAny(argv[0], shellMeta) {
		return argv
	}
	cmd := argv[0]
	if len(argv) > 1 {
		cmd += ` "$@"`
	}
	return append([]string{shellPath, "-c", cmd}, argv...)
}

// repoLocal are the variables git removes from the environment of the
// process it starts to reach a remote (local_repo_env): they describe
// this repository, not the remote's.
var repoLocal = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR"}

// environ is the process's environment: what a git run by this program
// would hand it (gitcmd's read-only runner adds the same), less the
// repository's own variables, with protocol v2 asked for, and git's
// GIT_EXEC_PATH and PATH led by it (setup_path).
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
		if (k == "GIT_PROTOCOL" && ep.protocol) || ((k == "PATH" || k == "GIT_EXEC_PATH") && ep.execPath != "") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ADVICE=0", "GIT_OPTIONAL_LOCKS=0")
	if ep.protocol {
		env = append(env, "GIT_PROTOCOL=version=2")
	}
	if ep.execPath != "" {
		env = append(env, "GIT_EXEC_PATH="+ep.execPath, "PATH="+execPATH(ep.execPath))
	}
	return env
}

// execPATH is PATH as git sets it for what it starts (setup_path).
func execPATH(execPath string) string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return execPath + ":" + path
}

// lookPath finds name as git's run-command does: a name with a '/' is
// itself, else the first regular file of that name in the directories of
// path (an empty one is the current directory) that its owner may execute
// (is_executable tests S_IXUSR alone: a file executable by its group or
// others only is passed over, even where this process could run it).
// A relative name or directory is taken from wd, the directory git runs
// in; the file found is returned absolute.
func lookPath(name, path, wd string) (string, bool) {
	if strings.ContainsRune(name, '/') {
		return absIn(wd, name), true
	}
	for _, dir := range strings.Split(path, ":") {
		f := name
		if dir != "" {
			f = dir + "/" + name
		}
		f = absIn(wd, f)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o100 != 0 {
			return f, true
		}
	}
	return "", false
}

// absIn is path taken from the directory wd.
func absIn(wd, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(wd, path)
}

// workDir is the directory git runs what it starts in, ls-remote being run
// in repo's directory: the top of the worktree when there is one (setup
// goes there), else that directory (a git directory, or the work tree
// GIT_DIR without GIT_WORK_TREE makes of it). A relative ssh command,
// GIT_SSH or PATH entry names what it names from there.
func workDir(repo *gitcmd.Repo) (string, error) {
	if repo.TopLevel != "" {
		return repo.TopLevel, nil
	}
	return filepath.Abs(repo.Dir)
}

// command is the process to start: git's own upload-pack found as gitcmd
// finds git, anything else in the PATH git would give it.
func (ep *endpoint) command(ctx context.Context) (*exec.Cmd, error) {
	if ep.execPath == "" {
		return exec.CommandContext(ctx, ep.argv[0], ep.argv[1:]...), nil
	}
	prog, ok := lookPath(ep.argv[0], execPATH(ep.execPath), ep.dir)
	if !ok {
		return nil, fmt.Errorf("cannot run %s: No such file or directory", ep.argv[0])
	}
	return exec.CommandContext(ctx, prog, ep.argv[1:]...), nil
}

// list starts the process, asks for the refs under the patterns'
// prefixes, and filters the answer.
func (ep *endpoint) list(ctx context.Context, repo *gitcmd.Repo, patterns []string) (*Result, error) {
	args := ep.trace
	cmd, err := ep.command(ctx)
	if err != nil {
		return nil, &gitcmd.Error{Args: args, ExitCode: -1, Err: err}
	}
	// Counted and traced as gitcmd's own processes are; the timing trace
	// gets named points, its lines being gitcmd's to write.
	gitcmd.Started(args)
	gitcmd.Mark("ls-refs: " + strings.Join(args, " ") + " started")
	defer gitcmd.Mark("ls-refs: " + strings.Join(args, " ") + " ended")
	var stderr bytes.Buffer
	var stdin io.WriteCloser
	var stdout io.ReadCloser
	for try := 0; ; try++ {
		cmd.Dir = ep.dir
		cmd.Env = ep.environ()
		cmd.WaitDelay = killWait
		cmd.Stderr = &stderr
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
		err = cmd.Start()
		if err == nil {
			break
		}
		stdin.Close()
		stdout.Close()
		if try > 0 || !isENOEXEC(err) {
			return nil, &gitcmd.Error{Args: args, ExitCode: -1, Err: err}
		}
		// As git does: a program the system cannot execute (a script
		// without #!) is run by the shell.
		cmd = exec.CommandContext(ctx, shellPath, append([]string{cmd.Path}, cmd.Args[1:]...)...)
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
	if perr != nil {
		// git gives up on a server it cannot read without waiting for
		// it (it dies): one that lingers is given a moment to say why on
		// its standard error, then stopped.
		stop := time.AfterFunc(killWait, func() { cmd.Process.Kill() })
		defer stop.Stop()
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// A list read in full is the answer whatever the process's exit: git
	// does not look at it once the list is read (disconnect_git); a
	// wrapper, or an ssh, may exit non-zero after a complete answer.
	if perr != nil {
		// The message may quote the server: shown as git shows it.
		perr = errors.New(printable(perr.Error()))
		ge := &gitcmd.Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: perr}
		if ee, ok := werr.(*exec.ExitError); ok {
			ge.ExitCode = ee.ExitCode()
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
	if first.kind == pktFlush {
		// A v0 server with nothing to list (git sends a capabilities^{}
		// line instead, older servers may not): an empty list.
		_, err := io.WriteString(w, "0000")
		return &Result{Refs: map[string]string{}, Symrefs: map[string]string{}, Via: ViaV0}, err
	}
	if first.kind != pktData {
		return nil, fmt.Errorf("the remote sent no ref list")
	}
	if v, ok := strings.CutPrefix(cString(first.text), "version "); ok {
		// connect.c's determine_protocol_version_client: a version git
		// does not speak ends the exchange.
		switch v {
		case "2":
			return v2(r, w, patterns)
		case "1":
			if first, err = r.line(); err != nil {
				return nil, err
			}
		case "0":
			return nil, fmt.Errorf("protocol error: server explicitly said version 0")
		default:
			return nil, fmt.Errorf("server is speaking an unknown protocol")
		}
	}
	return v0(r, w, first, patterns)
}

// printable is a message as git's vreportf prints it: control characters
// but tab and newline as '?', so that a server's text quoted in it cannot
// drive the terminal.
func printable(s string) string {
	b := []byte(s)
	for i, c := range b {
		if (c < 0x20 || c == 0x7f) && c != '\t' && c != '\n' {
			b[i] = '?'
		}
	}
	return string(b)
}

// cString is s as git reads a line, a C string: up to its first NUL.
func cString(s string) string {
	s, _, _ = strings.Cut(s, "\x00")
	return s
}

// hexLen is the length of an object id of the named format, 0 for a
// format git does not know.
func hexLen(format string) int {
	switch format {
	case "sha1":
		return 40
	case "sha256":
		return 64
	}
	return 0
}

// objectID is s as an object id of n hex digits, in lower case as git
// prints ids; false when s is not one. The server's ids are checked as git
// checks them (parse_oid_hex): the caller hands them to cat-file and
// fetch, where other text is a revision or a refspec.
func objectID(s string, n int) (string, bool) {
	if len(s) != n {
		return "", false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", false
		}
	}
	return strings.ToLower(s), true
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
		k, v, _ := strings.Cut(cString(p.text), "=")
		caps[k] = v
	}
	if _, ok := caps["ls-refs"]; !ok {
		return nil, fmt.Errorf("the remote's upload-pack does not support ls-refs")
	}
	var req bytes.Buffer
	writePkt(&req, "command=ls-refs\n")
	n := hexLen("sha1")
	if f, ok := caps["object-format"]; ok {
		if n = hexLen(f); n == 0 {
			return nil, fmt.Errorf("unknown object format '%s' specified by server", f)
		}
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
		// <name>" for a HEAD without a commit, which git skips. A line
		// git cannot read fails the listing as git fails it
		// (process_ref_v2).
		f := strings.Split(cString(p.text), " ")
		if len(f) >= 2 && f[0] == "unborn" {
			continue
		}
		oid, ok := "", len(f) >= 2
		if ok {
			oid, ok = objectID(f[0], n)
		}
		var target string
		for _, attr := range f[min(2, len(f)):] {
			if t, sym := strings.CutPrefix(attr, "symref-target:"); sym {
				target = t
			} else if peeled, is := strings.CutPrefix(attr, "peeled:"); is {
				_, valid := objectID(peeled, n)
				ok = ok && valid
			}
		}
		if !ok {
			return nil, fmt.Errorf("invalid ls-refs response: %s", p.text)
		}
		if !keep(f[1], patterns) {
			continue
		}
		res.Refs[f[1]] = oid
		if target != "" {
			res.Symrefs[f[1]] = target
		}
	}
}

// v0 reads a v0 ref advertisement (every ref; symbolic refs only as the
// symref= capability names them, which upload-pack does for HEAD alone),
// then ends the exchange as a client that wants nothing does.
func v0(r *pktReader, w io.Writer, first pkt, patterns []string) (*Result, error) {
	res := &Result{Refs: map[string]string{}, Symrefs: map[string]string{}, Via: ViaV0}
	symrefs := map[string]string{}
	// The ids' format is the one the capabilities name, when git knows
	// it; else sha1 (connect.c's process_capabilities).
	n := hexLen("sha1")
	shallow := false
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
		line := cString(p.text)
		if i == 0 {
			// The capabilities follow the first ref's NUL.
			_, caps, _ := strings.Cut(p.text, "\x00")
			caps = cString(caps)
			format := false
			for _, c := range strings.Fields(caps) {
				if v, ok := strings.CutPrefix(c, "symref="); ok {
					// Both names well formed, or git passes it over
					// (parse_one_symref_info).
					if from, to, ok := strings.Cut(v, ":"); ok && wellFormed(from) && wellFormed(to) {
						symrefs[from] = to
					}
				}
				if v, ok := strings.CutPrefix(c, "object-format="); ok && !format {
					format = true
					if hexLen(v) != 0 {
						n = hexLen(v)
					}
				}
			}
		}
		// "<oid> <name>" lines, then "shallow <oid>" lines; anything
		// else fails the listing as git fails it (get_remote_heads).
		word, name, _ := strings.Cut(line, " ")
		oid, isRef := objectID(word, n)
		isRef = isRef && !shallow && strings.Contains(line, " ")
		if !isRef {
			if _, valid := objectID(name, n); word != "shallow" || !valid {
				return nil, fmt.Errorf("protocol error: unexpected '%s'", line)
			}
			shallow = true
			continue
		}
		if !keep(name, patterns) {
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

// isENOEXEC says whether err is the system's refusal to execute a file
// that is no program it knows.
func isENOEXEC(err error) bool { return errors.Is(err, syscall.ENOEXEC) }

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
