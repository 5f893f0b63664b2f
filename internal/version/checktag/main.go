// Command checktag refuses a release tag that is not a version, before the
// release workflow (.github/workflows/release.yml) builds anything from it:
//
//	go run ./internal/version/checktag "$GITHUB_REF_NAME"
//
// goreleaser stamps the tag, without its v, into the binaries and names the
// archives after it, and go install ...@<tag> must accept it; a tag such as
// v1.4 would ship binaries that call themselves development builds, which
// every repository's required version allows. A release tag is therefore
// v<major>.<minor>.<patch>, a pre-release after a dash (v1.5.0-rc.1), no
// leading zeros, and no build metadata (+...), which Go's module versions
// do not carry.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/taskresume/git-taskresume/internal/version"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// form is the tag wanted, as the refusal says it.
const form = "tag releases as v<major>.<minor>.<patch>, e.g. v1.4.0 or v1.5.0-rc.1"

// run checks the one tag in args: exit 0 and its version on stdout, or one
// error line and exit 2.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "error: checktag takes the one tag to release, got %d arguments: go run ./internal/version/checktag v1.4.0\n", len(args))
		return 2
	}
	v, err := check(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "tag %s: release %s\n", args[0], v)
	return 0
}

// check returns the version tag releases, without its v.
func check(tag string) (string, error) {
	rest, hasV := strings.CutPrefix(tag, "v")
	if !hasV {
		return "", fmt.Errorf("tag %q does not start with v: %s", tag, form)
	}
	v, err := semver.StrictNewVersion(rest)
	if err != nil {
		return "", fmt.Errorf("tag %q is not a semantic version (%v): %s", tag, err, form)
	}
	if v.Metadata() != "" {
		return "", fmt.Errorf("tag %q has build metadata (+%s), which Go module versions cannot carry: %s", tag, v.Metadata(), form)
	}
	// The module path has no /vN suffix: go install ...@v2.0.0 refuses
	// it, and a build at such a tag records a pseudo-version.
	if v.Major() >= 2 {
		return "", fmt.Errorf("tag %q is major version %d, which the module path github.com/taskresume/git-taskresume (no /v%d) cannot take: go install would refuse it; %s", tag, v.Major(), v.Major(), form)
	}
	// A tag the binaries would read back as a development build (git
	// describe's form, a pseudo-version) ships binaries every repository
	// allows.
	if _, ok := version.StampRelease(rest); !ok {
		return "", fmt.Errorf("tag %q reads as a commit, not a release (git describe's or a Go pseudo-version's form): %s", tag, form)
	}
	return rest, nil
}
