package installtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// version is what the test stamps into the binaries, through the ldflags
// that .goreleaser.yaml declares.
const version = "9.8.7"

// stampVar is the variable a release stamps: internal/version's.
const stampVar = "github.com/taskresume/git-taskresume/internal/version.stamped"

var commands = []string{"git-taskresume", "git-taskclean"}

// toolsWithoutGo are the only programs on PATH while install.sh runs: the
// interpreter, git, tar (and the gzip it calls), a checksum program (one
// of shaTools) and the coreutils the script uses.
var toolsWithoutGo = []string{"bash", "env", "git", "tar", "gzip",
	"cat", "cp", "mv", "rm", "mkdir", "mktemp", "dirname", "basename", "chmod", "uname", "tr"}

// shaTools are the programs install.sh checks a checksum with, the one it
// prefers first: macOS has shasum and no sha256sum.
var shaTools = []string{"sha256sum", "shasum"}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

// releaseLdflags reads the -X flags of .goreleaser.yaml, so that the test
// proves the variables it names exist (the linker ignores a -X of a missing
// one), and checks that the config still lays archives out the way
// buildArchive does.
func releaseLdflags(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	config := string(data)
	for _, want := range []string{
		"project_name: git-taskresume",
		`name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"`,
		"wrap_in_directory: true",
		"formats: [tar.gz]",
		"- README.md", "- install.sh", "src: completion/*", "dst: man",
		"name_template: checksums.txt", "algorithm: sha256",
	} {
		if !strings.Contains(config, want) {
			t.Errorf(".goreleaser.yaml lacks %q: the archive this test builds no longer matches the release's; update both", want)
		}
	}
	// The builds' ldflags (a YAML list item) and the man-page hook's
	// `go run -ldflags` must stamp the same variable: the page's footer
	// names the version, and the hook's binary is not the release's.
	builds := regexp.MustCompile(`(?m)^\s*- -X (\S+)=\{\{ \.Version \}\}$`).FindAllStringSubmatch(config, -1)
	if len(builds) != 1 || builds[0][1] != stampVar {
		t.Fatalf(".goreleaser.yaml's ldflags stamp %q, want one -X of %s (both builds share the list)", builds, stampVar)
	}
	hook := regexp.MustCompile(`go run -ldflags "-X (\S+)=\{\{ \.Version \}\}" \./cmd/\$c --man`).FindStringSubmatch(config)
	if hook == nil || hook[1] != stampVar {
		t.Errorf(".goreleaser.yaml's man-page hook does not run `go run -ldflags \"-X %s={{ .Version }}\" ./cmd/$c --man`: its pages would name another version than the binaries", stampVar)
	}
	return []string{"-X " + stampVar + "=" + version}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func copyFile(t *testing.T, src, dst string, mode fs.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
}

// stageRelease lays out, in a new directory named as goreleaser names the
// archive for this machine, what .goreleaser.yaml puts in it: both binaries
// (static, version stamped), man/, README.md, LICENSE*, install.sh and every
// file of completion/. It returns that directory.
func stageRelease(t *testing.T, root string) string {
	t.Helper()
	name := fmt.Sprintf("git-taskresume_%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
	stage := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(stage, "man"), 0o755); err != nil {
		t.Fatal(err)
	}
	ldflags := strings.Join(append([]string{"-s -w"}, releaseLdflags(t, root)...), " ")
	env := append(os.Environ(), "CGO_ENABLED=0")
	run(t, root, env, "go", "build", "-trimpath", "-ldflags", ldflags, "-o", stage+string(filepath.Separator),
		"./cmd/git-taskresume", "./cmd/git-taskclean")
	for _, c := range commands {
		page := run(t, root, nil, filepath.Join(stage, c), "--man")
		if err := os.WriteFile(filepath.Join(stage, "man", c+".1"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(root, "README.md"), filepath.Join(stage, "README.md"), 0o644)
	copyFile(t, filepath.Join(root, "install.sh"), filepath.Join(stage, "install.sh"), 0o755)
	licenses, _ := filepath.Glob(filepath.Join(root, "LICENSE*"))
	for _, l := range licenses {
		copyFile(t, l, filepath.Join(stage, filepath.Base(l)), 0o644)
	}
	completions, _ := filepath.Glob(filepath.Join(root, "completion", "*"))
	if len(completions) == 0 {
		t.Fatal("no files in completion/")
	}
	for _, c := range completions {
		copyFile(t, c, filepath.Join(stage, "completion", filepath.Base(c)), 0o644)
	}
	return stage
}

// writeArchive tars and gzips dir, wrapped in its own name, as
// <dir's parent>/<name>.tar.gz, and returns that path.
func writeArchive(t *testing.T, dir string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	base := filepath.Base(dir)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(filepath.Join(base, rel))
		if d.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	archive := dir + ".tar.gz"
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return archive
}

// writeChecksums writes checksums.txt beside the archives, as sha256sum
// (and goreleaser) print it.
func writeChecksums(t *testing.T, archives ...string) {
	t.Helper()
	var b strings.Builder
	for _, a := range archives {
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), filepath.Base(a))
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(archives[0]), "checksums.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// noGoPath is a directory of links to toolsWithoutGo and the first of
// shaTools found, only.
func noGoPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range toolsWithoutGo {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s is needed for this test: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	linked := false
	for _, tool := range shaTools {
		if p, err := exec.LookPath(tool); err == nil && !linked {
			if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
			linked = true
		}
	}
	if !linked {
		t.Fatalf("none of %q is installed: one is needed for this test", shaTools)
	}
	if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
		t.Fatal("go is on the test's PATH")
	}
	return dir
}

type result struct {
	code           int
	stdout, stderr string
}

// install runs script with args, PREFIX=prefix and PATH=path only.
func install(t *testing.T, dir, path, prefix, script string, args ...string) result {
	t.Helper()
	return installEnv(t, dir, []string{"PATH=" + path, "HOME=" + t.TempDir(), "PREFIX=" + prefix, "LC_ALL=C"}, script, args...)
}

// installEnv runs script with args and the environment env only.
func installEnv(t *testing.T, dir string, env []string, script string, args ...string) result {
	t.Helper()
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", script, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// completionDest is where install.sh must put completion file name, relative
// to $PREFIX.
func completionDest(t *testing.T, name string) []string {
	switch {
	case name == "git-taskresume.bash":
		// One file defines both commands' functions; bash-completion loads
		// a file by the command's name.
		return []string{"share/bash-completion/completions/git-taskresume", "share/bash-completion/completions/git-taskclean"}
	case strings.HasPrefix(name, "_git-"):
		return []string{"share/zsh/site-functions/" + name}
	case strings.HasSuffix(name, ".fish"):
		// vendor_conf.d too: fish 3.6.0 and releases before 3.2 do not
		// hand `git taskresume` to git-taskresume's completions.
		return []string{"share/fish/vendor_completions.d/" + name, "share/fish/vendor_conf.d/" + name}
	}
	t.Errorf("completion/%s: install.sh installs no file of that kind; teach it (and this test) where it goes", name)
	return nil
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkInstalled checks everything of the staged release under prefix and
// that git finds and runs the installed commands.
func checkInstalled(t *testing.T, stage, prefix, path string) {
	t.Helper()
	for _, c := range commands {
		bin := filepath.Join(prefix, "bin", c)
		info, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", bin, info.Mode())
		}
		if !bytes.Equal(readFile(t, bin), readFile(t, filepath.Join(stage, c))) {
			t.Errorf("%s differs from the archive's", bin)
		}
		page := readFile(t, filepath.Join(prefix, "share", "man", "man1", c+".1"))
		if !bytes.Contains(page, []byte(".TH ")) || !bytes.Equal(page, readFile(t, filepath.Join(stage, "man", c+".1"))) {
			t.Errorf("man page of %s is not the archive's roff page", c)
		}
		if footer := fmt.Sprintf(`"%s %s"`, c, version); !bytes.Contains(page, []byte(footer)) {
			t.Errorf("man page of %s does not name %s in its footer", c, footer)
		}
	}
	completions, _ := filepath.Glob(filepath.Join(stage, "completion", "*"))
	for _, c := range completions {
		for _, dest := range completionDest(t, filepath.Base(c)) {
			got, err := os.ReadFile(filepath.Join(prefix, dest))
			if err != nil {
				t.Errorf("completion/%s not installed: %v", filepath.Base(c), err)
				continue
			}
			if !bytes.Equal(got, readFile(t, c)) {
				t.Errorf("%s differs from completion/%s", dest, filepath.Base(c))
			}
		}
	}

	// git dispatches `git taskresume` to the installed binary on PATH.
	env := []string{"PATH=" + filepath.Join(prefix, "bin") + string(os.PathListSeparator) + path,
		"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	if out := run(t, t.TempDir(), env, filepath.Join(path, "git"), "taskresume", "-h"); !strings.Contains(out, "git taskresume <run>") {
		t.Errorf("git taskresume -h printed no usage:\n%s", out)
	}
	if out := run(t, t.TempDir(), env, filepath.Join(path, "git"), "taskclean", "-h"); !strings.Contains(out, "git taskclean") {
		t.Errorf("git taskclean -h printed no usage:\n%s", out)
	}
	for _, c := range commands {
		if out := run(t, t.TempDir(), env, filepath.Join(prefix, "bin", c), "--version"); out != c+" "+version+"\n" {
			t.Errorf("%s --version = %q, want the release's version %s", c, out, version)
		}
	}
}

// checkRefused checks that r is one "error:" line and exit code 2, and that
// nothing was installed.
func checkRefused(t *testing.T, r result, prefix, mentions string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit code %d, want 2; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], mentions) {
		t.Errorf("stderr is not one \"error:\" line mentioning %q:\n%s", mentions, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty:\n%s", r.stdout)
	}
	if _, err := os.Stat(prefix); err == nil {
		t.Errorf("%s was created", prefix)
	}
}

func TestInstallArchiveWithoutGo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no release for windows")
	}
	root := repoRoot(t)
	stage := stageRelease(t, root)
	archive := writeArchive(t, stage)
	writeChecksums(t, archive)
	path := noGoPath(t)
	script := filepath.Join(root, "install.sh")

	t.Run("archive argument", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "prefix")
		r := install(t, t.TempDir(), path, prefix, script, archive)
		if r.code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "installed git-taskresume and git-taskclean "+version) {
			t.Errorf("stdout does not name version %s:\n%s", version, r.stdout)
		}
		checkInstalled(t, stage, prefix, path)
	})

	t.Run("archive option, relative path", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "prefix")
		r := install(t, filepath.Dir(archive), path, prefix, script, "--archive", filepath.Base(archive))
		if r.code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		checkInstalled(t, stage, prefix, path)
	})

	t.Run("inside the unpacked archive", func(t *testing.T) {
		unpacked := t.TempDir()
		run(t, unpacked, []string{"PATH=" + path}, filepath.Join(path, "tar"), "-xzf", archive)
		dir := filepath.Join(unpacked, filepath.Base(stage))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			t.Fatal("the archive holds go.mod")
		}
		prefix := filepath.Join(t.TempDir(), "prefix")
		r := install(t, dir, path, prefix, "./install.sh")
		if r.code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		checkInstalled(t, stage, prefix, path)
	})

	t.Run("corrupted archive", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, filepath.Base(archive))
		data := readFile(t, archive)
		// checksums.txt of the good archive beside a damaged copy.
		copyFile(t, filepath.Join(filepath.Dir(archive), "checksums.txt"), filepath.Join(dir, "checksums.txt"), 0o644)
		data[len(data)/2] ^= 0xff
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, dir, path, prefix, script, bad), prefix, "sha256")
	})

	t.Run("corrupted checksum", func(t *testing.T) {
		dir := t.TempDir()
		good := filepath.Join(dir, filepath.Base(archive))
		copyFile(t, archive, good, 0o644)
		sum := fmt.Sprintf("%x", sha256.Sum256(readFile(t, archive)))
		wrong := strings.Repeat("0", len(sum))
		line := wrong + "  " + filepath.Base(archive) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, dir, path, prefix, script, good), prefix, "sha256")
	})

	t.Run("checksums.txt without the archive", func(t *testing.T) {
		dir := t.TempDir()
		good := filepath.Join(dir, filepath.Base(archive))
		copyFile(t, archive, good, 0o644)
		if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(strings.Repeat("0", 64)+"  other.tar.gz\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, dir, path, prefix, script, good), prefix, "checksums.txt")
	})

	t.Run("archive without the binaries", func(t *testing.T) {
		empty := filepath.Join(t.TempDir(), filepath.Base(stage))
		copyFile(t, filepath.Join(root, "README.md"), filepath.Join(empty, "README.md"), 0o644)
		noBins := writeArchive(t, empty)
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, t.TempDir(), path, prefix, script, noBins), prefix, "git-taskresume")
	})

	t.Run("missing archive", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "prefix")
		missing := filepath.Join(t.TempDir(), filepath.Base(archive))
		checkRefused(t, install(t, t.TempDir(), path, prefix, script, missing), prefix, missing)
	})

	t.Run("not a tar.gz", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, filepath.Base(archive))
		if err := os.WriteFile(bad, []byte("not an archive\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, dir, path, prefix, script, bad), prefix, "unpack")
	})

	t.Run("archive for another machine", func(t *testing.T) {
		other := "linux_arm64"
		if runtime.GOOS+"_"+runtime.GOARCH == other {
			other = "linux_amd64"
		}
		dir := t.TempDir()
		foreign := filepath.Join(dir, fmt.Sprintf("git-taskresume_%s_%s.tar.gz", version, other))
		copyFile(t, archive, foreign, 0o644)
		prefix := filepath.Join(t.TempDir(), "prefix")
		checkRefused(t, install(t, dir, path, prefix, script, foreign), prefix, other)
	})
}
