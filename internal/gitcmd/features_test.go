package gitcmd_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"git version 2.39.5\n", "2.39.5"},
		{"git version 2.39.3 (Apple Git-146)\n", "2.39.3"},
		{"git version 2.45.1.windows.1\n", "2.45.1"},
		{"git version 2.47.0.rc1\n", "2.47.0"},
		{"git version 2.30", "2.30.0"},
		{"git version 2.36.0", "2.36.0"},
		{"git version 3.0", "3.0.0"},
		{"git version 2.40.0.rc1.12.gabcdef\n", "2.40.0"},
		{"git version 2.45.2-foo", "2.45.2"},
		{"  git   version 2.44.1 \n", "2.44.1"},
	}
	for _, tc := range cases {
		v, err := gitcmd.ParseVersion(tc.in)
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", tc.in, err)
			continue
		}
		if v.String() != tc.want {
			t.Errorf("ParseVersion(%q) = %s, want %s", tc.in, v, tc.want)
		}
	}
	for _, bad := range []string{"", "garbage", "git version\n", "command not found: git",
		"git version x.y.z", "git version 2", "git version .39.1", "version 2.39.5", "hub version 2.39.5", "git 2.39.5"} {
		if v, err := gitcmd.ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", bad, v)
		}
	}
}

// minimumForm is a minimum's constraint: a lower bound.
var minimumForm = regexp.MustCompile(`^>= [0-9]+\.[0-9]+(\.[0-9]+)?$`)

func TestFeatures(t *testing.T) {
	var prev *semver.Version
	seenDifference := false
	for _, f := range gitcmd.Features {
		c, err := semver.NewConstraint(f.Needs)
		if err != nil {
			t.Errorf("%s: constraint %q: %v", f.Name, f.Needs, err)
			continue
		}
		if f.Name == "" || f.Where == "" || f.Without == "" || f.Source == "" {
			t.Errorf("%+v: every row says what, where, without it and from where", f)
		}
		if !f.Minimum {
			seenDifference = true
			continue
		}
		if seenDifference {
			t.Errorf("%s: a minimum after a difference; the minimums come first", f.Name)
		}
		// A minimum is a lower bound, which MinVersion and the message
		// read ("needs git 2.36 or newer").
		if !minimumForm.MatchString(f.Needs) {
			t.Errorf("%s: a minimum's constraint is \">= X.Y\", not %q", f.Name, f.Needs)
			continue
		}
		v := semver.MustParse(strings.TrimPrefix(f.Needs, ">= "))
		if !c.Check(v) {
			t.Errorf("%s: %s does not meet its own %q", f.Name, v, f.Needs)
		}
		// Newest first: the first row an old git misses is the one whose
		// version has them all.
		if prev != nil && v.GreaterThan(prev) {
			t.Errorf("%s (%s) after a row of %s: the minimums go newest first", f.Name, v, prev)
		}
		prev = v
	}
}

