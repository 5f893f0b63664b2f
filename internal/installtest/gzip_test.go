package installtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstallNamesMissingGzip: GNU tar cannot unpack a .tar.gz without
// gzip; install.sh must say that gzip is missing, not that the archive is bad
// ("download it again" would send the user after the wrong fix).
func TestInstallNamesMissingGzip(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux: GNU tar, which runs gzip for -z (bsdtar, as on macOS, does not)")
	}
	root := repoRoot(t)
	// The unpacking fails before the archive's content matters: a README
	// in a directory named as this machine's archive is enough.
	name := fmt.Sprintf("git-taskresume_%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
	stage := filepath.Join(t.TempDir(), name)
	copyFile(t, filepath.Join(root, "README.md"), filepath.Join(stage, "README.md"), 0o644)
	archive := writeArchive(t, stage)

	path := noGoPath(t)
	if err := os.Remove(filepath.Join(path, "gzip")); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "prefix")
	r := install(t, t.TempDir(), path, prefix, filepath.Join(root, "install.sh"), archive)
	checkRefused(t, r, prefix, "gzip is not installed")
	if strings.Contains(r.stderr, "download it again") {
		t.Errorf("blames the archive:\n%s", r.stderr)
	}
}

// TestLicenseShipped: the project's licence is in the repository, named
// in the README, and listed among the files of every release archive.
func TestLicenseShipped(t *testing.T) {
	root := repoRoot(t)
	license := string(readFile(t, filepath.Join(root, "LICENSE")))
	for _, want := range []string{"MIT License", "Copyright (c) 2026 the git-taskresume authors"} {
		if !strings.Contains(license, want) {
			t.Errorf("LICENSE does not say %q", want)
		}
	}
	readme := string(readFile(t, filepath.Join(root, "README.md")))
	if !strings.Contains(readme, "[MIT licence](LICENSE)") {
		t.Error("README.md does not name the licence as [MIT licence](LICENSE)")
	}
	config := string(readFile(t, filepath.Join(root, ".goreleaser.yaml")))
	if !strings.Contains(config, "\n      - LICENSE\n") {
		t.Error(".goreleaser.yaml's archive files do not list LICENSE")
	}
}
