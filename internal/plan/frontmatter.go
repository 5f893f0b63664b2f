package plan

import (
	"strings"
)

// This file reads YAML front matter: the block between two "---" lines that
// may open a plan, after blank lines and HTML comments only. The plan reads
// its run id from it.

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

// frontMatterLine reads one line of front matter. Only the run id matters,
// but a template placeholder anywhere means the plan was never filled in.
func (p *parser) frontMatterLine(num int, l string) {
	if ph, ok := placeholder(l); ok {
		p.templateError(num, ph)
		return
	}
	if v, ok := frontMatterRunID(l); ok {
		p.runID(num, v)
	}
}

// frontMatterRunID reads one line of YAML front matter and returns the value
// of a run id key: runId, run_id or run-id in any case, the value optionally
// quoted. Other keys are none of the plan's business.
func frontMatterRunID(l string) (string, bool) {
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		return "", false
	}
	key := trimBlank(l[:colon])
	if !asciiEqualFold(key, "runid") && !asciiEqualFold(key, "run_id") && !asciiEqualFold(key, "run-id") {
		return "", false
	}
	v := trimBlank(l[colon+1:])
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : 1+end], true
		}
	}
	// YAML: " #" starts a comment ("runId: a1b2c3  # set by the orchestrator").
	if i := strings.Index(v, " #"); i >= 0 {
		v = trimBlank(v[:i])
	} else if i := strings.Index(v, "\t#"); i >= 0 {
		v = trimBlank(v[:i])
	}
	return v, true
}
