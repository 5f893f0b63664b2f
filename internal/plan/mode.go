package plan

import (
	"strings"
)

// This file reads a phase's mode (Parallel or Sequential) from the word a
// heading or a Strategy line gives, and records it on the phase.

// modeWord reads a mode from the first word of s: Parallel or Sequential in
// any case. bad is a message when the word is a misspelt mode or s offers a
// choice ("parallel|sequential"): both mean the author has to decide.
func modeWord(s string) (m Mode, ok bool, bad string) {
	word, _ := leadingWord(s)
	switch {
	case asciiEqualFold(word, string(Parallel)):
		m = Parallel
	case asciiEqualFold(word, string(Sequential)):
		m = Sequential
	case nearMiss(word, string(Parallel)) || nearMiss(word, string(Sequential)):
		return "", false, "misspelt mode " + quote(word) + ` (want "Parallel" or "Sequential")`
	default:
		return "", false, ""
	}
	if strings.IndexByte(s, '|') >= 0 {
		return "", false, "mode " + quote(s) + ` offers a choice: choose one of "Parallel" or "Sequential"`
	}
	return m, true, ""
}

// strategyValue recognises a phase's Strategy line; "**Testing Strategy:**"
// is not one because its first word is not Strategy.
func strategyValue(l string) (string, bool) { return labelValue(l, "strategy") }

// strategy reads a Strategy line. Only the one between a phase heading and
// the phase's first task counts; elsewhere (a summary, a task's notes) the
// word is prose. A refused one leaves its phase without a mode, and the
// warning that says so would only repeat the error.
func (p *parser) strategy(num int, v string) {
	inZone := p.zone && p.phase != nil
	if ph, bad := placeholder(v); bad {
		p.templateError(num, ph)
		if inZone {
			p.modeRefused[p.phase] = true
		}
		return
	}
	if !inZone {
		return
	}
	m, ok, msg := modeWord(v)
	switch {
	case msg != "":
		p.errorf(num, "%s", msg)
		p.modeRefused[p.phase] = true
		return
	case !ok:
		p.warnf(num, "strategy %s is neither parallel nor sequential; ignored", quote(v))
		return
	}
	p.setMode(p.phase, m, num, "strategy line")
}

// setMode records a phase's mode; two places that disagree are an error,
// because the resume point depends on which one is meant; the first stays.
func (p *parser) setMode(ph *Phase, m Mode, num int, what string) {
	if ph.ModeGiven {
		if ph.Mode != m {
			p.errorf(num, "%s says %s but line %d says %s for phase %d: choose one", what, m, ph.ModeLine, ph.Mode, ph.Number)
		}
		return
	}
	ph.Mode, ph.ModeGiven, ph.ModeLine = m, true, num
}
