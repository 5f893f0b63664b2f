package resume

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/version"
)

// This file holds the versions a repository allows: git config
// taskresume.minVersion and the plan's front matter taskresume-version,
// both semver constraints. A binary they do not allow still reports (a
// read changes nothing, and its header says so), but refuses whatever
// writes or hands out work: the claims, --next, the --exit-code gate and
// every clean. docs/MANY-MACHINES.md, "Which versions a repository allows".

// ErrUnknownRun is wrapped by the error of a run with neither a plan nor
// anything else of its own: the modes that may act on a run already gone
// (the clean's --undo, --restore, --expire-backups) test for it.
var ErrUnknownRun = errors.New("unknown run")

// ErrBadVersionSetting is wrapped by the error of a taskresume.minVersion
// that does not parse: the repository's, not one run's (--list stops at it).
var ErrBadVersionSetting = errors.New("bad taskresume.minVersion")

// ToolVersion is this binary against the versions the repository allows,
// in the report: present only when a version is required.
type ToolVersion struct {
	// Version is this binary's ("1.4.0", "dev+<commit>").
	Version  string                `json:"version"`
	Dev      bool                  `json:"dev"`
	Requires []version.Requirement `json:"requires"`
	// Allowed: every requirement allows this binary (a development build
	// is always allowed).
	Allowed bool `json:"allowed"`
	// Note is the report header's line about it, "" when nothing to say.
	Note string `json:"note,omitempty"`
}

// configRequirement reads git config taskresume.minVersion, if set.
func configRequirement(cfg map[string]string) (*version.Requirement, error) {
	v, ok := cfg["taskresume.minversion"]
	if !ok {
		return nil, nil
	}
	r, err := version.ParseRequirement(v, "git config "+version.ConfigKey)
	if err != nil {
		return nil, &exit.BadInputError{Msg: err.Error(), Err: ErrBadVersionSetting}
	}
	return &r, nil
}

// ConfigGate is the gate of git config alone: where no plan is read (the
// clean's --backups, --list's check of the setting, and --undo, --restore
// and --expire-backups of a run that is gone).
func ConfigGate(cfg map[string]string) (version.Gate, error) {
	g := version.Gate{This: version.Get()}
	r, err := configRequirement(cfg)
	if r != nil {
		g.Requires = append(g.Requires, *r)
	}
	return g, err
}

// setGate records the versions allowed, once the plan is read.
func (g *gathering) setGate() {
	st := g.st
	st.Gate.This = version.Get()
	if g.cfgRequires != nil {
		st.Gate.Requires = append(st.Gate.Requires, *g.cfgRequires)
	}
	st.Gate.Requires = append(st.Gate.Requires, g.planRequires...)
	if len(st.Gate.Requires) == 0 {
		return
	}
	g.rep.Tool = &ToolVersion{Version: st.Gate.This.Version, Dev: st.Gate.This.Dev,
		Requires: st.Gate.Requires, Allowed: st.Gate.Allowed(), Note: st.Gate.Note()}
}

// VersionError refuses a mode that writes or hands out work when the
// repository does not allow this binary; nil otherwise.
func (st *State) VersionError() error {
	if s := st.Gate.Refusal(); s != "" {
		return &exit.BadInputError{Msg: s}
	}
	return nil
}

// rivalClaimProblems says where one task is claimed under both spellings
// of its id by different holders, both live: two versions that kept a
// claim under the plan's spelling took it each from its own copy of the
// plan. This version counts them as one task's claims, so it hands the
// task to neither; one of the holders should release it.
func (g *gathering) rivalClaimProblems() {
	st := g.st
	for _, id := range slices.Sorted(maps.Keys(st.Claims)) {
		c := st.Claims[id]
		if c.Expired || c.Alias != "" {
			continue
		}
		for _, r := range c.LiveRivals() {
			g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemClaimConflict, Task: st.PlanID(id), Message: fmt.Sprintf(
				"task %s is claimed twice: as %s by %s and as %s by %s (earlier versions kept a claim under the plan's spelling of the id, so two of them could each take it); one of them should release it",
				st.PlanID(id), c.Ref, c.Holder, r.Ref, r.Holder)})
		}
	}
}

// oldClaimProblems names the live claims written by a version the
// repository does not allow, or by a binary too old to record its version
// while the repository asks for a minimum: another machine still runs it,
// and hands out work by an older rule.
func (g *gathering) oldClaimProblems() {
	st := g.st
	if len(st.Gate.Requires) == 0 {
		return
	}
	ids := make([]string, 0, len(st.Claims))
	for id := range st.Claims {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c := st.Claims[id]
		// A symbolic ref on the remote is no claim of any version: it is
		// claim_alias already.
		if c.Expired || c.Alias != "" {
			continue
		}
		for _, r := range st.Gate.Requires {
			if r.AllowsRecorded(c.Version) {
				continue
			}
			by := "git-taskresume " + c.Version
			if c.Version == "" {
				by = "a git-taskresume too old to record its version"
			}
			g.rep.Problems = append(g.rep.Problems, Problem{Kind: ProblemClaimOldVersion, Task: st.PlanID(id),
				Message: fmt.Sprintf("task %s is claimed by %s with %s, which this repository does not allow (%s, %s): that machine hands out work by an older rule; upgrade it",
					st.PlanID(id), c.Holder, by, r.Constraint, r.Source)})
			break
		}
	}
}

// versionNote is the header's line about the versions allowed: the
// refusal the writing modes would give, or that a development build did
// not check them.
func (rep *Report) versionNote() string {
	if rep.Tool == nil {
		return ""
	}
	return rep.Tool.Note
}
