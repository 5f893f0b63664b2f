package plan

import (
	"strings"

	"github.com/taskresume/git-taskresume/internal/version"
)

// This file reads YAML front matter: the block between two "---" lines that
// may open a plan, after blank lines and HTML comments only. The plan reads
// its run id and the versions of the tool it allows from it.

// preamble follows the lines before a plan's first content line, which may
// be blank or HTML comments, to find front matter, which must come first.
type preamble struct {
	done      bool
	inComment bool
}

// next reports whether l is still preamble (blank, or part of an HTML
// comment). The first other line ends the preamble.
func (pr *preamble) next(l string) bool {
	s := trimBlank(l)
	if pr.inComment {
		if i := strings.Index(s, "-->"); i >= 0 {
			pr.inComment = false
			if trimBlank(s[i+3:]) != "" {
				pr.done = true
				return false
			}
		}
		return true
	}
	if s == "" {
		return true
	}
	if strings.HasPrefix(s, "<!--") {
		i := strings.Index(s[4:], "-->")
		if i < 0 {
			pr.inComment = true
			return true
		}
		if trimBlank(s[4+i+3:]) == "" {
			return true
		}
	}
	pr.done = true
	return false
}

// isFrontMatterFence reports whether l opens or closes YAML front matter.
func isFrontMatterFence(l string, closing bool) bool {
	l = trimBlank(l)
	return l == "---" || closing && l == "..."
}

// holdsHeadings looks ahead from a "---" on the first line, up to the next
// "---": a block holding a Markdown heading of level two or more, or a Phase
// or Task heading, is the plan itself between two thematic breaks, not YAML
// front matter (whose comments start with a single "#"). Read as front
// matter, its phases and tasks would vanish.
// Without a closing "---" it stays front matter, and an error says so.
func holdsHeadings(text string, pos int) bool {
	headings := false
	for pos < len(text) {
		var l string
		l, pos = nextLine(text, pos)
		if isFrontMatterFence(l, true) {
			return headings
		}
		if level, htext, ok := parseHeading(l); ok {
			if kind, _, _, _ := keywordHeading(htext); level >= 2 || kind != "" {
				headings = true
			}
		}
	}
	return false
}

// frontMatterLine reads one line of front matter. The run id and the
// versions of the tool the plan allows matter; a template placeholder
// anywhere means the plan was never filled in.
func (p *parser) frontMatterLine(num int, l string) {
	if ph, ok := placeholder(l); ok {
		p.templateError(num, ph)
		return
	}
	key, v, ok := frontMatterValue(l)
	switch {
	case !ok:
	case oneOfFold(key, "runid", "run_id", "run-id"):
		p.runID(num, v)
	case oneOfFold(key, VersionKey, "taskresume_version", "taskresumeversion"):
		p.requires(num, v)
	}
}

// VersionKey is the front matter key of the versions of git-taskresume a
// plan allows (a semver constraint, as git config taskresume.minVersion).
const VersionKey = "taskresume-version"

// requires reads the plan's version constraint: a team commits it with
// the plan, so every clone and CI checkout reads the same one.
func (p *parser) requires(num int, v string) {
	r, err := version.ParseRequirement(v, VersionKey)
	if err != nil {
		p.errorf(num, "%s", err.Error())
		return
	}
	r.Source = strings.TrimSuffix(position(p.path, num), ": ") // "plan.md:3"
	switch {
	case p.plan.Requires == nil:
		p.plan.Requires = &r
		p.requiresAt = num
		p.requiresPath = p.path
	case p.plan.Requires.Constraint != r.Constraint:
		p.errorf(num, "%s %q differs from %q at %s", VersionKey, v, p.plan.Requires.Constraint, p.where(p.requiresPath, p.requiresAt))
	}
}

// oneOfFold reports whether s is one of names, ASCII case aside.
func oneOfFold(s string, names ...string) bool {
	for _, n := range names {
		if asciiEqualFold(s, n) {
			return true
		}
	}
	return false
}

// frontMatterValue reads one line of YAML front matter as key and value,
// the value optionally quoted. Other keys are none of the plan's business.
func frontMatterValue(l string) (key, value string, ok bool) {
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		return "", "", false
	}
	key = trimBlank(l[:colon])
	v := trimBlank(l[colon+1:])
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return key, v[1 : 1+end], true
		}
	}
	// YAML: " #" starts a comment ("runId: a1b2c3  # set by the orchestrator").
	if i := strings.Index(v, " #"); i >= 0 {
		v = trimBlank(v[:i])
	} else if i := strings.Index(v, "\t#"); i >= 0 {
		v = trimBlank(v[:i])
	}
	return key, v, true
}
