package planfind

import (
	"slices"
	"testing"
)

// A near id is as long as the run's with one character different, named
// by a directory that is the id or starts with "<id>-"; directories of the
// run itself, of ids two characters away or of another length are not.
func TestNearIDs(t *testing.T) {
	dirs := []string{"93a61e-worktree-isolation", "91a61e-own", "91a61f", "92a62e-two-apart",
		"91a61-short", "91a61ee-long", "91a61d_underscore", "x1a61e-a", "x1a61e-b", "readme"}
	got := NearIDs("91a61e", dirs)
	if want := []string{"91a61f", "93a61e", "x1a61e"}; !slices.Equal(got, want) {
		t.Errorf("NearIDs = %q, want %q", got, want)
	}
	if got := NearIDs("r1", []string{"r2", "r2-x", "r", "r12"}); !slices.Equal(got, []string{"r2"}) {
		t.Errorf("NearIDs(r1) = %q, want [r2]", got)
	}
}
