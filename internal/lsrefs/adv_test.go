package lsrefs

// Adversarial cases: remotes, configuration and servers under which List
// must answer as `git ls-remote --refs --symref` does, and run nothing git
// would not run.

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// lsRemoteEnv runs the ls-remote List stands for, with env added, and
// parses it (the refs named only by their end dropped, as List drops
// them); ok is false when git failed.
func lsRemoteEnv(t *testing.T, dir string, env []string, remote string) (refs, symrefs map[string]string, r testbin.Result, ok bool) {
	t.Helper()
	env = append([]string{"GIT_PAGER=cat", "GIT_ADVICE=0", "GIT_OPTIONAL_LOCKS=0"}, env...)
	r = testbin.Run(dir, env, "git", append([]string{"-c", "protocol.version=2", "ls-remote", "--refs", "--symref", remote}, patterns...)...)
	if r.Code != 0 {
		return nil, nil, r, false
	}
	refs, symrefs = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		left, ref, _ := strings.Cut(line, "\t")
		if target, sym := strings.CutPrefix(left, "ref: "); sym {
			symrefs[ref] = target
		} else if keep(ref, patterns) {
			refs[ref] = left
		}
	}
	return refs, symrefs, r, true
}

// script writes an executable file.
func script(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	testbin.WriteFile(t, path, content)
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// pkts frames lines as pkt-lines, "" standing for a flush.
func pkts(lines ...string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		if l == "" {
			b.WriteString("0000")
			continue
		}
		writePkt(&b, l+"\n")
	}
	return b.Bytes()
}

// serve makes remote.origin.uploadpack a server that answers with the
// bytes of answer whatever it is asked (then reads its input to the end).
func serve(t *testing.T, work string, answer []byte) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "answer")
	if err := os.WriteFile(file, answer, 0o644); err != nil {
		t.Fatal(err)
	}
	testbin.Git(t, work, "config", "remote.origin.uploadpack", "sh -c 'cat "+file+"; cat >/dev/null' x")
}

// git reads the first of several remote.<name>.uploadpack values ("more
// than one uploadpack given, using the first"); List ran the last: a
// command git does not run. An empty first value is git's too: it runs
// " '<path>'" (and fails); List ran git-upload-pack.
func TestAdvUploadPackFirstOfSeveral(t *testing.T) {
	_, work := origin(t, "sha1")
	marker := filepath.Join(t.TempDir(), "ran")
	testbin.Git(t, work, "config", "--add", "remote.origin.uploadpack", "git-upload-pack")
	testbin.Git(t, work, "config", "--add", "remote.origin.uploadpack", "touch "+marker+"; git-upload-pack")
	wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
	if !ok || testbin.Exists(marker) {
		t.Fatalf("ls-remote: %v; ran the second uploadpack: %v", r, testbin.Exists(marker))
	}
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if testbin.Exists(marker) {
		t.Fatal("List ran the second remote.origin.uploadpack, which git does not run")
	}
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, res, wantRefs, wantSym)

	testbin.Git(t, work, "config", "--unset-all", "remote.origin.uploadpack")
	testbin.Git(t, work, "config", "--add", "remote.origin.uploadpack", "")
	testbin.Git(t, work, "config", "--add", "remote.origin.uploadpack", "git-upload-pack")
	if _, _, r, ok := lsRemoteEnv(t, work, nil, "origin"); ok {
		t.Fatalf("ls-remote with an empty first uploadpack: %v", r)
	}
	if res, err := List(context.Background(), open(t, work), "origin", patterns...); err == nil {
		t.Fatalf("listed %v via %s; ls-remote fails: its uploadpack is the empty first value", res.Refs, res.Via)
	}
}

