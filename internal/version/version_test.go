package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func build(main string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/taskresume/git-taskresume", Version: main}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

const rev = "0123456789abcdef0123456789abcdef01234567"

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name, stamp string
		bi          *debug.BuildInfo
		want        string
		dev         bool
		from        string
	}{
		{"release archive", "1.4.0", build("(devel)"), "1.4.0", false, FromStamp},
		{"stamp with v", "v1.4.0", build("(devel)"), "1.4.0", false, FromStamp},
		{"release candidate", "1.5.0-rc.1", build("(devel)"), "1.5.0-rc.1", false, FromStamp},
		{"go install at a tag", "", build("v1.4.0"), "1.4.0", false, FromModule},
		{"go build at a clean tag", "", build("v1.4.0", "vcs.revision", rev, "vcs.modified", "false"), "1.4.0", false, FromCheckout},
		{"go build at a tag, dirty", "", build("v1.4.0+dirty", "vcs.revision", rev, "vcs.modified", "true"), "dev+0123456789ab.dirty", true, FromCheckout},
		{"go build past a tag", "", build("v1.4.1-0.20261128120000-0123456789ab", "vcs.revision", rev), "dev+0123456789ab", true, FromCheckout},
		{"go install at a commit", "", build("v0.0.0-20261128120000-0123456789ab"), "dev", true, FromModule},
		{"checkout without tags", "", build("(devel)", "vcs.revision", rev), "dev+0123456789ab", true, FromCheckout},
		{"no vcs", "", build("(devel)"), "dev", true, FromCheckout},
		{"stamp not a version", "v1.2.0-3-gabcdef-dirty-x y", build("(devel)", "vcs.revision", rev), "dev+0123456789ab", true, FromCheckout},
		{"short stamp", "v1.4", build("(devel)"), "1.4.0", false, FromStamp},
		{"dev stamp at a tag", "dev+0123456789ab.dirty", build("v1.4.0", "vcs.revision", rev, "vcs.modified", "false"), "dev+0123456789ab.dirty", true, FromStamp},
		{"git describe past a tag", "v1.2.0-3-gabc1234", build("(devel)", "vcs.revision", rev), "dev+0123456789ab", true, FromCheckout},
		{"git describe, dirty", "v1.2.0-3-gabc1234-dirty", build("(devel)"), "dev", true, FromCheckout},
		{"git describe at a tag, dirty", "v1.4.0-dirty", build("(devel)"), "dev", true, FromCheckout},
		{"build metadata", "1.4.0+dirty", build("(devel)"), "dev", true, FromCheckout},
		{"a pseudo-version stamped", "v1.4.1-0.20261128120000-0123456789ab", build("(devel)"), "dev", true, FromCheckout},
		{"a pre-release that looks close", "1.5.0-rc-2", build("(devel)"), "1.5.0-rc-2", false, FromStamp},
		{"stamp of a word", "unknown", build("(devel)"), "dev", true, FromCheckout},
		{"nothing", "", nil, "dev", true, FromUnknown},
	} {
		got := resolve(c.stamp, c.bi)
		if got.Version != c.want || got.Dev != c.dev || got.From != c.from {
			t.Errorf("%s: got %q dev=%v from=%s, want %q dev=%v from=%s", c.name, got.Version, got.Dev, got.From, c.want, c.dev, c.from)
		}
	}
}

func TestIsPseudo(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.0.0-20261128120000-0123456789ab":         true,
		"v1.4.1-0.20261128120000-0123456789ab":       true,
		"v1.5.0-rc.1.0.20261128120000-0123456789ab":  true,
		"v1.4.1-0.20261128120000-0123456789ab+dirty": true,
		"v1.4.0":                               false,
		"v1.5.0-rc.1":                          false,
		"v1.5.0-20261128120000":                false,
		"v1.5.0-x20261128120000-0123456789ab":  false,
		"v1.4.1-0.20261128120000-0123456789aB": false,
	} {
		if got := isPseudo(v); got != want {
			t.Errorf("isPseudo(%q) = %v, want %v", v, got, want)
		}
	}
}

func rel(v string) Info { return Info{Version: v} }

