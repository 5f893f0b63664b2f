package gitcmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Feature is a behaviour of git that the commands rely on and that not
// every git has: the versions that have it, where the commands use it and
// what they do without it.
type Feature struct {
	// Name is the feature as a user reads it in a message.
	Name string
	// Needs is the semver constraint git's version must meet (git's own
	// version read as ParseVersion reads it).
	Needs string
	// Minimum: the commands fail, or would misread git's answer, on a git
	// without it, so a git outside Needs is too old for them. A row that
	// is no minimum is a difference the code handles (or accepts), kept
	// here so that the next change of it finds where it matters.
	Minimum bool
	// Where the commands use it.
	Where string
	// Without is what happens on a git that does not have it.
	Without string
	// Source is where the version comes from: git's release notes
	// (Documentation/RelNotes) or the commit that brought it.
	Source string
}

// Features is every version-dependent git feature the commands use, the
// minimums first, newest first: the first row an older git misses is the
// one to name, since the version that has it has all the others.
//
// Checked and left out, since every git since 2.5 (git worktree itself)
// has them: `git -C` (1.8.5), `update-ref --stdin` with `option no-deref`
// (1.8.5), `cat-file --batch-check=<format>` (1.8.4), `config -z` and
// `--no-includes` (1.7.10), `merge-base --octopus/--independent/
// --is-ancestor` (1.8.0), `rev-parse --git-common-dir` (2.5). Not used,
// though newer gits have them: `cat-file --batch-command` (2.36),
// `update-ref --stdin` `symref-update` (2.46; aliases are written with
// symbolic-ref), `rev-list --filter`; changed-path Bloom filters (2.27)
// only make git's own `log -- <path>` faster where a commit-graph has them;
// `%(trailers)` (2.22): the Run-Id and Task-Id trailers are read in Go
// (trailers.go), as git 2.39 reads them whatever the configuration.
var Features = []Feature{
	{
		Name:    "`git worktree list --porcelain -z`",
		Needs:   ">= 2.36",
		Minimum: true,
		Where:   "every report, --list and every clean read the worktrees with it (internal/worktree/worktree.go, List)",
		Without: "git refuses -z (unknown switch); without -z a path holding a newline cannot be read",
		Source:  "RelNotes 2.36.0: worktree list learned -z",
	},
	{
		Name:    "`git rev-list --no-commit-header`",
		Needs:   ">= 2.33",
		Minimum: true,
		Where:   "the commits only a reflog holds: the report's reset task branches, the clean's saves of deleted branches (internal/resume/reflog.go, ReflogLost)",
		Without: "git refuses the option",
		Source:  "RelNotes 2.33.0",
	},
	{
		Name:    "`git rev-parse --path-format=absolute`",
		Needs:   ">= 2.31",
		Minimum: true,
		Where:   "finding the repository, every command's first git (internal/gitcmd/repo.go, Open)",
		Without: "git prints the option back and answers relative paths; Open refuses that answer",
		Source:  "RelNotes 2.31.0",
	},
	{
		Name:    "`git rev-parse --end-of-options`",
		Needs:   ">= 2.30",
		Minimum: true,
		Where:   "a revision the user gives: --base, a REV:PATH plan (internal/gitcmd/repo.go, ResolveCommit)",
		Without: "git reads the marker as a revision and fails",
		Source:  "RelNotes 2.30.0",
	},
	{
		Name:    "`git fetch --no-write-fetch-head`",
		Needs:   ">= 2.29",
		Minimum: true,
		Where:   "claims read live from the run's remote (internal/claims/remote.go)",
		Without: "git refuses the option",
		Source:  "RelNotes 2.29.0",
	},
	{
		Name:    "`git update-ref --stdin` transactions (start, prepare, commit)",
		Needs:   ">= 2.27",
		Minimum: true,
		Where:   "the clean records its saves in one prepared transaction (internal/gitcmd/txn.go, UpdateRefsPrepared)",
		Without: "git refuses the verbs",
		Source:  "RelNotes 2.27.0",
	},
	{
		Name:    "`--end-of-options`",
		Needs:   ">= 2.24",
		Minimum: true,
		Where:   "before every ref, revision and remote name: for-each-ref, log, cat-file, merge-base (internal/gitcmd/repo.go), update-ref and fetch (internal/claims/take.go, internal/claims/remote.go), remote get-url (internal/resume/remote.go)",
		Without: "git reads the marker as an argument and fails",
		Source:  "RelNotes 2.24.0",
	},
	{
		Name:    "`git fetch --no-auto-gc`",
		Needs:   ">= 2.23",
		Minimum: true,
		Where:   "claims read live from the run's remote (internal/claims/remote.go)",
		Without: "git refuses the option",
		Source:  "RelNotes 2.23.0, commit c3d6b70338",
	},
	{
		Name:    "`git status --ignored=matching`",
		Needs:   ">= 2.16",
		Minimum: true,
		Where:   "the ignored files a clean saves and a report counts (internal/worktree/save.go, readStatus; internal/worktree/status.go, statusOf)",
		Without: "git refuses the mode",
		Source:  "RelNotes 2.16.0, commit 1b2bc3912a",
	},
	{
		Name:    "`git rev-parse --is-shallow-repository`",
		Needs:   ">= 2.15",
		Minimum: true,
		Where:   "finding the repository (internal/gitcmd/repo.go, Open)",
		Without: "git prints the option back: the answer is read one line off",
		Source:  "RelNotes 2.15.0",
	},
	{
		Name:    "`git status --porcelain=v2`",
		Needs:   ">= 2.11",
		Minimum: true,
		Where:   "the state of every worktree of the run (internal/worktree/status.go, statusOf; internal/worktree/save.go, readStatus)",
		Without: "git refuses the version",
		Source:  "RelNotes 2.11.0, commit c4f596b98e",
	},
	{
		Name:    "`git for-each-ref --merged/--contains`, `git remote get-url`",
		Needs:   ">= 2.7",
		Minimum: true,
		Where:   "worktrees gone on past their branch (internal/resume/interrupted.go), RefsContaining, the run's remote (internal/resume/remote.go)",
		Without: "git refuses the option or the subcommand",
		Source:  "RelNotes 2.7.0",
	},
	{
		Name:    "`GIT_NO_LAZY_FETCH`",
		Needs:   ">= 2.39.4, < 2.40 || >= 2.40.2, < 2.41 || >= 2.41.1, < 2.42 || >= 2.42.2, < 2.43 || >= 2.43.4, < 2.44 || >= 2.44.1",
		Where:   "the clean's save of a worktree's admin entry asks which objects exist (internal/worktree/saveadmin.go, admClassify)",
		Without: "in a partial clone git fetches a missing object from the promisor remote instead of answering missing: slower, and online; accepted",
		Source:  "commit 7b70e9efb1 (upload-pack: disable lazy-fetching by default), in 2.39.4, 2.40.2, 2.41.1, 2.42.2, 2.43.4, 2.44.1 and 2.45.0",
	},
	{
		Name:    "`git var -l` lists GIT_ATTR_SYSTEM and GIT_ATTR_GLOBAL",
		Needs:   ">= 2.42",
		Where:   "whether attributes outside the worktrees may convert what the clean saves (internal/worktree/shared.go, OpenShared)",
		Without: "handled: the system attributes file is looked for beside the system configuration and beside git's program",
		Source:  "RelNotes 2.42.0, commit 576a37fccb",
	},
	{
		Name:    "`attr.tree` and `GIT_ATTR_SOURCE`",
		Needs:   ">= 2.41",
		Where:   "the same check (internal/worktree/shared.go)",
		Without: "handled: an older git ignores them; reading them as set only costs a check-attr",
		Source:  "RelNotes 2.41.0 (--attr-source), 2.43.0 (attr.tree)",
	},
	{
		Name:    "`git config --show-scope`",
		Needs:   ">= 2.26",
		Where:   "the configuration every worktree shares, read once per clean (internal/worktree/shared.go, readConvertConfig)",
		Without: "handled: each worktree's conversions are then asked in the worktree itself (slower)",
		Source:  "RelNotes 2.26.0, commit 145d59f482",
	},
}