// A server that names a ref's object by anything but an object id: git
// refuses the answer; List passed the text on as the id, and its caller
// hands ids to cat-file (a revision there: "HEAD:secret") and to fetch
// (a refspec there: "+refs/heads/x:refs/heads/main" overwrites a branch).
func TestAdvServerSendsNoObjectID(t *testing.T) {
	_, work := origin(t, "sha1")
	good := strings.Repeat("a", 40)
	for _, c := range []struct {
		name   string
		answer []byte
	}{
		{"v2 refspec", pkts("version 2", "ls-refs", "", "+refs/heads/evil:refs/heads/main refs/taskclaims/r1/1", "")},
		{"v2 revision", pkts("version 2", "ls-refs", "", "HEAD:secret refs/heads/r1-main", "")},
		{"v2 short id", pkts("version 2", "ls-refs", "", good[:39]+" refs/heads/r1-main", "")},
		{"v2 bad peeled", pkts("version 2", "ls-refs", "", good+" refs/heads/r1-main peeled:xyz", "")},
		{"v0 refspec", pkts("+refs/heads/evil:refs/heads/main refs/heads/r1-main\x00symref=HEAD:refs/heads/main", "")},
		{"v0 second line", pkts(good+" refs/heads/main\x00", "--output=x refs/heads/r1-main", "")},
		{"v0 line without id", pkts(good+" refs/heads/main\x00", "refs/heads/r1-main", "")},
		{"v2 sha256 id from a sha1 server", pkts("version 2", "ls-refs", "", strings.Repeat("c", 64)+" refs/heads/r1-main", "")},
		{"v2 unknown object format", pkts("version 2", "ls-refs", "object-format=md5", "", good+" refs/heads/r1-main", "")},
		{"v0 sha256 id from a sha1 server", pkts(strings.Repeat("c", 64)+" refs/heads/r1-main\x00", "")},
		{"v0 sha1 id from a sha256 server", pkts(good+" refs/heads/r1-main\x00object-format=sha256", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			serve(t, work, c.answer)
			if _, _, r, ok := lsRemoteEnv(t, work, nil, "origin"); ok {
				t.Fatalf("ls-remote accepts it: %v", r)
			}
			res, err := List(context.Background(), open(t, work), "origin", patterns...)
			if err == nil {
				t.Fatalf("listed %v %v (via %s); ls-remote refuses the answer", res.Refs, res.Symrefs, res.Via)
			}
		})
	}
}

// An "unborn <name>" line names no object: git skips it (it names the
// target of an unborn HEAD, when asked for); List listed "unborn" as the
// ref's id.
func TestAdvServerUnbornLine(t *testing.T) {
	_, work := origin(t, "sha1")
	id := strings.Repeat("d", 40)
	serve(t, work, pkts("version 2", "ls-refs", "", "unborn refs/heads/r1-main symref-target:refs/heads/x", id+" refs/heads/main", ""))
	wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
	if !ok {
		t.Fatal(r)
	}
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, res, wantRefs, wantSym)
}

// An id in capitals is an id: git reads it and prints it as it prints
// ids, in lower case.
func TestAdvServerUpperCaseID(t *testing.T) {
	_, work := origin(t, "sha1")
	serve(t, work, pkts("version 2", "ls-refs", "", strings.Repeat("E", 40)+" refs/heads/r1-main", ""))
	wantRefs, _, r, ok := lsRemoteEnv(t, work, nil, "origin")
	if !ok {
		t.Fatal(r)
	}
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(res.Refs, wantRefs) {
		t.Fatalf("listed %v, ls-remote says %v", res.Refs, wantRefs)
	}
}

// A server that says a protocol version git does not speak: git stops;
// List read what followed as a v0 ref list.
func TestAdvServerUnknownVersion(t *testing.T) {
	_, work := origin(t, "sha1")
	id := strings.Repeat("b", 40)
	for _, v := range []string{"version 3", "version 0", "version 2 ", "version x"} {
		t.Run(v, func(t *testing.T) {
			serve(t, work, pkts(v, id+" refs/heads/r1-main\x00", ""))
			if _, _, r, ok := lsRemoteEnv(t, work, nil, "origin"); ok {
				t.Fatalf("ls-remote accepts it: %v", r)
			}
			res, err := List(context.Background(), open(t, work), "origin", patterns...)
			if err == nil {
				t.Fatalf("listed %v (via %s); ls-remote refuses %q", res.Refs, res.Via, v)
			}
		})
	}
}

