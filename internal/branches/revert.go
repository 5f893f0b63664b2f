package branches

import (
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// reverted maps each commit of the lists that a later commit of them
// reverts (and, for a reverted merge, each commit the merge brought in) to
// the revert. A revert that was itself reverted voids nothing. The lists
// are read as one, newest first; not copied into one, since the landed
// lists of an old run hold 100,000 commits.
func reverted(lists ...[]CommitInfo) map[string]string {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	at := func(k int) *CommitInfo {
		for _, l := range lists {
			if k < len(l) {
				return &l[k]
			}
			k -= len(l)
		}
		return nil
	}
	// Indexed only once a revert is found: most lists hold none, and a
	// list of many runs asks this of every run's landed commits.
	var byOID map[string]*CommitInfo
	index := func() {
		if byOID == nil {
			byOID = make(map[string]*CommitInfo, n)
			for _, l := range lists {
				for i := range l {
					byOID[l[i].OID] = &l[i]
				}
			}
		}
	}
	voided := map[string]string{}
	for i := 0; i < n; i++ {
		c := at(i)
		target := c.Reverts
		if target == "" {
			// A revert whose message lost its "This reverts commit"
			// line still says what it reverts by name: the newest older
			// commit of that subject.
			if s, ok := revertedSubject(c.Subject); ok {
				for j := i + 1; j < n; j++ {
					if o := at(j); o.Subject == s {
						target = o.OID
						break
					}
				}
			}
		}
		if target == "" || voided[c.OID] != "" {
			continue
		}
		voided[target] = c.OID
		index()
		m := byOID[target]
		if m == nil || !isMerge(m) {
			continue
		}
		// What the merge brought in: reachable from its other parents and
		// not from its first, within the landed commits.
		first := map[string]bool{}
		stack := []string{m.Parents[0]}
		for len(stack) > 0 {
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if first[o] || byOID[o] == nil {
				continue
			}
			first[o] = true
			stack = append(stack, byOID[o].Parents...)
		}
		seen := map[string]bool{}
		stack = append([]string(nil), m.Parents[1:]...)
		for len(stack) > 0 {
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[o] || first[o] || byOID[o] == nil {
				continue
			}
			seen[o] = true
			if voided[o] == "" {
				voided[o] = c.OID
			}
			stack = append(stack, byOID[o].Parents...)
		}
	}
	return voided
}

// revertedSubject is the subject a revert's subject names: `Revert "S"`
// as git writes it, or "revert: S".
//
// A forge's squash of a revert adds its own " (#N)": `Revert "S" (#13)`.
func revertedSubject(subject string) (string, bool) {
	if k := gitcmd.PRSuffix(subject); k >= 0 && strings.HasSuffix(strings.TrimRight(subject[:k], " "), `"`) {
		subject = strings.TrimRight(subject[:k], " ")
	}
	if rest, ok := strings.CutPrefix(subject, `Revert "`); ok && strings.HasSuffix(rest, `"`) {
		return strings.TrimSuffix(rest, `"`), true
	}
	if len(subject) > 7 && strings.EqualFold(subject[:7], "revert:") {
		return strings.TrimSpace(subject[7:]), true
	}
	return "", false
}