func TestMinVersion(t *testing.T) {
	min := gitcmd.MinVersion()
	if gitcmd.Missing(min) != nil {
		t.Errorf("MinVersion %s misses %s", min, gitcmd.Missing(min).Name)
	}
	// The patch releases before it miss a minimum: nothing older will do.
	below := semver.New(min.Major(), min.Minor()-1, 99, "", "")
	if gitcmd.Missing(below) == nil {
		t.Errorf("git %s misses no minimum, so MinVersion %s is not the oldest that works", below, min)
	}
	if got := gitcmd.Short(min); !regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`).MatchString(got) {
		t.Errorf("Short(%s) = %q", min, got)
	}
}

func TestMissing(t *testing.T) {
	cases := []struct {
		git, want string // want: the row named, "" for none
	}{
		{"2.30.1", "`git worktree list --porcelain -z`"}, // misses three: the newest is named
		{"2.35.9", "`git worktree list --porcelain -z`"},
		{"2.36.0", ""},
		{"2.39.5", ""},
		{"3.0.0", ""},
		{"2.21.0", "`git worktree list --porcelain -z`"},
	}
	for _, tc := range cases {
		f := gitcmd.Missing(semver.MustParse(tc.git))
		got := ""
		if f != nil {
			got = f.Name
		}
		if got != tc.want {
			t.Errorf("Missing(%s) = %q, want %q", tc.git, got, tc.want)
		}
	}
}

// A difference's constraint says which gits have it, patch releases
// included: git 2.39.4 and the other security releases of May 2024 honour
// GIT_NO_LAZY_FETCH, the releases just before them do not.
func TestDifferenceConstraint(t *testing.T) {
	var needs string
	for _, f := range gitcmd.Features {
		if f.Name == "`GIT_NO_LAZY_FETCH`" {
			needs = f.Needs
		}
	}
	c, err := semver.NewConstraint(needs)
	if err != nil {
		t.Fatalf("GIT_NO_LAZY_FETCH: %q: %v", needs, err)
	}
	for v, want := range map[string]bool{
		"2.39.3": false, "2.39.4": true, "2.39.5": true, "2.40.1": false, "2.40.2": true,
		"2.41.0": false, "2.41.1": true, "2.42.1": false, "2.42.2": true, "2.43.3": false,
		"2.43.4": true, "2.44.0": false, "2.44.1": true, "2.45.0": true, "2.50.1": true, "2.38.9": false,
	} {
		if got := c.Check(semver.MustParse(v)); got != want {
			t.Errorf("GIT_NO_LAZY_FETCH with git %s: %v, want %v", v, got, want)
		}
	}
}

// Every file a row says uses the feature is there, and holds the function
// named after it and the option itself: a row outlives no use.
func TestFeaturesWhere(t *testing.T) {
	top := filepath.Join("..", "..")
	file := regexp.MustCompile(`(internal/[a-z/]+\.go)(?:, ([A-Za-z]+)[;)])?`)
	for _, f := range gitcmd.Features {
		ms := file.FindAllStringSubmatch(f.Where, -1)
		if len(ms) == 0 {
			t.Errorf("%s: Where names no file: %q", f.Name, f.Where)
		}
		for _, m := range ms {
			data, err := os.ReadFile(filepath.Join(top, m[1]))
			if err != nil {
				t.Errorf("%s: %v", f.Name, err)
				continue
			}
			if m[2] != "" && !regexp.MustCompile(`func (\([^)]*\) )?`+m[2]+`\b|\b`+m[2]+` *=`).Match(data) {
				t.Errorf("%s: %s has no %s", f.Name, m[1], m[2])
			}
		}
	}
}

// fakeGit puts a git of version first on PATH, in front of the real one
// (testbin.OldGit).
func fakeGit(t *testing.T, version string, echoPathFormat bool) {
	t.Helper()
	t.Setenv("PATH", testbin.OldGit(t, version, echoPathFormat)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestCheckVersion(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	if err := gitcmd.CheckVersion(ctx, "git-taskresume"); err != nil {
		t.Fatalf("CheckVersion with the installed git: %v", err)
	}
	for _, tc := range []struct{ git, want string }{
		{"2.30.1", "git 2.30.1 is too old for git-taskresume: `git worktree list --porcelain -z` needs git 2.36 or newer; upgrade git"},
		{"2.35.2 (Apple Git-136)", "git 2.35.2 is too old for git-taskresume: `git worktree list --porcelain -z` needs git 2.36 or newer; upgrade git"},
		{"2.36.0.windows.1", ""},
		{"2.47.0.rc1", ""},
	} {
		t.Run(tc.git, func(t *testing.T) {
			fakeGit(t, tc.git, false)
			err := gitcmd.CheckVersion(ctx, "git-taskresume")
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("CheckVersion with git %s = %q, want %q", tc.git, got, tc.want)
			}
			var te *gitcmd.TooOldError
			if tc.want != "" && !errors.As(err, &te) {
				t.Errorf("CheckVersion with git %s: %T, want a *gitcmd.TooOldError", tc.git, err)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		fakeGit(t, "", false)
		if err := gitcmd.CheckVersion(ctx, "git-taskresume"); err == nil || !strings.Contains(err.Error(), "cannot read git's version") {
			t.Errorf("CheckVersion with a git that says no version: %v", err)
		}
	})
}

// A git older than 2.31 prints back the --path-format it does not know:
// Open refuses that answer (a failure the commands then explain by git's
// version) rather than read every path one line off.
func TestOpenOldRevParse(t *testing.T) {
	root, _ := newRepo(t)
	if _, err := gitcmd.Open(context.Background(), root); err != nil {
		t.Fatalf("Open with the real git: %v", err)
	}
	fakeGit(t, "2.30.1", true)
	repo, err := gitcmd.Open(context.Background(), root)
	if err == nil {
		t.Fatalf("Open with a git that echoes --path-format: %+v, want an error", *repo)
	}
	if errors.Is(err, gitcmd.ErrNotRepo) || !strings.Contains(err.Error(), "--path-format=absolute (git 2.31 or newer") {
		t.Errorf("Open: %v", err)
	}
}