// git looks a program up in PATH as run-command's locate_in_PATH does:
// the first regular file its owner may execute (S_IXUSR). List took the
// first with any execute bit: an ssh git skips, run.
func TestAdvPathOwnerExecuteBit(t *testing.T) {
	originDir, work := origin(t, "sha1")
	marker := filepath.Join(t.TempDir(), "ran")
	skipped, used := t.TempDir(), t.TempDir()
	script(t, filepath.Join(skipped, "ssh"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n", 0o655)
	script(t, filepath.Join(used, "ssh"), "#!/bin/sh\nfor last; do :; done\nexec sh -c \"$last\"\n", 0o755)
	t.Setenv("PATH", skipped+":"+used+":"+os.Getenv("PATH"))
	testbin.Git(t, work, "config", "remote.origin.url", "host:"+originDir)
	wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
	if !ok || testbin.Exists(marker) {
		t.Fatalf("ls-remote: %v; ran the ssh without the owner's execute bit: %v", r, testbin.Exists(marker))
	}
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if testbin.Exists(marker) {
		t.Fatal("List ran an ssh git skips (no execute bit for its owner)")
	}
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, res, wantRefs, wantSym)
}

// git runs the ssh command from the top of the worktree whatever
// directory it was started in (setup chdirs there): a relative path in
// it, or a relative PATH entry, means the same file. List ran it from the
// directory the repository was opened in.
func TestAdvWorkingDirectory(t *testing.T) {
	originDir, work := origin(t, "sha1")
	sub := filepath.Join(work, "sub", "dir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	testbin.Git(t, work, "config", "remote.origin.url", "host:"+originDir)
	testbin.Git(t, work, "config", "core.sshCommand", `pwd >>"$SSH_LOG"; for last; do :; done; exec sh -c "$last"`)
	for _, c := range []struct{ name, dir string }{{"top", work}, {"subdirectory", sub}} {
		t.Run(c.name, func(t *testing.T) {
			gitLog, ourLog := filepath.Join(logs, c.name+".git"), filepath.Join(logs, c.name+".ours")
			if _, _, r, ok := lsRemoteEnv(t, c.dir, []string{"SSH_LOG=" + gitLog}, "origin"); !ok {
				t.Fatal(r)
			}
			t.Setenv("SSH_LOG", ourLog)
			if _, err := List(context.Background(), open(t, c.dir), "origin", patterns...); err != nil {
				t.Fatal(err)
			}
			g, _ := os.ReadFile(gitLog)
			o, _ := os.ReadFile(ourLog)
			if len(g) == 0 || string(g) != string(o) {
				t.Fatalf("git ran ssh in\n%s\nList ran it in\n%s", g, o)
			}
		})
	}
	t.Run("relative GIT_SSH from a subdirectory", func(t *testing.T) {
		testbin.Git(t, work, "config", "--unset", "core.sshCommand")
		script(t, filepath.Join(work, "tools", "ssh"), "#!/bin/sh\nfor last; do :; done\nexec sh -c \"$last\"\n", 0o755)
		wantRefs, wantSym, r, ok := lsRemoteEnv(t, sub, []string{"GIT_SSH=tools/ssh"}, "origin")
		if !ok {
			t.Fatal(r)
		}
		t.Setenv("GIT_SSH", "tools/ssh")
		res, err := List(context.Background(), open(t, sub), "origin", patterns...)
		if err != nil {
			t.Fatal(err)
		}
		sameListing(t, res, wantRefs, wantSym)
	})
}

// A remote spelled like an option is a remote (a push URL the caller
// read from the configuration, say): the ls-remote List falls back on
// took it for one, and ran --upload-pack's command.
func TestAdvRemoteLikeAnOption(t *testing.T) {
	_, work := origin(t, "sha1")
	marker := filepath.Join(t.TempDir(), "ran")
	_, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for _, remote := range []string{"--upload-pack=touch " + marker, "-u/bin/touch " + marker} {
		res, err := List(context.Background(), open(t, work), remote, patterns...)
		if testbin.Exists(marker) {
			t.Fatalf("%q ran a command (via %v)", remote, res)
		}
		if err == nil {
			t.Fatalf("%q listed %v via %s: there is no such remote", remote, res.Refs, res.Via)
		}
	}
}

// Remote spellings and places List reads directly or leaves to ls-remote,
// each answering as ls-remote does (or failing where it fails).
func TestAdvSameAsLsRemote(t *testing.T) {
	originDir, work := origin(t, "sha1")
	tmp := t.TempDir()
	odd := filepath.Join(tmp, "a b'c\"$(touch x)!\n-d")
	testbin.Git(t, "", "clone", "-q", "--bare", originDir, odd)
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(originDir, link); err != nil {
		t.Fatal(err)
	}
	nonBare := filepath.Join(tmp, "nonbare")
	testbin.Git(t, "", "clone", "-q", "--mirror", originDir, filepath.Join(nonBare, ".git"))
	testbin.Git(t, nonBare, "config", "core.bare", "false")
	gitFile := filepath.Join(tmp, "gitfile")
	testbin.WriteFile(t, gitFile+"/.git", "gitdir: "+originDir+"\n")
	bundle := filepath.Join(tmp, "o.bundle")
	testbin.Git(t, originDir, "bundle", "create", "-q", bundle, "--all")
	sha256 := filepath.Join(tmp, "sha256.git")
	testbin.Git(t, "", "init", "-q", "--bare", "--object-format=sha256", sha256)
	testbin.Git(t, "", "--git-dir="+sha256, "update-ref", "refs/heads/r1-main", testbin.Git(t, "", "--git-dir="+sha256, "commit-tree", "-m", "x", testbin.Git(t, "", "--git-dir="+sha256, "mktree")))
	owned := filepath.Join(tmp, "owned.git")
	testbin.Git(t, "", "clone", "-q", "--bare", originDir, owned)
	if os.Geteuid() == 0 {
		if err := filepath.Walk(owned, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 65534, 65534)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, url string
		config    [][2]string
	}{
		{"odd characters", odd, nil},
		{"odd characters, file URL", "file://" + odd, nil},
		{"symlink", link, nil},
		{"non-bare repository's worktree", nonBare, nil},
		{"a .git file", gitFile, nil},
		{"a bundle", bundle, nil},
		{"a bundle, file URL", "file://" + bundle, nil},
		{"sha256 remote", sha256, nil},
		{"owned by another user", owned, nil},
		{"path ending in .git left out", strings.TrimSuffix(originDir, ".git"), nil},
		{"missing", filepath.Join(tmp, "missing"), nil},
		{"leading dash, scp-like", "-oProxyCommand=touch x:" + originDir, nil},
		{"leading dash in brackets", "[-oProxyCommand=touch x]:" + originDir, nil},
		{"leading dash, ssh URL", "ssh://-oProxyCommand=x" + originDir, nil},
		{"ext helper", "ext::sh -c touch% x", nil},
		{"insteadOf to ext", "evil:x", [][2]string{{"url.ext::sh -c touch% x.insteadOf", "evil:"}}},
		{"protocol.allow never", originDir, [][2]string{{"protocol.allow", "never"}}},
		{"uploadpack with metacharacters", originDir, [][2]string{{"remote.origin.uploadpack", "f() { git-upload-pack \"$@\"; }; f"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "w")
			testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
			testbin.Git(t, dir, "config", "remote.origin.url", c.url)
			for _, kv := range c.config {
				testbin.Git(t, dir, "config", kv[0], kv[1])
			}
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, dir, []string{"GIT_SSH_COMMAND=false"}, "origin")
			t.Setenv("GIT_SSH_COMMAND", "false")
			res, err := List(context.Background(), open(t, dir), "origin", patterns...)
			if testbin.Exists(filepath.Join(dir, "x")) {
				t.Fatal("a command ran")
			}
			switch {
			case !ok && err == nil:
				t.Fatalf("ls-remote fails (%s), List listed %v via %s", r.Stderr, res.Refs, res.Via)
			case ok && err != nil:
				t.Fatalf("ls-remote lists %v, List fails: %v", wantRefs, err)
			case ok && (!maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym)):
				t.Fatalf("listed (via %s)\n%v\n%v\nls-remote says\n%v\n%v", res.Via, res.Refs, res.Symrefs, wantRefs, wantSym)
			}
			if res != nil {
				t.Logf("via %s %s", res.Via, res.Why)
			} else {
				t.Logf("both fail: %v", err)
			}
		})
	}
}