func TestRequirement(t *testing.T) {
	for _, c := range []struct {
		text, version string
		allows        bool
	}{
		{">= 1.4", "1.4.0", true},
		{">= 1.4", "1.3.9", false},
		{">= 1.4", "1.5.0-rc.1", true}, // a pre-release compares as its release
		{">= 1.4", "1.4.0-rc.1", true}, // as 1.4.0, though semver orders it before
		{">= 1.4, < 2", "2.0.0", false},
		{">= 1.4, < 2", "1.9.9", true},
		{"1.4", "1.9.0", true}, // bare: a minimum
		{"1.4", "1.3.0", false},
		{"~1.4", "1.5.0", false},
		{"^1.4", "1.5.0", true},
		{"< 1.0 || >= 1.4", "0.9.0", true},
		// A constraint that names a pre-release compares pre-releases as
		// themselves: rc.1 is below rc.2, the release above it.
		{">= 1.5.0-rc.2", "1.5.0-rc.1", false},
		{">= 1.5.0-rc.2", "1.5.0-rc.2", true},
		{">= 1.5.0-rc.2", "1.5.0", true},
		{">= 1.5.0-rc.2", "1.6.0-rc.1", true},
		{"!= 1.5.0-rc.1", "1.5.0-rc.1", false},
	} {
		r, err := ParseRequirement(c.text, "taskresume.minVersion")
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got := r.Allows(rel(c.version)); got != c.allows {
			t.Errorf("%q allows %s = %v, want %v", c.text, c.version, got, c.allows)
		}
		if !r.Allows(Info{Version: "dev+abc", Dev: true}) {
			t.Errorf("%q refuses a development build", c.text)
		}
	}
}

func TestParseRequirementErrors(t *testing.T) {
	for _, text := range []string{"", "  ", "latest", ">= one", "1.4 <", ">=1.4,,", strings.Repeat(">= 1.4 ", 1000) + "x"} {
		_, err := ParseRequirement(text, "plan.md:3")
		if err == nil {
			t.Errorf("%q parsed", text)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "plan.md:3 ") || strings.Contains(msg, "\n") || len(msg) > 200 {
			t.Errorf("%q: error %q does not start with its source on one line", text, msg)
		}
	}
}

func TestLowerBound(t *testing.T) {
	for text, want := range map[string]bool{">= 1.4": true, "< 2": false, ">= 0.0.0": false, "^1.2": true, "< 1 || >= 2": false} {
		r, _ := ParseRequirement(text, "k")
		if got := r.HasLowerBound(); got != want {
			t.Errorf("%q lower bound %v, want %v", text, got, want)
		}
		if got := r.AllowsRecorded(""); got == want {
			t.Errorf("%q allows an unrecorded version: %v", text, got)
		}
	}
	r, _ := ParseRequirement(">= 1.4", "k")
	for rec, want := range map[string]bool{"1.4.0": true, "1.2.0": false, "dev+abc": true, "dev": true, "garbage": false, "1.5.0-rc.1": true, "1.4.0-rc.1": true} {
		if got := r.AllowsRecorded(rec); got != want {
			t.Errorf("recorded %q allowed %v, want %v", rec, got, want)
		}
	}
}

func TestRefusal(t *testing.T) {
	min, _ := ParseRequirement(">= 1.4", "git config taskresume.minVersion")
	g := Gate{This: rel("1.2.0"), Requires: []Requirement{min}}
	want := "this repository needs git-taskresume >= 1.4 (this is 1.2.0): upgrade (git config taskresume.minVersion)"
	if got := g.Refusal(); got != want {
		t.Errorf("refusal %q, want %q", got, want)
	}
	max, _ := ParseRequirement(">= 1.4, < 2", "plan.md:2")
	g = Gate{This: rel("2.1.0"), Requires: []Requirement{min, max}}
	if got := g.Refusal(); !strings.Contains(got, "needs git-taskresume >= 1.4, < 2 (this is 2.1.0): install a version it allows (plan.md:2)") {
		t.Errorf("refusal above the bound: %q", got)
	}
	// Below a bounded range, and below caret and tilde ranges: upgrade.
	for _, c := range []string{">= 1.4, < 2", "^1.4", "~1.4", "1.4.x", ">1.3.5 <1.3.9"} {
		r, err := ParseRequirement(c, "k")
		if err != nil {
			t.Fatal(err)
		}
		if got := (Gate{This: rel("1.2.0"), Requires: []Requirement{r}}).Refusal(); !strings.Contains(got, "(this is 1.2.0): upgrade (k)") {
			t.Errorf("%q with 1.2.0: %q", c, got)
		}
		if got := (Gate{This: rel("3.0.0"), Requires: []Requirement{r}}).Refusal(); !strings.Contains(got, "(this is 3.0.0): install a version it allows (k)") {
			t.Errorf("%q with 3.0.0: %q", c, got)
		}
	}
	g = Gate{This: rel("1.5.0"), Requires: []Requirement{min, max}}
	if g.Refusal() != "" || g.Note() != "" || !g.Allowed() {
		t.Errorf("1.5.0 refused by >= 1.4 and < 2: %q", g.Refusal())
	}
	g = Gate{This: Info{Version: "dev+0123456789ab", Dev: true}, Requires: []Requirement{min}}
	if g.Refusal() != "" || !strings.Contains(g.Note(), "development build dev+0123456789ab") {
		t.Errorf("dev build: refusal %q note %q", g.Refusal(), g.Note())
	}
	if (Gate{This: rel("1.0.0")}).Note() != "" {
		t.Error("a note without requirements")
	}
}