// MinVersion is the oldest git the commands support: the newest version a
// minimum row of Features names. Each minimum's Needs is ">= X.Y[.Z]"
// (a test checks it).
func MinVersion() *semver.Version {
	var min *semver.Version
	for _, f := range Features {
		if !f.Minimum {
			continue
		}
		v, err := semver.NewVersion(f.since())
		if err != nil {
			panic(fmt.Sprintf("gitcmd.Features: %s: %q is not \">= VERSION\"", f.Name, f.Needs))
		}
		if min == nil || v.GreaterThan(min) {
			min = v
		}
	}
	return min
}

// Short is "2.36" for 2.36.0, "2.39.4" for 2.39.4: how git's versions are
// named in messages and documents.
func Short(v *semver.Version) string {
	if v.Patch() == 0 {
		return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
	}
	return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())
}

// Missing returns the first minimum row of Features that git version v
// lacks, nil when it has them all.
func Missing(v *semver.Version) *Feature {
	for i, f := range Features {
		if !f.Minimum {
			continue
		}
		c, err := semver.NewConstraint(f.Needs)
		if err != nil {
			panic(fmt.Sprintf("gitcmd.Features: %s: %v", f.Name, err))
		}
		if !c.Check(v) {
			return &Features[i]
		}
	}
	return nil
}