// GIT_CONFIG names the file `git config` reads instead of the
// configuration ("no effect on other Git commands"): ls-remote reads the
// repository's remote, and never this file's ssh command. List read the
// remote's URL and the ssh command through `git config`.
func TestAdvGitConfigVariable(t *testing.T) {
	_, work := origin(t, "sha1")
	marker := filepath.Join(t.TempDir(), "ran")
	other := filepath.Join(t.TempDir(), "config")
	testbin.WriteFile(t, other, "[remote \"origin\"]\n\turl = host:/elsewhere\n[core]\n\tsshCommand = touch "+marker+"; false\n")
	wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, []string{"GIT_CONFIG=" + other}, "origin")
	if !ok || testbin.Exists(marker) {
		t.Fatalf("ls-remote: %v; ran the file's ssh command: %v", r, testbin.Exists(marker))
	}
	t.Setenv("GIT_CONFIG", other)
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if testbin.Exists(marker) {
		t.Fatal("List ran the ssh command of the file GIT_CONFIG names, which git does not read")
	}
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, res, wantRefs, wantSym)
}

// The process that answered in full then exits non-zero (a wrapper, an
// ssh that reports the connection's end so): git's listing is done once
// the list is read and it does not look at the exit (disconnect_git);
// List failed.
func TestAdvServerExitsNonZeroAfterAnswer(t *testing.T) {
	_, work := origin(t, "sha1")
	for _, up := range []string{`sh -c 'git-upload-pack "$1"; exit 3' x`, `sh -c 'git-upload-pack "$1"; kill -9 $$' x`} {
		testbin.Git(t, work, "config", "remote.origin.uploadpack", up)
		wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
		if !ok {
			t.Fatal(r)
		}
		res, err := List(context.Background(), open(t, work), "origin", patterns...)
		if err != nil {
			t.Fatalf("%s: %v; ls-remote lists %d refs", up, err, len(wantRefs))
		}
		sameListing(t, res, wantRefs, wantSym)
	}
}

