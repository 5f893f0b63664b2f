package lsrefs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The patterns the report asks for (internal/resume's readRemote, through
// claims.ReadRemote): the run's claims, task branches and base, origin's
// default branches.
var patterns = []string{"refs/taskclaims/r1/*", "refs/heads/r1-task-*", "refs/heads/r1-main", "refs/heads/main", "refs/heads/master"}

// others is how many refs the origin holds beside the run's.
const others = 3000

// tailOnly are refs of the origin that ls-remote of the whole list names
// for patterns only by their end: not under any pattern's prefix.
var tailOnly = []string{"refs/x/refs/heads/r1-main", "refs/heads/foo/refs/heads/r1-main"}

// origin makes a bare repository with the run's refs, claims among which
// symbolic refs (one to a branch, one to that alias, one dangling), refs
// that share a prefix with a pattern without matching it, the tailOnly
// refs, and `others` branches of nobody's; and a clone of it. It returns
// the origin and the clone.
func origin(t *testing.T, objectFormat string) (string, string) {
	t.Helper()
	testbin.IsolateGit(t)
	dir := t.TempDir()
	src, origin, work := filepath.Join(dir, "src"), filepath.Join(dir, "origin.git"), filepath.Join(dir, "work")
	testbin.Git(t, "", "init", "-q", "--object-format="+objectFormat, "-b", "main", src)
	testbin.Git(t, src, "commit", "-q", "--allow-empty", "-m", "base")
	c := testbin.Git(t, src, "rev-parse", "HEAD")
	d := testbin.Git(t, src, "commit-tree", "-p", c, "-m", "claim", testbin.Git(t, src, "rev-parse", "HEAD^{tree}"))
	// The refs go straight into packed-refs: git's update-ref would write
	// thousands of loose refs first, seconds on a loaded machine.
	refs := map[string]string{"refs/heads/main": c}
	for i := 0; i < others; i++ {
		refs[fmt.Sprintf("refs/heads/other-%d", i)] = c
	}
	for _, r := range append([]string{"refs/heads/r1-main", "refs/heads/r1-mainline", "refs/heads/r1-task-1-1-a",
		"refs/heads/r1-task-1-2-b/sub", "refs/taskclaims/r1/1", "refs/taskclaims/r1/10", "refs/taskclaims/r10/1",
		"refs/heads/master"}, tailOnly...) {
		refs[r] = d
	}
	packed := "# pack-refs with: peeled fully-peeled sorted \n"
	for _, r := range slices.Sorted(maps.Keys(refs)) {
		packed += refs[r] + " " + r + "\n"
	}
	testbin.WriteFile(t, filepath.Join(src, ".git", "packed-refs"), packed)
	if err := os.Remove(filepath.Join(src, ".git", "refs", "heads", "main")); err != nil {
		t.Fatal(err)
	}
	testbin.Git(t, "", "clone", "-q", "--bare", "--mirror", src, origin)
	testbin.Git(t, origin, "symbolic-ref", "refs/taskclaims/r1/2", "refs/heads/other-5")
	testbin.Git(t, origin, "symbolic-ref", "refs/taskclaims/r1/3", "refs/taskclaims/r1/2")
	testbin.Git(t, origin, "symbolic-ref", "refs/taskclaims/r1/4", "refs/heads/missing")
	testbin.Git(t, "", "clone", "-q", "--no-checkout", origin, work)
	return origin, work
}

func open(t *testing.T, dir string) *gitcmd.Repo {
	t.Helper()
	repo, err := gitcmd.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// gitLsRemote is what `git ls-remote --refs --symref` says, parsed, with
// the extra git options given; the refs named only by their end dropped.
func gitLsRemote(t *testing.T, dir, remote string, opts ...string) (refs, symrefs map[string]string) {
	t.Helper()
	args := append(opts, "ls-remote", "--refs", "--symref", remote)
	out := testbin.Git(t, dir, append(args, patterns...)...)
	refs, symrefs = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		left, ref, _ := strings.Cut(line, "\t")
		if target, ok := strings.CutPrefix(left, "ref: "); ok {
			symrefs[ref] = target
		} else {
			refs[ref] = left
		}
	}
	for _, r := range tailOnly {
		if _, ok := refs[r]; !ok {
			t.Fatalf("ls-remote does not name %s: the test no longer shows what it should", r)
		}
		delete(refs, r)
	}
	return refs, symrefs
}

// snapshot is every file of a git directory with its size and time.
func snapshot(t *testing.T, gitDir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(gitDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files[path] = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sentRefs counts the refs of others the server sent, in a
// GIT_TRACE_PACKET file of the server side.
func sentRefs(t *testing.T, trace string) (others int, prefixes []string) {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	sent := regexp.MustCompile(`upload-pack> [0-9a-f]{40,64} refs/heads/other-`)
	for _, line := range strings.Split(string(data), "\n") {
		if sent.MatchString(line) {
			others++
		}
		if _, p, ok := strings.Cut(line, "upload-pack< ref-prefix "); ok {
			prefixes = append(prefixes, p)
		}
	}
	return others, prefixes
}

// A local remote is asked for the patterns' prefixes alone, and answers
// what ls-remote of the whole list does for them: full ids, symbolic refs
// with the last ref of their chain, none dangling, none that only shares
// a prefix with a pattern. Nothing is written here.
func TestListAsksByPrefix(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			_, work := origin(t, format)
			wantRefs, wantSym := gitLsRemote(t, work, "origin")
			if len(wantSym) != 2 || wantSym["refs/taskclaims/r1/3"] != "refs/heads/other-5" {
				t.Fatalf("ls-remote's symbolic refs %v: the fixture is not what it was", wantSym)
			}
			repo := open(t, work)
			before := snapshot(t, repo.GitDir)
			trace := filepath.Join(t.TempDir(), "packets")
			t.Setenv("GIT_TRACE_PACKET", trace)
			res, err := List(context.Background(), repo, "origin", patterns...)
			os.Unsetenv("GIT_TRACE_PACKET")
			if err != nil {
				t.Fatal(err)
			}
			if res.Via != ViaPrefixes {
				t.Fatalf("read via %s (%s), want %s", res.Via, res.Why, ViaPrefixes)
			}
			sameListing(t, res, wantRefs, wantSym)
			n, asked := sentRefs(t, trace)
			if n != 0 {
				t.Errorf("the server sent %d of the %d other refs", n, others)
			}
			if want := []string{"refs/taskclaims/r1/", "refs/heads/r1-task-", "refs/heads/r1-main", "refs/heads/main", "refs/heads/master"}; !slicesEqual(asked, want) {
				t.Errorf("asked for prefixes %q, want %q", asked, want)
			}
			if after := snapshot(t, repo.GitDir); !maps.Equal(before, after) {
				t.Errorf("the repository changed: %v", diff(before, after))
			}
		})
	}
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// A server that answers in protocol v0 sends its whole list, and names no
// symbolic ref but HEAD: the refs are those v2 names, the aliases plain
// refs, as ls-remote reads them from that server.
func TestListV0Server(t *testing.T) {
	_, work := origin(t, "sha1")
	v2, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	testbin.Git(t, work, "config", "remote.origin.uploadpack", "env -u GIT_PROTOCOL git-upload-pack")
	wantRefs, wantSym := gitLsRemote(t, work, "origin")
	res, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if res.Via != ViaV0 {
		t.Fatalf("read via %s (%s), want %s", res.Via, res.Why, ViaV0)
	}
	if len(wantSym) != 0 || !maps.Equal(res.Refs, wantRefs) || len(res.Symrefs) != 0 || !maps.Equal(res.Refs, v2.Refs) {
		t.Fatalf("listed\n%v\n%v\nls-remote says\n%v\n%v\nv2 said\n%v", res.Refs, res.Symrefs, wantRefs, wantSym, v2.Refs)
	}
}

// What is not read directly is read by ls-remote, and answers the same:
// a relative path, git://, a bundle, a pattern with other wildcards, and
// configuration that may forbid the file transport; the simple ssh
// variant given a port fails with git's words. A file:/// URL and a
// URL reached through insteadOf are read directly.
func TestListTransports(t *testing.T) {
	originDir, work := origin(t, "sha1")
	want, err := List(context.Background(), open(t, work), "origin", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	localSSH := filepath.Join(t.TempDir(), "ssh")
	testbin.WriteFile(t, localSSH, "#!/bin/sh\nfor last; do :; done\nexec sh -c \"$last\"\n")
	if err := os.Chmod(localSSH, 0o755); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "o.bundle")
	testbin.Git(t, originDir, "bundle", "create", bundle, "--all")
	cases := []struct {
		name   string
		config [][2]string
		env    [][2]string
		via    Via
		noSym  bool // the transport names no symbolic ref
	}{
		{name: "file URL", config: [][2]string{{"remote.origin.url", "file://" + originDir}}, via: ViaPrefixes},
		{name: "insteadOf", config: [][2]string{{"remote.origin.url", "team:origin.git"}, {"url." + filepath.Dir(originDir) + "/.insteadOf", "team:"}}, via: ViaPrefixes},
		{name: "relative path", config: [][2]string{{"remote.origin.url", "RELATIVE"}}, via: ViaLsRemote},
		{name: "insteadOf a git:// URL", config: [][2]string{{"remote.origin.url", "git://127.0.0.1:1" + originDir}, {"url." + originDir + ".insteadOf", "git://127.0.0.1:1" + originDir}}, via: ViaPrefixes},
		{name: "bundle", config: [][2]string{{"remote.origin.url", bundle}}, via: ViaLsRemote, noSym: true},
		{name: "protocol.file.allow", config: [][2]string{{"protocol.file.allow", "always"}}, via: ViaLsRemote},
		{name: "GIT_PROTOCOL_FROM_USER", env: [][2]string{{"GIT_PROTOCOL_FROM_USER", "1"}}, via: ViaLsRemote},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "w")
			testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
			testbin.Git(t, dir, "config", "--unset-all", "remote.origin.url")
			testbin.Git(t, dir, "config", "remote.origin.url", originDir)
			for _, kv := range c.config {
				if kv[1] == "RELATIVE" {
					rel, err := filepath.Rel(dir, originDir)
					if err != nil {
						t.Fatal(err)
					}
					kv[1] = rel
				}
				testbin.Git(t, dir, "config", "--replace-all", kv[0], kv[1])
			}
			for _, kv := range c.env {
				t.Setenv(kv[0], kv[1])
			}
			res, err := List(context.Background(), open(t, dir), "origin", patterns...)
			if err != nil {
				t.Fatal(err)
			}
			if res.Via != c.via {
				t.Fatalf("read via %s (%s), want %s", res.Via, res.Why, c.via)
			}
			wantSym := want.Symrefs
			if c.noSym {
				wantSym = map[string]string{}
			}
			if !maps.Equal(res.Refs, want.Refs) || !maps.Equal(res.Symrefs, wantSym) {
				t.Fatalf("listed\n%v\n%v\nwant\n%v\n%v", res.Refs, res.Symrefs, want.Refs, wantSym)
			}
		})
	}
	t.Run("ssh, simple variant with a port", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "w")
		testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
		testbin.Git(t, dir, "config", "remote.origin.url", "ssh://host:22"+originDir)
		testbin.Git(t, dir, "config", "ssh.variant", "simple")
		t.Setenv("GIT_SSH_COMMAND", localSSH)
		_, err := List(context.Background(), open(t, dir), "origin", patterns...)
		if err == nil || !strings.Contains(err.Error(), "ssh variant 'simple' does not support setting port") {
			t.Fatalf("err %v, want git's refusal", err)
		}
	})
	t.Run("git://", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "w")
		testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
		testbin.Git(t, dir, "config", "remote.origin.url", "git://127.0.0.1:1/origin.git")
		_, err := List(context.Background(), open(t, dir), "origin", patterns...)
		if err == nil || !strings.Contains(err.Error(), "git -c: unable to connect to 127.0.0.1") {
			t.Fatalf("err %v, want ls-remote's", err)
		}
	})
	t.Run("other wildcards", func(t *testing.T) {
		res, err := List(context.Background(), open(t, work), "origin", "refs/taskclaims/r1/?")
		if err != nil {
			t.Fatal(err)
		}
		if res.Via != ViaLsRemote || len(res.Refs) != 3 {
			t.Fatalf("read via %s, %v; want ls-remote, 1, 2 and 3", res.Via, res.Refs)
		}
	})
}

