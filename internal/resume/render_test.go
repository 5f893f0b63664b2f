package resume

import (
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/ui"
)

// Each vocabulary the human report colours is coloured by its own switch;
// without colour the value is written as the JSON has it.
func TestStatusColours(t *testing.T) {
	on, off := ui.Style{Color: true}, ui.Style{}
	for _, c := range []struct {
		paint   func(ui.Style) string
		text    string
		colored bool
	}{
		{TaskCompleted.paint, "completed", true},
		{TaskLanded.paint, "landed", true},
		{TaskInterrupted.paint, "interrupted", true},
		{TaskPending.paint, "pending", false},
		{RunCompleted.paint, "completed", true},
		{RunNotStarted.paint, "not_started", false},
		{PhaseOutOfScope.paint, "out_of_scope", true},
		{PhaseNotStarted.paint, "not_started", false},
	} {
		if got := c.paint(off); got != c.text {
			t.Errorf("plain %q = %q", c.text, got)
		}
		if got := c.paint(on); strings.Contains(got, "\x1b[") != c.colored || !strings.Contains(got, c.text) {
			t.Errorf("coloured %q = %q, want colour %v", c.text, got, c.colored)
		}
	}
}