// A server that sends what git cannot read and lingers: git fails at once
// with the reason (it does not wait for a connection it gives up on; in
// a shell, `git ls-remote` returns in milliseconds); List waited for the
// process to end, and reported the deadline instead.
func TestAdvServerGarbageThenLingers(t *testing.T) {
	_, work := origin(t, "sha1")
	testbin.Git(t, work, "config", "remote.origin.uploadpack", `sh -c 'printf 0009garbage; exec >&- 2>&-; sleep ${LINGER:-0}' x`)
	if _, _, r, ok := lsRemoteEnv(t, work, nil, "origin"); ok {
		t.Fatalf("ls-remote accepts it: %v", r)
	}
	t.Setenv("LINGER", "30")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := List(ctx, open(t, work), "origin", patterns...)
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the protocol error", err)
	}
}

// ssh URLs spelled every way git reads them: ssh is run with the same
// arguments as git runs it, or not at all where git does not run it, and
// the answers agree.
func TestAdvSSHSpellings(t *testing.T) {
	originDir, work := origin(t, "sha1")
	bin := t.TempDir()
	ssh := script(t, filepath.Join(bin, "ssh"), "#!/bin/sh\n{ echo run:; for a; do printf '\\t%s\\n' \"$a\"; done; } >>\"$SSH_LOG\"\nfor last; do :; done\nexec sh -c \"$last\"\n", 0o755)
	rel, err := filepath.Rel(os.Getenv("HOME"), originDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{
		":" + originDir,
		"host:x~/" + rel,
		"ssh://host/~/" + rel,
		"[host]:" + originDir,
		"user@[::1]:" + originDir,
		"ssh://[host]:22" + originDir,
		"ssh://user@host:" + originDir,
		"ssh://host:+22" + originDir,
		"ssh://host:65536" + originDir,
		"ssh://host:1:2" + originDir,
		"ssh+git://host" + originDir,
		"ssh://ho'st$(touch x)" + originDir,
		"host:",
		"ssh://host",
		"host:-x",
		"ssh://host/-x",
		"user@-x:" + originDir,
		"ssh://host" + originDir + "/'$(touch x)'",
	} {
		t.Run(url, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "w")
			testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
			testbin.Git(t, dir, "config", "remote.origin.url", url)
			logs := t.TempDir()
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, dir, []string{"GIT_SSH=" + ssh, "SSH_LOG=" + filepath.Join(logs, "git")}, "origin")
			t.Setenv("GIT_SSH", ssh)
			t.Setenv("SSH_LOG", filepath.Join(logs, "ours"))
			res, err := List(context.Background(), open(t, dir), "origin", patterns...)
			if testbin.Exists(filepath.Join(dir, "x")) {
				t.Fatal("a command ran")
			}
			gitRan, _ := os.ReadFile(filepath.Join(logs, "git"))
			weRan, _ := os.ReadFile(filepath.Join(logs, "ours"))
			if res != nil && res.Via == ViaLsRemote {
				// ls-remote ran it: the same by construction.
				weRan = gitRan
			}
			if string(gitRan) != string(weRan) {
				t.Errorf("git ran ssh as\n%s\nList ran it as\n%s", gitRan, weRan)
			}
			switch {
			case !ok && err == nil:
				t.Fatalf("ls-remote fails (%s), List listed %v via %s", r.Stderr, res.Refs, res.Via)
			case ok && err != nil:
				t.Fatalf("ls-remote lists %v, List fails: %v", wantRefs, err)
			case ok && (!maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym)):
				t.Fatalf("listed (via %s)\n%v\n%v\nls-remote says\n%v\n%v", res.Via, res.Refs, res.Symrefs, wantRefs, wantSym)
			}
		})
	}
}

