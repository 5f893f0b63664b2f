package planfind

import "testing"

func TestRunOfDir(t *testing.T) {
	for dir, want := range map[string]string{
		"a1b2c3-user-auth": "a1b2c3", // the orchestrators' form
		"A1B2C3-x":         "A1B2C3",
		"a1b2c3":           "a1b2c3",
		"a1b2c-user":       "a1b2c-user", // five digits: not an id field
		"a1b2c3d-user":     "a1b2c3d-user",
		"g1b2c3-user":      "g1b2c3-user", // not hexadecimal
		"nightly":          "nightly",
		"nightly-2":        "nightly-2",
	} {
		if got := RunOfDir(dir); got != want {
			t.Errorf("RunOfDir(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestDirAgrees(t *testing.T) {
	for _, c := range []struct {
		dir, id string
		want    bool
	}{
		{"a1b2c3-user-auth", "a1b2c3", true},
		{"a1b2c3", "a1b2c3", true},
		{"a1b2c3x", "a1b2c3", false},
		{"b1b2c3-user-auth", "a1b2c3", false},
		{"feature-2", "feature", true}, // agrees: the plan's own id then decides whose it is
	} {
		if got := DirAgrees(c.dir, c.id); got != c.want {
			t.Errorf("DirAgrees(%q, %q) = %v", c.dir, c.id, got)
		}
	}
}

func TestPhaseFile(t *testing.T) {
	for name, want := range map[string]int{"plan-phase1.md": 1, "plan-phase10.md": 10, "plan-phase02.md": 2} {
		if n, ok := phaseFile(name); !ok || n != want {
			t.Errorf("phaseFile(%q) = %d %v, want %d", name, n, ok, want)
		}
	}
	for _, name := range []string{"plan-phase.md", "plan-phase1.txt", "plan-phase-1.md", "plan-phasex.md", "phase1.md", "plan-phase+1.md"} {
		if _, ok := phaseFile(name); ok {
			t.Errorf("phaseFile(%q) accepted", name)
		}
	}
}
