package taskresume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// claim takes, renews or releases a task claim.
func claim(ctx context.Context, o Options, st *resume.State, stdout, stderr io.Writer) error {
	repo := st.Repo
	rep := st.Report
	req := claims.Request{Run: rep.RunID, Remote: st.Remote, ReadFrom: st.ReadFrom, Holder: o.As,
		TTL: o.TTL, Now: time.Now(), Held: st.Claims, Named: o.As != "",
		Warn: func(msg string) { fmt.Fprintln(stderr, "warning: "+msg) }}
	if req.Holder == "" {
		req.Holder = claims.DefaultHolder()
	}
	if o.Mode == ModeRenew || o.Mode == ModeRelease {
		if st.Plan == nil {
			return exit.BadInput("%s: %s", o.Mode, st.NoPlan())
		}
		t := st.Plan.Task(o.Task)
		if t == nil {
			return exit.BadInput("%s %s: no such task in the plan of run %s", o.Mode, o.Task, rep.RunID)
		}
		// Either separator: the claim is kept under the plan's spelling.
		if o.Mode == ModeRenew {
			return claims.Renew(ctx, repo, req, t.ID)
		}
		return claims.Release(ctx, repo, req, t.ID)
	}
	if st.Plan == nil {
		return &exit.BadInputError{Msg: "--claim needs the run's plan to know what is runnable"}
	}
	if rep.Resume != nil {
		req.Runnable = rep.Resume.Tasks
	}
	// Each claim checks, in its own transaction, that what its task
	// waits for is still done as read.
	req.Verify = st.DoneBy
	req.NotDone = map[string]bool{}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			if t.Status != resume.TaskCompleted && t.Status != resume.TaskLanded {
				req.NotDone[claims.Key(t.ID)] = true
			}
		}
	}
	got, again, err := claims.Take(ctx, repo, req)
	if errors.Is(err, claims.ErrChanged) {
		// Not "none is free": the reading is stale, a new one may offer
		// other tasks (the dependency's, run again).
		fmt.Fprintf(stderr, "%s: nothing claimed; read run %s again (git taskresume %s --claim)\n", err, rep.RunID, rep.RunID)
		return &exit.SilentError{Code: exit.Incomplete}
	}
	if errors.Is(err, claims.ErrNoneFree) {
		if rep.Status == resume.RunCompleted {
			fmt.Fprintf(stderr, "run %s is complete: no task is left to claim\n", rep.RunID)
		} else {
			fmt.Fprintf(stderr, "no runnable task of run %s is free%s\n", rep.RunID, waiting(rep))
		}
		return &exit.SilentError{Code: exit.Incomplete}
	}
	if err != nil {
		return err
	}
	// The claim is the task's (its dotted id); the task is named as the
	// plan spells it, as --next names it.
	id := st.PlanID(got.Task)
	if again {
		fmt.Fprintf(stderr, "warning: %s already holds task %s (since %s): one name is one holder; give each resumer its own --as\n",
			req.Holder, id, ui.When(got.Since))
	}
	if !o.JSON {
		fmt.Fprintln(stdout, id)
		return nil
	}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			if t.ID == id {
				t.Claim = got
				return writeJSON(stdout, t)
			}
		}
	}
	return nil
}

// waiting says which tasks that could otherwise start wait for which
// ("" when none does): why a run that is not complete has nothing to hand
// out. At most three are named; the report has them all.
func waiting(rep *resume.Report) string {
	var ws []string
	n := 0
	for _, ph := range rep.Phases {
		if rs := rep.Resume; rs == nil || rs.Schedule != resume.ScheduleDeps && ph.Number != rs.Phase {
			continue // under phases, a later phase's tasks wait for their phase anyway
		}
		for _, t := range ph.Tasks {
			if len(t.WaitsFor) == 0 {
				continue
			}
			if n++; n <= 3 {
				ws = append(ws, t.ID+" waits for "+strings.Join(t.WaitsFor, ", "))
			}
		}
	}
	if n > 3 {
		ws = append(ws, fmt.Sprintf("%d more", n-3))
	}
	if len(ws) == 0 {
		return ""
	}
	return " (" + strings.Join(ws, "; ") + ")"
}