// git reads a line as a C string: what follows a NUL is not there (but on
// a v0 list's first line, where it is the capabilities). List took the
// NUL and what follows into the ref's name, and dropped the ref.
func TestAdvServerNULInLine(t *testing.T) {
	_, work := origin(t, "sha1")
	id := strings.Repeat("f", 40)
	for _, c := range []struct {
		name   string
		answer []byte
	}{
		{"v2", pkts("version 2", "ls-refs", "", id+" refs/heads/r1-main\x00junk", "")},
		{"v2 attribute", pkts("version 2", "ls-refs", "", id+" refs/heads/main symref-target:refs/heads/x\x00junk", "")},
		{"v0", pkts(id+" refs/heads/main\x00", id+" refs/heads/r1-main\x00junk", "")},
		{"v2 version and capabilities", pkts("version 2\x00junk", "ls-refs\x00junk", "", id+" refs/heads/r1-main", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			serve(t, work, c.answer)
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
			if !ok || len(wantRefs) == 0 {
				t.Fatal(r)
			}
			res, err := List(context.Background(), open(t, work), "origin", patterns...)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, res, wantRefs, wantSym)
		})
	}
}

// A v0 server's symref= capability names a symbolic ref only when both
// its names are well formed (parse_one_symref_info); List took any.
func TestAdvServerV0BadSymref(t *testing.T) {
	_, work := origin(t, "sha1")
	id := strings.Repeat("1", 40)
	for _, c := range []string{"refs/heads/r1-main:refs/heads/a..b", "refs/heads/r1-main:refs/heads/x y", "refs/heads/r1-main:", "refs/heads/r1-main:refs/heads/ok"} {
		t.Run(c, func(t *testing.T) {
			serve(t, work, pkts(id+" refs/heads/r1-main\x00symref="+c, ""))
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
			if !ok {
				t.Fatal(r)
			}
			res, err := List(context.Background(), open(t, work), "origin", patterns...)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym) {
				t.Fatalf("listed\n%v\n%q\nls-remote says\n%v\n%q", res.Refs, res.Symrefs, wantRefs, wantSym)
			}
		})
	}
}

// The server's text in an error is shown as git shows it, control
// characters as '?' (vreportf): a hostile server's terminal escapes are
// not passed to the user's terminal. List passed them on.
func TestAdvServerErrorEscapes(t *testing.T) {
	_, work := origin(t, "sha1")
	id := strings.Repeat("2", 40)
	for _, c := range []struct {
		name   string
		answer []byte
	}{
		{"ERR packet", pkts("ERR \x1b]2;owned\x07\x1b[2Jgone")},
		{"v2 bad line", pkts("version 2", "ls-refs", "", "\x1b[2J refs/heads/r1-main", "")},
		{"v0 bad line", pkts(id+" refs/heads/main\x00", "\x1b[2J", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			serve(t, work, c.answer)
			_, _, r, ok := lsRemoteEnv(t, work, nil, "origin")
			if ok || strings.Contains(r.Stderr, "\x1b") {
				t.Fatalf("ls-remote: %q", r.Stderr)
			}
			_, err := List(context.Background(), open(t, work), "origin", patterns...)
			if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") {
				t.Fatalf("err %q; git says %q", err, r.Stderr)
			}
		})
	}
}