// ParseVersion reads the output of `git version`: its third word's leading
// MAJOR.MINOR.PATCH, a missing patch read as 0. Git's versions are not
// semver ("2.39.3 (Apple Git-146)", "2.45.1.windows.1", "2.47.0.rc1"), so
// what follows the patch (a vendor's build, a release candidate) is
// dropped: 2.47.0.rc1 has what 2.47.0 has, as far as these rows go.
func ParseVersion(out string) (*semver.Version, error) {
	f := strings.Fields(out)
	if len(f) < 3 || f[0] != "git" || f[1] != "version" {
		return nil, fmt.Errorf("cannot read git's version in %q", strings.TrimSpace(out))
	}
	var n [3]uint64
	got := 0
	for _, part := range strings.SplitN(f[2], ".", 4) {
		// A part's leading digits: "0-rc1" is 0.
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		x, err := strconv.ParseUint(part[:end], 10, 64)
		if err != nil || got == 3 {
			break
		}
		n[got] = x
		got++
		if end < len(part) {
			break // what follows the digits is no version part of ours
		}
	}
	if got < 2 {
		return nil, fmt.Errorf("cannot read git's version in %q", strings.TrimSpace(out))
	}
	return semver.New(n[0], n[1], n[2], "", ""), nil
}

// TooOldError is a git without a feature the commands need.
type TooOldError struct {
	Prog    string
	Git     *semver.Version
	Feature Feature
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("git %s is too old for %s: %s needs git %s or newer; upgrade git",
		Short(e.Git), e.Prog, e.Feature.Name, e.Feature.since())
}

// CheckVersion runs `git version` and returns a TooOldError when the
// installed git lacks a minimum of Features, an error when git cannot run
// or says no version it can read, nil otherwise. The commands call it only
// after something failed (one process more then, none on the way to an
// answer).
func CheckVersion(ctx context.Context, prog string) error {
	out, err := Runner{}.Run(ctx, "version")
	if err != nil {
		return fmt.Errorf("run git: %w", err)
	}
	v, err := ParseVersion(string(out))
	if err != nil {
		return err
	}
	if f := Missing(v); f != nil {
		return &TooOldError{Prog: prog, Git: v, Feature: *f}
	}
	return nil
}

// since is the version a minimum needs, for a message: "2.31" of ">= 2.31".
func (f Feature) since() string { return strings.TrimSpace(strings.TrimPrefix(f.Needs, ">=")) }

// needs is the version the row of Features named name needs.
func needs(name string) string {
	for _, f := range Features {
		if f.Name == name {
			return f.since()
		}
	}
	panic("gitcmd.Features has no row " + name)
}
