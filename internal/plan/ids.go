package plan

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file says what makes the ids a plan names valid: run ids and task
// ids, and when two spellings of a task id are the same task.

// maxRunID bounds a run id so that "<run>-task-<id>-<slug>" and the backup
// refs stay well inside file-name limits of loose refs.
const maxRunID = 64

// ValidateRunID reports why id is not a usable run id (nil when it is).
// A run id becomes part of branch names ("<id>-task-1", "<id>-main") and of
// backup refs ("refs/taskclean/<id>/..."), and is passed to git, so it must
// be a safe ref-name component that can never be read as an option: 1-64
// characters of [A-Za-z0-9._-], starting with a letter or digit, with no
// "..", not ending in "." or ".lock".
func ValidateRunID(id string) error {
	if id == "" {
		return errors.New(`run id "" is empty`)
	}
	q := quoteID(id)
	if c := id[0]; !isAlnum(c) {
		return fmt.Errorf("run id %s must start with a letter or digit", q)
	}
	for i := 0; i < len(id); {
		c := id[i]
		if isAlnum(c) || c == '.' || c == '_' || c == '-' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(id[i:])
		bad := fmt.Sprintf("%q", string(r))
		if r == utf8.RuneError && size <= 1 {
			bad = fmt.Sprintf("byte %#x", c)
		}
		return fmt.Errorf("run id %s contains %s (allowed: letters, digits, \".\", \"_\", \"-\")", q, bad)
	}
	if len(id) > maxRunID {
		return fmt.Errorf("run id %s is longer than %d characters", q, maxRunID)
	}
	if strings.Contains(id, "..") {
		return fmt.Errorf("run id %s contains \"..\"", q)
	}
	if strings.HasSuffix(id, ".") {
		return fmt.Errorf("run id %s ends with \".\"", q)
	}
	// A run "ab-task-1" would own branches "ab-task-1-..." that read as
	// task 1 of run "ab": run ids never hold the task separator.
	if strings.Contains(strings.ToLower(id), "-task-") || strings.HasSuffix(strings.ToLower(id), "-task") {
		return fmt.Errorf("run id %s contains \"-task\", which separates a run from its task ids", q)
	}
	// git refuses a ref component ending in ".lock"; reject any case so the
	// id also works on case-insensitive file systems.
	if len(id) >= 5 && asciiEqualFold(id[len(id)-5:], ".lock") {
		return fmt.Errorf("run id %s ends with \".lock\"", q)
	}
	return nil
}

// quoteID quotes id for a message. An id longer than any valid one is cut (at
// a character boundary) so that a hostile plan cannot produce a megabyte-long
// error line; %q then keeps the message printable whatever the bytes are.
func quoteID(id string) string {
	if len(id) <= maxRunID {
		return fmt.Sprintf("%q", id)
	}
	cut := maxRunID
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", id[:cut])
}

// ValidTaskID reports whether id is numbers joined by '.' ("2.1", "2.1.3") or
// by '-' ("1-1"), never both in one id, each number at most 9 digits. A
// number with a leading zero ("01", "1.02") is rejected: ids end up in
// branch names, so "01" and "1" would be two tasks that look the same.
func ValidTaskID(id string) bool {
	if id == "" {
		return false
	}
	var sep byte
	start := 0
	for i := 0; i <= len(id); i++ {
		if i < len(id) && isDigit(id[i]) {
			continue
		}
		if i < len(id) {
			c := id[i]
			if c != '.' && c != '-' || sep != 0 && c != sep {
				return false
			}
			sep = c
		}
		comp := id[start:i]
		if comp == "" || len(comp) > 9 || (len(comp) > 1 && comp[0] == '0') {
			return false
		}
		start = i + 1
	}
	return true
}

// CanonicalID is the form two spellings of one task id share: "1-1" and
// "1.1" are the same task, so both become "1.1". An invalid id is returned
// unchanged, so it never equals a valid one.
func CanonicalID(id string) string {
	if !ValidTaskID(id) {
		return id
	}
	return strings.ReplaceAll(id, "-", ".")
}

// SameTaskID reports whether a and b name the same task, whichever separator
// each is written with.
func SameTaskID(a, b string) bool {
	return ValidTaskID(a) && ValidTaskID(b) && CanonicalID(a) == CanonicalID(b)
}

// DashedID turns a task id into its branch-name form: "2.1" -> "2-1"; "1-1"
// stays as it is. Dots are replaced because several dots in a row would not
// be a valid ref name.
func DashedID(id string) string { return strings.ReplaceAll(id, ".", "-") }
