package installtest

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCIWorkflow: every push and pull request runs .ci/run on Linux and
// builds, vets and tests on macOS (the release ships darwin binaries).
// .ci/run lints the workflows with actionlint; this test holds what they
// must do.
func TestCIWorkflow(t *testing.T) {
	root := repoRoot(t)
	wf := string(readFile(t, filepath.Join(root, ".github", "workflows", "ci.yml")))
	_, on, ok := strings.Cut(wf, "\non:\n")
	if !ok {
		t.Fatal("ci.yml has no top-level on:")
	}
	on, _, _ = strings.Cut(on, "\njobs:\n")
	for _, ev := range []string{"push", "pull_request"} {
		if !regexp.MustCompile(`(?m)^  ` + ev + `:`).MatchString(on) {
			t.Errorf("ci.yml does not run on %s", ev)
		}
	}
	// job returns the text of one job, from its name to the next job.
	job := func(name string) string {
		_, rest, ok := strings.Cut(wf, "\n  "+name+":\n")
		if !ok {
			t.Fatalf("ci.yml has no job %s", name)
		}
		if i := regexp.MustCompile(`\n  [a-z-]+:\n`).FindStringIndex(rest); i != nil {
			rest = rest[:i[0]]
		}
		return rest
	}
	for name, want := range map[string][]string{
		"linux": {"runs-on: ubuntu-latest", "go-version-file: go.mod", "run: bash .ci/run", "path: ~/.cache/taskresume-mmdc"},
		"macos": {"runs-on: macos-latest", "go-version-file: go.mod", "run: go build ./...", "run: go vet ./...", "run: go test ./..."},
	} {
		j := job(name)
		for _, w := range want {
			if !strings.Contains(j, w) {
				t.Errorf("ci.yml job %s lacks %q", name, w)
			}
		}
	}
	ci := string(readFile(t, filepath.Join(root, ".ci", "run")))
	if !strings.Contains(ci, "actionlint") {
		t.Error(".ci/run does not lint the workflows")
	}
	// The cache the linux job keeps is where .ci/run installs mermaid-cli,
	// at the version the cache's key names.
	m := regexp.MustCompile(`mmdc_version=(\S+)`).FindStringSubmatch(ci)
	if m == nil || !strings.Contains(ci, "$HOME/.cache/taskresume-mmdc") {
		t.Error(".ci/run does not install mermaid-cli, pinned, in ~/.cache/taskresume-mmdc")
	} else if !strings.Contains(job("linux"), "key: taskresume-mmdc-"+m[1]+"-") {
		t.Errorf("ci.yml's mermaid-cli cache key does not name the version .ci/run pins (%s)", m[1])
	}
}

// TestReleaseWorkflow: the release workflow refuses a tag that is not a
// version before goreleaser builds from it.
func TestReleaseWorkflow(t *testing.T) {
	root := repoRoot(t)
	wf := string(readFile(t, filepath.Join(root, ".github", "workflows", "release.yml")))
	check := strings.Index(wf, `run: go run ./internal/version/checktag "$GITHUB_REF_NAME"`)
	release := strings.Index(wf, "uses: goreleaser/goreleaser-action@")
	setup := strings.Index(wf, "uses: actions/setup-go@")
	switch {
	case check < 0:
		t.Error(`release.yml does not run go run ./internal/version/checktag "$GITHUB_REF_NAME"`)
	case release < 0:
		t.Error("release.yml does not run goreleaser")
	case check > release:
		t.Error("release.yml checks the tag after goreleaser has run")
	case setup < 0 || setup > check:
		t.Error("release.yml checks the tag before Go is set up")
	case !strings.Contains(wf[release:], "GORELEASER_CURRENT_TAG: ${{ github.ref_name }}"):
		// Else goreleaser picks a tag of its own among those on the commit.
		t.Error("release.yml does not give goreleaser the tag it checked (GORELEASER_CURRENT_TAG)")
	}
}