// The URL read is the one ls-remote reads (git ls-remote --get-url): the
// remote's first URL, else the name itself, rewritten by the longest
// insteadOf, the first base of that length; pushInsteadOf and pushurl
// change nothing.
func TestURLAsGitReadsIt(t *testing.T) {
	testbin.IsolateGit(t)
	cases := []struct {
		remote string
		config [][2]string
	}{
		{"o", [][2]string{{"remote.o.url", "base:x/y"}, {"url./a/.insteadOf", "base:"}, {"url./b/.insteadOf", "base:x/"}}},
		{"o", [][2]string{{"remote.o.url", "base:x/y"}, {"url./b/.insteadOf", "base:x/"}, {"url./a/.insteadOf", "base:"}}},
		{"o", [][2]string{{"remote.o.url", "base:x"}, {"url./a/.insteadOf", "base:"}, {"url./b/.insteadOf", "base:"}}},
		{"o", [][2]string{{"remote.o.url", "base:x"}, {"url./a/.insteadOf", "other:"}, {"url./b/.insteadOf", "base:"}, {"url./a/.insteadOf", "base:"}}},
		{"o", [][2]string{{"remote.o.url", "/one"}, {"remote.o.url", "/two"}}},
		{"o", [][2]string{{"remote.o.url", "/one"}, {"remote.o.pushurl", "/push"}, {"url./p/.pushInsteadOf", "/"}}},
		{"/some/path", [][2]string{{"url./a/.insteadOf", "/some/"}}},
		{"/some/path", [][2]string{{"remote./some/path.url", "/elsewhere"}}}, // git ignores it
		{"file:///some/path", [][2]string{{"remote.file:///some/path.url", "/elsewhere"}}},
		{"o", [][2]string{{"remote.o.url", "x:y"}, {"url..insteadOf", "x:"}}},
		{"O", [][2]string{{"remote.o.url", "/lower"}, {"remote.O.url", "/upper"}}},
	}
	for i, c := range cases {
		dir := filepath.Join(t.TempDir(), "r")
		testbin.Git(t, "", "init", "-q", dir)
		for _, kv := range c.config {
			testbin.Git(t, dir, "config", "--add", kv[0], kv[1])
		}
		want := testbin.Git(t, dir, "ls-remote", "--get-url", c.remote)
		out := testbin.Git(t, dir, "config", "-z", "--get-regexp", configRe)
		cfg, why := parseConfig([]byte(out+"\x00"), c.remote)
		if why != "" {
			t.Fatalf("case %d: %s", i, why)
		}
		if got, why := cfg.url(c.remote); got != want || why != "" {
			t.Errorf("case %d: URL %q (%s), git reads %q", i, got, why, want)
		}
	}
}

