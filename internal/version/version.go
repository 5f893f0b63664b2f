// Package version says which version of the commands this binary is, and
// whether the version a repository requires (a semver constraint) allows it.
//
// Several machines work on one run, often with different binaries; the
// completion rule has changed between versions and will change again, so an
// older binary can hand out a task a newer one reads as landed. A repository
// that says which versions it allows (git config taskresume.minVersion, or
// the plan's front matter) gets one answer from every binary it allows, and
// a refusal from the others. docs/MANY-MACHINES.md gives the user's side.
package version

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// stamped is the version a release build was given:
//
//	-ldflags "-X github.com/taskresume/git-taskresume/internal/version.stamped=1.4.0"
//
// as .goreleaser.yaml and install.sh set it. Empty in any other build.
var stamped string

// Sources of a version, as Info.From says them.
const (
	FromStamp    = "ldflags"  // set at link time by a release build
	FromModule   = "module"   // go install <module>/cmd/...@v1.4.0: the module's own version
	FromCheckout = "checkout" // built from a work tree: a development build
	FromUnknown  = "unknown"  // no build information at all
)

// Info is this binary's version.
type Info struct {
	// Version is the release ("1.4.0", without a leading v), or for a
	// development build "dev+<commit>" (".dirty" after it when the work tree
	// had changes), or "dev" when not even the commit is known.
	Version string `json:"version"`
	// Dev: a development build, which every repository allows.
	Dev bool `json:"dev"`
	// Commit the binary was built from, when the build recorded it.
	Commit string `json:"commit,omitempty"`
	// Modified: built from a work tree with changes not committed.
	Modified bool   `json:"modified,omitempty"`
	From     string `json:"from"`
	Go       string `json:"go"`
}

var (
	once sync.Once
	this Info
)

// Get returns this binary's version, read once.
func Get() Info {
	once.Do(func() {
		bi, _ := debug.ReadBuildInfo()
		this = resolve(stamped, bi)
	})
	return this
}

// resolve decides the version from the stamp and the build information:
// a stamp that is a version wins (a release archive); else the module's
// version when go install fetched a tagged release; else the build is a
// development build, named by its commit.
func resolve(stamp string, bi *debug.BuildInfo) Info {
	info := Info{Go: runtime.Version(), From: FromUnknown}
	if bi != nil {
		if bi.GoVersion != "" {
			info.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if v, ok := readStamp(stamp); ok {
		info.Version, info.From = v, FromStamp
		return info
	}
	// A development build stamped as one (install.sh, when the work tree
	// holds changes the build's VCS record may miss) stays one, whatever
	// tag the module's version names.
	if stamp == "dev" || strings.HasPrefix(stamp, "dev+") && !strings.ContainsAny(stamp, " \t\n") {
		info.Dev, info.Version, info.From = true, stamp, FromStamp
		return info
	}
	if bi != nil {
		mv := bi.Main.Version
		// go build in a work tree records a pseudo-version (or the tag
		// with +dirty): a development build, though it looks like a
		// version. Only a clean tag, or a module fetched at a tag, is one.
		if v, ok := release(mv); ok && !strings.Contains(mv, "+") && !isPseudo(mv) {
			info.Version, info.From = v, FromModule
			if info.Commit != "" {
				info.From = FromCheckout // built in a work tree at exactly that tag
			}
			return info
		}
		switch {
		case info.Commit != "" || mv == "(devel)":
			info.From = FromCheckout
		case mv != "":
			info.From = FromModule // go install ...@<commit>: a pseudo-version
		}
	}
	info.Dev = true
	info.Version = "dev"
	if info.Commit != "" {
		c := info.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		info.Version += "+" + c
		if info.Modified {
			info.Version += ".dirty"
		}
	}
	return info
}

// release reads s as a release version ("v1.4.0", "1.4.0", "1.5.0-rc.1"),
// strictly: three numbers. It returns it without the leading v.
func release(s string) (string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if s == "" {
		return "", false
	}
	if _, err := semver.StrictNewVersion(s); err != nil {
		return "", false
	}
	return s, true
}

// readStamp reads a link-time stamp as a release: strictly semver, or a
// version semver can read loosely ("v1.4", "1.4") written out in full
// ("1.4.0"), so that a packager's short stamp is the release it names
// rather than a development build every repository allows.
func readStamp(s string) (string, bool) {
	// git describe's name of a commit past a tag or of a changed tree,
	// and a Go pseudo-version, look like versions: they are commits.
	if describeOutput(s) || isPseudo(s) || strings.HasSuffix(s, "-dirty") || strings.Contains(s, "+") {
		return "", false
	}
	if v, ok := release(s); ok {
		return v, true
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t") {
		return "", false
	}
	v, err := semver.NewVersion(s)
	if err != nil {
		return "", false
	}
	return v.String(), true
}

// StampRelease reports whether s, stamped at link time, makes a release
// build, and the version it then says: what the release workflow's tag
// check asks before goreleaser stamps a tag.
func StampRelease(s string) (string, bool) { return readStamp(s) }

// describeOutput reports whether s is git describe's name of a commit past
// a tag ("v1.2.0-3-gabc1234", "-dirty" after it), which semver reads as a
// pre-release of 1.2.0: a commit, not a release.
func describeOutput(s string) bool {
	s = strings.TrimSuffix(s, "-dirty")
	g := strings.LastIndex(s, "-g")
	if g < 0 || !allOf(s[g+2:], "0123456789abcdef") {
		return false
	}
	n := strings.LastIndexByte(s[:g], '-')
	return n >= 0 && allOf(s[n+1:g], "0123456789")
}

// isPseudo reports whether v is a Go pseudo-version (v0.0.0-20261128120000-
// abcdefabcdef and its two other forms): a commit, not a release.
func isPseudo(v string) bool {
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	dash := strings.LastIndexByte(v, '-')
	if dash < 0 || len(v)-dash-1 != 12 || !allOf(v[dash+1:], "0123456789abcdef") {
		return false
	}
	rest := v[:dash]
	if len(rest) < 15 || !allOf(rest[len(rest)-14:], "0123456789") {
		return false
	}
	sep := rest[len(rest)-15]
	return sep == '-' || sep == '.'
}

func allOf(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return s != ""
}

// Semver is the version a constraint is checked against: the release's
// three numbers. A pre-release compares as its release (1.5.0-rc.1 as
// 1.5.0): a release candidate is tried where its release will run, and
// semver's own rule (no pre-release satisfies ">= 1.4" unless the
// constraint names one) would refuse it everywhere. nil for a dev build.
func (i Info) Semver() *semver.Version {
	if i.Dev {
		return nil
	}
	v, err := semver.StrictNewVersion(i.Version)
	if err != nil {
		return nil
	}
	return semver.New(v.Major(), v.Minor(), v.Patch(), "", "")
}

// JSON is the object --version --json prints.
func (i Info) JSON(name string) ([]byte, error) {
	return json.MarshalIndent(struct {
		Name string `json:"name"`
		Info
	}{name, i}, "", "  ")
}
