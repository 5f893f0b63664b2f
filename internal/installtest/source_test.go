package installtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sourceCheckout copies the module's files (tracked, and new ones not
// ignored: the work being tested) into a new repository of one commit, and
// returns it with the environment its git commands need.
func sourceCheckout(t *testing.T, root string) (string, []string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "git-taskresume")
	files := strings.Split(strings.TrimSuffix(run(t, root, nil, "git", "ls-files", "-z", "-c", "-o", "--exclude-standard"), "\x00"), "\x00")
	for _, f := range files {
		info, err := os.Lstat(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		if !info.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file: teach sourceCheckout to copy it", f)
		}
		copyFile(t, filepath.Join(root, f), filepath.Join(src, f), info.Mode().Perm())
	}
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com"}
	run(t, src, env, "git", "init", "-q", "-b", "main")
	run(t, src, env, "git", "add", "-A")
	run(t, src, env, "git", "commit", "-q", "-m", "source")
	return src, env
}

// goEnv is what the go command needs with HOME elsewhere: the caches it
// has (no network), this toolchain; and GOFLAGS=-buildvcs=false, as CI and
// some machines set it, which install.sh must override to record the
// commit.
func goEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2],
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}
}

// TestInstallFromSource: ./install.sh in a checkout builds with Go, and the
// commands say what they were built from: dev+<commit of HEAD> (.dirty
// with changes), or at a v* tag of a clean tree the tag; the closing line
// and the man pages say the same.
func TestInstallFromSource(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	src, env := sourceCheckout(t, repoRoot(t))
	env = append(env, goEnv(t)...)
	git := func(args ...string) string { return strings.TrimSpace(run(t, src, env, "git", args...)) }
	head := git("rev-parse", "HEAD")
	dev := "dev+" + head[:12]

	check := func(t *testing.T, want string) {
		t.Helper()
		prefix := filepath.Join(t.TempDir(), "prefix")
		r := installEnv(t, src, append(env, "PREFIX="+prefix), "./install.sh")
		if r.code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if line := "installed git-taskresume and git-taskclean " + want + ":\n"; !strings.HasPrefix(r.stdout, line) {
			t.Errorf("install.sh's closing line is not %q:\n%s", line, r.stdout)
		}
		for _, c := range commands {
			if out := run(t, src, env, filepath.Join(prefix, "bin", c), "--version"); out != c+" "+want+"\n" {
				t.Errorf("%s --version = %q, want %s", c, out, want)
			}
			page := string(readFile(t, filepath.Join(prefix, "share", "man", "man1", c+".1")))
			if footer := fmt.Sprintf(`"%s %s"`, c, want); !strings.Contains(page, footer) {
				t.Errorf("man page of %s does not name %s in its footer", c, footer)
			}
		}
	}

	t.Run("checkout", func(t *testing.T) { check(t, dev) })
	git("tag", "v9.8")
	t.Run("tag that is not a version", func(t *testing.T) { check(t, dev) })
	git("tag", "-a", "-m", "release", "v9.8.7")
	t.Run("release tag", func(t *testing.T) { check(t, version) })
	// A change git status is told not to show (untracked files hidden by
	// config) is still a change: the build is no release.
	git("config", "status.showUntrackedFiles", "no")
	hidden := filepath.Join(src, "zz_hidden.go")
	if err := os.WriteFile(hidden, []byte("package hidden\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("release tag, change hidden from status", func(t *testing.T) { check(t, dev+".dirty") })
	os.Remove(hidden)
	git("config", "--unset", "status.showUntrackedFiles")
	if err := os.WriteFile(filepath.Join(src, "notes.txt"), []byte("work in progress\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("release tag, changed tree", func(t *testing.T) { check(t, dev+".dirty") })
}
