package testbin_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// stampFlag is the link-time stamp of a release build, as .goreleaser.yaml
// and install.sh give it.
const stampFlag = "-X github.com/taskresume/git-taskresume/internal/version.stamped="

var commands = []string{"git-taskresume", "git-taskclean"}

// versionDoc is what --version --json prints.
type versionDoc struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Dev      bool   `json:"dev"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
	From     string `json:"from"`
	Go       string `json:"go"`
}

// checkVersion runs bin/cmd --version and --version --json and requires
// that both name the command and want, and returns the JSON document.
func checkVersion(t *testing.T, bin, cmd, want string) versionDoc {
	t.Helper()
	exe := filepath.Join(bin, cmd)
	out := testbin.Must(t, testbin.Run("", nil, exe, "--version")).Stdout
	if out != cmd+" "+want+"\n" {
		t.Errorf("%s --version = %q, want %q", cmd, out, cmd+" "+want+"\n")
	}
	r := testbin.Must(t, testbin.Run("", nil, exe, "--version", "--json"))
	var doc versionDoc
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s --version --json is not the version object: %v\n%s", cmd, err, r.Stdout)
	}
	if dec.More() {
		t.Errorf("%s --version --json printed more than one document:\n%s", cmd, r.Stdout)
	}
	if doc.Name != cmd || doc.Version != want || !strings.HasPrefix(doc.Go, "go") {
		t.Errorf("%s --version --json: name %q version %q go %q, want %s, %s and Go's version", cmd, doc.Name, doc.Version, doc.Go, cmd, want)
	}
	if r.Stderr != "" {
		t.Errorf("%s --version --json wrote to stderr: %s", cmd, r.Stderr)
	}
	return doc
}

// A release build (goreleaser's ldflags) says the version it was stamped
// with, in --version, --version --json and its man page's footer.
func TestVersionStamped(t *testing.T) {
	bin := testbin.Build(t, "-ldflags="+stampFlag+"9.8.7-rc.1")
	for _, c := range commands {
		doc := checkVersion(t, bin, c, "9.8.7-rc.1")
		if doc.Dev || doc.From != "ldflags" {
			t.Errorf("%s: dev %v from %q, want a release from ldflags", c, doc.Dev, doc.From)
		}
		page := testbin.Must(t, testbin.Run("", nil, filepath.Join(bin, c), "--man")).Stdout
		th := regexp.MustCompile(`(?m)^\.TH .*$`).FindString(page)
		if want := `"` + c + ` 9.8.7-rc.1"`; !strings.Contains(th, want) {
			t.Errorf("%s --man footer %q, want %s", c, th, want)
		}
	}
}

// A stamp that is not a version (a branch name, git describe's output
// past a tag) is not taken for one: the build is a development build. A
// short version ("v1.4", as a packager may stamp) is the release it names.
func TestVersionStampNotAVersion(t *testing.T) {
	for _, stamp := range []string{"nightly", "v1.2.0-3-gabc1234-dirty"} {
		bin := testbin.Build(t, "-buildvcs=false", "-ldflags="+stampFlag+stamp)
		for _, c := range commands {
			if doc := checkVersion(t, bin, c, "dev"); !doc.Dev {
				t.Errorf("%s: stamp %q made a release build", c, stamp)
			}
		}
	}
	bin := testbin.Build(t, "-buildvcs=false", "-ldflags="+stampFlag+"v1.4")
	for _, c := range commands {
		if doc := checkVersion(t, bin, c, "1.4.0"); doc.Dev {
			t.Errorf("%s: stamp v1.4 made a development build", c)
		}
	}
}

// A build from this checkout, unstamped, is dev+<commit of HEAD> (".dirty"
// when the work tree has changes, as go's own vcs.modified says), or the
// tag when HEAD is exactly at a release tag and the tree is clean; without
// the commit (-buildvcs=false), "dev".
func TestVersionCheckout(t *testing.T) {
	root := testbin.ModuleRoot(t)
	head := testbin.Git(t, root, "rev-parse", "HEAD")
	dirty := testbin.Git(t, root, "status", "--porcelain") != ""
	want := "dev+" + head[:12]
	if dirty {
		want += ".dirty"
	} else if tag := testbin.Run(root, nil, "git", "describe", "--exact-match", "--tags", "--match", "v[0-9]*.[0-9]*.[0-9]*"); tag.Code == 0 {
		want = strings.TrimPrefix(strings.TrimSpace(tag.Stdout), "v")
	}
	bin := testbin.Build(t, "-buildvcs=true")
	for _, c := range commands {
		doc := checkVersion(t, bin, c, want)
		if doc.Commit != head || doc.Modified != dirty || doc.From != "checkout" {
			t.Errorf("%s: commit %q modified %v from %q, want %s, %v, checkout", c, doc.Commit, doc.Modified, doc.From, head, dirty)
		}
	}
	bin = testbin.Build(t, "-buildvcs=false")
	for _, c := range commands {
		if doc := checkVersion(t, bin, c, "dev"); !doc.Dev || doc.Commit != "" {
			t.Errorf("%s without vcs: dev %v commit %q, want dev and no commit", c, doc.Dev, doc.Commit)
		}
	}
}

// --version is answered before anything else runs: beside other flags of
// the command, and through git's dispatch; --json=false is the line.
func TestVersionBesideOtherFlags(t *testing.T) {
	bin := testbin.Build(t, "-ldflags="+stampFlag+"9.8.7")
	exe := filepath.Join(bin, "git-taskresume")
	for _, args := range [][]string{
		{"--version", "--list"},
		{"x1y2z3", "--version", "--next"},
		{"--json=false", "--version"},
		{"--version", "--json", "--json=0"},
	} {
		r := testbin.Must(t, testbin.Run(t.TempDir(), nil, exe, args...))
		if r.Stdout != "git-taskresume 9.8.7\n" {
			t.Errorf("git-taskresume %s printed %q, want the version line", strings.Join(args, " "), r.Stdout)
		}
	}
	r := testbin.Run(t.TempDir(), nil, exe, "--version", "--json=maybe")
	if r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "error: --json \"maybe\"") || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("--version --json=maybe: want one error line and exit 2, got %s", r)
	}
	// An unknown flag is refused even beside --version.
	if r := testbin.Run(t.TempDir(), nil, exe, "--version", "--jsn"); r.Code != 2 || !strings.Contains(r.Stderr, "did you mean --json?") {
		t.Errorf("--version --jsn: want the unknown flag refused, got %s", r)
	}
	// Through git, as users type it.
	r = testbin.Must(t, testbin.Taskclean(t.TempDir(), nil, "--version", "--json"))
	var doc versionDoc
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Name != "git-taskclean" {
		t.Errorf("git taskclean --version --json: %v\n%s", err, r.Stdout)
	}
}