// Inside a hook: the caller's environment pins git to the repository
// (GIT_DIR, GIT_INDEX_FILE, GIT_PREFIX, GIT_WORK_TREE, GIT_CONFIG_PARAMETERS
// with configuration of its own): ssh is run as git runs it then, with
// the same arguments and environment, and the answers agree.
func TestAdvHookEnvironment(t *testing.T) {
	originDir, work := origin(t, "sha1")
	bin := t.TempDir()
	ssh := script(t, filepath.Join(bin, "ssh"), fakeSSH, 0o755)
	testbin.Git(t, work, "config", "remote.origin.url", "host:"+originDir)
	sub := filepath.Join(work, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dir  string
		env  []string
	}{
		{"pre-push", work, []string{"GIT_DIR=.git", "GIT_INDEX_FILE=.git/index", "GIT_PREFIX=", "GIT_EXEC_PATH=" + testbin.Git(t, "", "--exec-path")}},
		{"work tree from a subdirectory", sub, []string{"GIT_DIR=" + filepath.Join(work, ".git"), "GIT_WORK_TREE=" + work, "GIT_PREFIX=sub/"}},
		{"git -c", work, []string{"GIT_CONFIG_PARAMETERS='core.sshcommand'='" + ssh + " -o X=y' 'protocol.version'='0'", "GIT_SSH=/nonexistent"}},
		{"GIT_CONFIG_COUNT", work, []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=ssh.variant", "GIT_CONFIG_VALUE_0=simple"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs := t.TempDir()
			env := append([]string{"GIT_SSH=" + ssh, "SSH_LOG=" + filepath.Join(logs, "git")}, c.env...)
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, c.dir, env, "origin")
			if !ok {
				t.Fatal(r)
			}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			t.Setenv("SSH_LOG", filepath.Join(logs, "ours"))
			res, err := List(context.Background(), open(t, c.dir), "origin", patterns...)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym) {
				t.Fatalf("listed (via %s)\n%v\n%v\nls-remote says\n%v\n%v", res.Via, res.Refs, res.Symrefs, wantRefs, wantSym)
			}
			gitRan, _ := os.ReadFile(filepath.Join(logs, "git"))
			weRan, _ := os.ReadFile(filepath.Join(logs, "ours"))
			if len(gitRan) == 0 || string(gitRan) != string(weRan) {
				t.Errorf("git ran ssh as\n%s\nList ran it as\n%s", gitRan, weRan)
			}
		})
	}
}

// Servers that answer v1, or v0 with its peeled tags, shallow lines and
// the dummy line of an empty repository: the answer is ls-remote's.
func TestAdvOlderProtocols(t *testing.T) {
	originDir, work := origin(t, "sha1")
	testbin.Git(t, originDir, "tag", "-a", "-m", "t", "r1-task-tag", "refs/heads/r1-main")
	testbin.Git(t, originDir, "update-ref", "refs/taskclaims/r1/7", "refs/tags/r1-task-tag")
	id := strings.Repeat("4", 40)
	for _, c := range []struct {
		name, uploadPack string
		answer           []byte
	}{
		{name: "v1", uploadPack: "env GIT_PROTOCOL=version=1 git-upload-pack"},
		{name: "v0", uploadPack: "env -u GIT_PROTOCOL git-upload-pack"},
		{name: "v0 shallow lines", answer: pkts(id+" refs/heads/r1-main\x00shallow", id+" refs/heads/r1-main^{}", "shallow "+id, "")},
		{name: "v0 ref after shallow", answer: pkts(id+" refs/heads/r1-main\x00", "shallow "+id, id+" refs/heads/main", "")},
		{name: "v0 empty", answer: pkts(strings.Repeat("0", 40)+" capabilities^{}\x00symref=HEAD:refs/heads/main", "")},
		{name: "v1 empty", answer: pkts("version 1", strings.Repeat("0", 40)+" capabilities^{}\x00", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.answer != nil {
				serve(t, work, c.answer)
			} else {
				testbin.Git(t, work, "config", "remote.origin.uploadpack", c.uploadPack)
			}
			wantRefs, wantSym, r, ok := lsRemoteEnv(t, work, nil, "origin")
			res, err := List(context.Background(), open(t, work), "origin", patterns...)
			switch {
			case !ok && err == nil:
				t.Fatalf("ls-remote fails (%s), List listed %v via %s", r.Stderr, res.Refs, res.Via)
			case ok && err != nil:
				t.Fatalf("ls-remote lists %v, List fails: %v", wantRefs, err)
			case ok && (!maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym)):
				t.Fatalf("listed (via %s)\n%v\n%v\nls-remote says\n%v\n%v", res.Via, res.Refs, res.Symrefs, wantRefs, wantSym)
			}
		})
	}
}

// sameListing fails the test unless List listed what ls-remote says.
func sameListing(t *testing.T, res *Result, refs, symrefs map[string]string) {
	t.Helper()
	if !maps.Equal(res.Refs, refs) || !maps.Equal(res.Symrefs, symrefs) {
		t.Fatalf("listed\n%v\n%v\nls-remote says\n%v\n%v", res.Refs, res.Symrefs, refs, symrefs)
	}
}
