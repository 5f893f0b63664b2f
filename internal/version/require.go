package version

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// ConfigKey is the git config key of the versions a repository allows, as
// users write it (git config keys are case-insensitive).
const ConfigKey = "taskresume.minVersion"

// Requirement is one constraint on the version, and where it was written.
type Requirement struct {
	// Constraint as it is checked: as written, or ">= 1.4" for a bare
	// "1.4" (the key is a minimum version; semver alone would read a bare
	// version as "exactly 1.4.x").
	Constraint string `json:"constraint"`
	// Source names where it was written: the config key, or the plan's
	// file:line.
	Source string `json:"source"`
	c      *semver.Constraints
	// pre: the constraint names a pre-release (">= 1.5.0-rc.2"): then a
	// pre-release is compared as itself, so that rc.1 is below rc.2.
	pre bool
}

// ParseRequirement reads a constraint written at source. The error names
// source and what to write instead.
func ParseRequirement(text, source string) (Requirement, error) {
	s := strings.Join(strings.Fields(text), " ")
	if s == "" {
		return Requirement{}, fmt.Errorf("%s is empty: write the versions allowed, as \">= 1.4\" or \">= 1.4, < 2\"", source)
	}
	if !strings.ContainsAny(s[:1], "<>=!~^") {
		// A bare version is a minimum, as the config key's name says.
		if _, err := semver.NewVersion(s); err == nil {
			s = ">= " + s
		}
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return Requirement{}, fmt.Errorf("%s %q is not a version constraint: write it as \">= 1.4\" or \">= 1.4, < 2\"", source, clip(text))
	}
	return Requirement{Constraint: s, Source: source, c: c, pre: namesPrerelease(s)}, nil
}

// namesPrerelease reports whether a version of the constraint carries a
// pre-release ("1.5.0-rc.2").
func namesPrerelease(s string) bool {
	for _, f := range strings.FieldsFunc(s, func(c rune) bool { return strings.ContainsRune(" ,|<>=!~^", c) }) {
		if v, err := semver.NewVersion(f); err == nil && v.Prerelease() != "" {
			return true
		}
	}
	return false
}

// check checks a release version: as its release (its three numbers),
// unless the constraint names a pre-release, which it is then compared
// with as itself.
func (r Requirement) check(v *semver.Version) bool {
	if !r.pre {
		v = semver.New(v.Major(), v.Minor(), v.Patch(), "", "")
	}
	return r.c.Check(v)
}

// clip cuts a value quoted in a message: a hostile plan or config must not
// make a line of kilobytes.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// Allows reports whether the constraint allows the binary: a development
// build always, a release as a version it recorded would be (see check).
func (r Requirement) Allows(i Info) bool {
	return i.Dev || i.Version != "" && r.AllowsRecorded(i.Version)
}

// AllowsRecorded reports whether a version recorded by another binary (a
// claim's) is allowed: "" (written before versions were recorded) only
// when the constraint has no lower bound, "dev..." always.
func (r Requirement) AllowsRecorded(recorded string) bool {
	if r.c == nil {
		return true
	}
	if recorded == "" {
		return !r.HasLowerBound()
	}
	if recorded == "dev" || strings.HasPrefix(recorded, "dev+") {
		return true
	}
	v, err := semver.StrictNewVersion(recorded)
	if err != nil {
		return false
	}
	return r.check(v)
}

// HasLowerBound: 0.0.0 is refused, so an old binary (one that records no
// version) is below it.
func (r Requirement) HasLowerBound() bool {
	return r.c != nil && !r.c.Check(semver.New(0, 0, 0, "", ""))
}

// Gate is the binary and the requirements of one repository and run.
type Gate struct {
	This     Info          `json:"this"`
	Requires []Requirement `json:"requires"`
}

// Failed returns the first requirement that does not allow this binary.
func (g Gate) Failed() *Requirement {
	for i := range g.Requires {
		if !g.Requires[i].Allows(g.This) {
			return &g.Requires[i]
		}
	}
	return nil
}

// Allowed: every requirement allows this binary.
func (g Gate) Allowed() bool { return g.Failed() == nil }

// Refusal is the one line a refused command prints, "" when allowed:
// "this repository needs git-taskresume >= 1.4 (this is 1.2.0): upgrade".
func (g Gate) Refusal() string {
	r := g.Failed()
	if r == nil {
		return ""
	}
	what := "install a version it allows"
	if v := g.This.Semver(); v != nil && r.allowsAbove(v) {
		what = "upgrade"
	}
	return fmt.Sprintf("this repository needs git-taskresume %s (this is %s): %s (%s)", r.Constraint, g.This.Version, what, r.Source)
}

// Note is what a report's header says about the gate: the refusal, or,
// for a development build where a constraint is set, that it was not
// checked; "" otherwise.
func (g Gate) Note() string {
	if s := g.Refusal(); s != "" {
		return s
	}
	if g.This.Dev && len(g.Requires) > 0 {
		cs := make([]string, len(g.Requires))
		for i, r := range g.Requires {
			cs[i] = r.Constraint
		}
		return fmt.Sprintf("development build %s: the repository's required version (%s) is not checked", g.This.Version, strings.Join(cs, "; "))
	}
	return ""
}

// allowsAbove reports whether some version newer than v is allowed: then
// the way out is to upgrade. The candidates are the versions the
// constraint names (its bounds: "1.4" of ">= 1.4, < 2", as 1.4.0) and the
// next patch, minor and major of each and of v.
func (r Requirement) allowsAbove(v *semver.Version) bool {
	cands := []*semver.Version{v}
	for _, f := range strings.FieldsFunc(r.Constraint, func(c rune) bool { return !(c == '.' || c >= '0' && c <= '9') }) {
		if n, err := semver.NewVersion(strings.Trim(f, ".")); err == nil {
			cands = append(cands, n)
		}
	}
	for _, c := range cands {
		for _, up := range []semver.Version{*c, c.IncPatch(), c.IncMinor(), c.IncMajor()} {
			if up.GreaterThan(v) && r.c.Check(&up) {
				return true
			}
		}
	}
	return false
}