// A remote that does not answer: the exchange ends with its context, even
// while a process the upload-pack started holds the pipes.
func TestListTimeout(t *testing.T) {
	_, work := origin(t, "sha1")
	hang := filepath.Join(t.TempDir(), "hang.sh")
	testbin.WriteFile(t, hang, "#!/bin/sh\nsleep 30\nexec git-upload-pack \"$@\"\n")
	if err := os.Chmod(hang, 0o755); err != nil {
		t.Fatal(err)
	}
	testbin.Git(t, work, "config", "remote.origin.uploadpack", hang)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := List(ctx, open(t, work), "origin", patterns...)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("returned after %s", d)
	}
}

// A remote path that is no repository fails with upload-pack's own words,
// as ls-remote's first line says them.
func TestListNoRepository(t *testing.T) {
	_, work := origin(t, "sha1")
	missing := filepath.Join(t.TempDir(), "gone.git")
	testbin.Git(t, work, "config", "remote.origin.url", missing)
	_, err := List(context.Background(), open(t, work), "origin", patterns...)
	want := "git upload-pack: '" + missing + "' does not appear to be a git repository"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// The names ls-remote --refs keeps are the valid ones, by git's own rule.
func TestValidRefnameAsGit(t *testing.T) {
	testbin.IsolateGit(t)
	for _, name := range []string{"heads/a", "heads/a/b", "a", "heads/a..b", "heads/.a", "heads/a.lock",
		"heads/a.lock/b", "heads/a.", "heads/a@{b", "heads/a@b", "heads/@", "@", "heads/a b", "heads/a:b",
		"heads//a", "heads/a/", "heads/a*b", "heads/a\x7f", "heads/ü", "heads/a~1", "heads/a^", "heads/[x",
		"heads/a\\b", "heads/a?b", "heads/a{b", "heads/a\tb", "heads/a.b", "heads/-a"} {
		git := testbin.Run("", nil, "git", "check-ref-format", name).Code == 0
		if got := validRefname(name); got != git {
			t.Errorf("validRefname(%q) = %v, git check-ref-format says %v", name, got, git)
		}
	}
}

func TestKeep(t *testing.T) {
	for _, c := range []struct {
		ref  string
		want bool
	}{
		{"refs/taskclaims/r1/1", true},
		{"refs/taskclaims/r1/1/x", true}, // '*' takes '/' as ls-remote's does
		{"refs/taskclaims/r10/1", false},
		{"refs/heads/r1-main", true},
		{"refs/heads/r1-mainline", false},
		{"refs/heads/r1-task-2-1-x", true},
		{"refs/x/refs/heads/r1-main", false}, // matched by its end only
		{"refs/heads/r1-task-1^{}", false},
		{"HEAD", false},
	} {
		if got := keep(c.ref, patterns); got != c.want {
			t.Errorf("keep(%q) = %v, want %v", c.ref, got, c.want)
		}
	}
	if !globMatch("*/refs/a*b*c", "/refs/axxbyybc") || globMatch("*/refs/a*b", "/refs/abc") {
		t.Error("globMatch")
	}
}

// A server that answers garbage and goes on writing: the exchange fails at
// once, naming what was wrong, and the server is not waited for.
func TestListBrokenServer(t *testing.T) {
	_, work := origin(t, "sha1")
	testbin.Git(t, work, "config", "remote.origin.uploadpack", "yes")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := List(ctx, open(t, work), "origin", patterns...)
	if err == nil || !strings.Contains(err.Error(), "bad packet length") || ctx.Err() != nil {
		t.Fatalf("err %v (context: %v), want a bad packet length at once", err, ctx.Err())
	}
}

// fakeSSH is an ssh that logs how it was run (its arguments, and the
// variables git sets or clears for it), answers git's variant probe
// (-G) with $PROBE_RC, and runs the remote command here. git runs the
// probe with its own GIT_CONFIG_PARAMETERS and GIT_PREFIX left in place
// (the connection gets neither); they are not logged for the probe,
// which reads no git variable (ssh -G prints ssh's configuration).
const fakeSSH = `#!/bin/sh
skip='^GIT_TRACE2'
if [ "$1" = -G ]; then skip='^(GIT_TRACE2|GIT_CONFIG_PARAMETERS=|GIT_PREFIX=)'; fi
{
	echo "run:"
	for a; do printf '\t%s\n' "$a"; done
	env | grep -E '^(GIT_[A-Z_]*|PATH|LC_ALL)=' | grep -Ev "$skip" | sort
} >> "$SSH_LOG"
if [ "$1" = -G ]; then exit "${PROBE_RC:-0}"; fi
for last; do :; done
exec sh -c "$last"
`

// An ssh remote is reached as git reaches it, whichever ssh and variant:
// the same ssh, run the same way (through the shell or not), with the
// same arguments and the same environment, probed the same way when its
// variant is not known by name; OpenSSH passes protocol v2 on and is asked
// by prefix, the others answer v0. The answer is ls-remote's.
func TestSSHAsGitRunsIt(t *testing.T) {
	originDir, work := origin(t, "sha1")
	bin := t.TempDir()
	for _, name := range []string{"ssh", "my ssh", "plink", "tortoiseplink"} {
		testbin.WriteFile(t, filepath.Join(bin, name), fakeSSH)
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ssh, mine := filepath.Join(bin, "ssh"), filepath.Join(bin, "my ssh")
	// ~ on the host: upload-pack expands it (HOME is the test's).
	if err := os.Symlink(originDir, filepath.Join(os.Getenv("HOME"), "o.git")); err != nil {
		t.Fatal(err)
	}
	// A script without "#!": the system refuses it, git runs it with sh.
	bare := filepath.Join(t.TempDir(), "ssh")
	testbin.WriteFile(t, bare, strings.TrimPrefix(fakeSSH, "#!/bin/sh\n"))
	if err := os.Chmod(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		url    string
		config [][2]string
		env    [][2]string
		via    Via
	}{
		{"GIT_SSH, scp-like", "host:" + originDir, nil, [][2]string{{"GIT_SSH", ssh}}, ViaPrefixes},
		{"GIT_SSH_COMMAND, ssh://", "ssh://host" + originDir, nil, [][2]string{{"GIT_SSH_COMMAND", ssh}}, ViaPrefixes},
		{"~ on the host, ssh://", "ssh://host/~/o.git", nil, [][2]string{{"GIT_SSH", ssh}}, ViaPrefixes},
		{"~ on the host, scp-like", "host:~/o.git", nil, [][2]string{{"GIT_SSH", ssh}}, ViaPrefixes},
		{"a script without #!", "ssh://host" + originDir, nil, [][2]string{{"GIT_SSH", bare}}, ViaPrefixes},
		{"a command line, user and port", "ssh://user@host:2222" + originDir, nil, [][2]string{{"GIT_SSH_COMMAND", "'" + ssh + "' -o Foo=bar"}}, ViaPrefixes},
		{"bracketed host holding a port", "user@[host:1]:" + originDir, nil, [][2]string{{"GIT_SSH", ssh}}, ViaPrefixes},
		{"IPv6 and a port", "git+ssh://[::1]:22" + originDir, nil, [][2]string{{"GIT_SSH", ssh}}, ViaPrefixes},
		{"core.sshCommand probed: OpenSSH", "host:" + originDir, [][2]string{{"core.sshCommand", "'" + mine + "'"}}, [][2]string{{"PROBE_RC", "0"}}, ViaPrefixes},
		{"core.sshCommand probed: simple", "host:" + originDir, [][2]string{{"core.sshCommand", "'" + mine + "'"}}, [][2]string{{"PROBE_RC", "1"}}, ViaV0},
		{"GIT_SSH unknown by name: simple", "host:" + originDir, nil, [][2]string{{"GIT_SSH", mine}, {"PROBE_RC", "1"}}, ViaV0},
		{"plink and a port", "ssh://host:2222" + originDir, nil, [][2]string{{"GIT_SSH", filepath.Join(bin, "plink")}}, ViaV0},
		{"ssh.variant tortoiseplink", "ssh://host:2222" + originDir, [][2]string{{"ssh.variant", "tortoiseplink"}}, [][2]string{{"GIT_SSH", mine}}, ViaV0},
		{"GIT_SSH_VARIANT putty over ssh.variant", "ssh://host:2222" + originDir, [][2]string{{"ssh.variant", "ssh"}}, [][2]string{{"GIT_SSH", mine}, {"GIT_SSH_VARIANT", "putty"}}, ViaV0},
		{"ssh.variant ssh", "host:" + originDir, [][2]string{{"ssh.variant", "ssh"}}, [][2]string{{"GIT_SSH_COMMAND", "'" + mine + "'"}}, ViaPrefixes},
		{"remote.origin.uploadpack", "host:" + originDir, [][2]string{{"remote.origin.uploadpack", "env -u GIT_PROTOCOL git-upload-pack"}}, [][2]string{{"GIT_SSH", ssh}}, ViaV0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "w")
			testbin.Git(t, "", "clone", "-q", "--no-checkout", work, dir)
			testbin.Git(t, dir, "config", "remote.origin.url", c.url)
			for _, kv := range c.config {
				testbin.Git(t, dir, "config", kv[0], kv[1])
			}
			logs := t.TempDir()
			// What gitcmd's runner adds to the environment of the
			// ls-remote it runs.
			env := []string{"SSH_LOG=" + filepath.Join(logs, "git"), "GIT_PAGER=cat", "GIT_ADVICE=0", "GIT_OPTIONAL_LOCKS=0"}
			for _, kv := range c.env {
				env = append(env, kv[0]+"="+kv[1])
			}
			r := testbin.Must(t, testbin.Run(dir, env, "git", append([]string{"-c", "protocol.version=2", "ls-remote", "--refs", "--symref", "origin"}, patterns...)...))
			wantRefs, wantSym := map[string]string{}, map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
				left, ref, _ := strings.Cut(line, "\t")
				if target, ok := strings.CutPrefix(left, "ref: "); ok {
					wantSym[ref] = target
				} else if keep(ref, patterns) {
					wantRefs[ref] = left
				}
			}
			t.Setenv("SSH_LOG", filepath.Join(logs, "ours"))
			for _, kv := range c.env {
				t.Setenv(kv[0], kv[1])
			}
			res, err := List(context.Background(), open(t, dir), "origin", patterns...)
			if err != nil {
				t.Fatal(err)
			}
			if res.Via != c.via {
				t.Errorf("read via %s (%s), want %s", res.Via, res.Why, c.via)
			}
			if !maps.Equal(res.Refs, wantRefs) || !maps.Equal(res.Symrefs, wantSym) {
				t.Errorf("listed\n%v\n%v\nls-remote says\n%v\n%v", res.Refs, res.Symrefs, wantRefs, wantSym)
			}
			gitRan, _ := os.ReadFile(filepath.Join(logs, "git"))
			weRan, _ := os.ReadFile(filepath.Join(logs, "ours"))
			if len(gitRan) == 0 || string(gitRan) != string(weRan) {
				t.Errorf("git ran ssh as\n%s\nwe ran it as\n%s", gitRan, weRan)
			}
		})
	}
}

// A remote with no refs lists none, whether it says so in v2, or as a v0
// server that sends a flush alone.
func TestListNothing(t *testing.T) {
	_, work := origin(t, "sha1")
	empty := filepath.Join(t.TempDir(), "empty.git")
	testbin.Git(t, "", "init", "-q", "--bare", empty)
	testbin.Git(t, work, "config", "remote.origin.url", empty)
	for _, c := range []struct {
		uploadPack string
		via        Via
	}{{"", ViaPrefixes}, {"sh -c 'printf 0000; cat >/dev/null' x", ViaV0}} {
		if c.uploadPack != "" {
			testbin.Git(t, work, "config", "remote.origin.uploadpack", c.uploadPack)
		}
		if out := testbin.Git(t, work, append([]string{"ls-remote", "origin"}, patterns...)...); out != "" {
			t.Fatalf("ls-remote lists %q", out)
		}
		res, err := List(context.Background(), open(t, work), "origin", patterns...)
		if err != nil || res.Via != c.via || len(res.Refs)+len(res.Symrefs) != 0 {
			t.Fatalf("%q: %v, %+v; want nothing via %s", c.uploadPack, err, res, c.via)
		}
	}
}
