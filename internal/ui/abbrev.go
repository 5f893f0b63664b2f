package ui

import (
	"fmt"
	"strings"
)

// Short abbreviates a commit id for people.
func Short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// FirstFew names the first three of items and counts the rest, for
// one-line messages.
func FirstFew(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}
