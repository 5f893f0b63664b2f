package resume

import (
	"context"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// PrefetchPlans reads at once, for a list of runs, what each run's report
// first asks of the object reader one question at a time: the specs/
// folders of the runs' <run>-main and of the default branches, the run's
// folders and plans there (planfind), and the commit of <run>-main and
// its parent's copy of the plan (where the run started, findRunStart).
// A list of thousands of runs then pays one pipelined batch for them, not
// a round trip each. Only a warm-up: whatever a report asks that this did
// not read is read as before.
func PrefetchPlans(ctx context.Context, repo *gitcmd.Repo, shared *gitcmd.Shared, runs []string) error {
	refs, err := repo.Refs(ctx)
	if err != nil {
		return err
	}
	want := make(map[string]bool, len(runs))
	for _, r := range runs {
		want[r] = true
	}
	// The commits whose specs/ a run's plan is looked for in: each run's
	// <run>-main (local or a remote's), and the default branches, which
	// every run looks at.
	baseRun := map[string]string{} // commit -> run, for <run>-main
	var common []string
	for _, r := range refs {
		if r.Type != "commit" {
			continue
		}
		name, local := strings.CutPrefix(r.Name, "refs/heads/")
		if !local {
			if !strings.HasPrefix(r.Name, "refs/remotes/") {
				continue
			}
			// refs/remotes/<remote>/<branch>: the last component.
			name = r.Name[strings.LastIndexByte(r.Name, '/')+1:]
		}
		if run, ok := strings.CutSuffix(name, "-main"); ok && want[run] {
			baseRun[r.OID] = run
		} else if name == "main" || name == "master" {
			common = append(common, r.OID)
		}
	}
	var names []string
	for c := range baseRun {
		names = append(names, c, c+":specs")
	}
	for _, c := range common {
		names = append(names, c+":specs")
	}
	objs, err := shared.Prefetch(names)
	if err != nil {
		return err
	}
	// The runs' folders in each specs/ read, their plans, and the plan
	// of the parent of <run>-main.
	var more []string
	for k, obj := range objs {
		name := names[k]
		switch {
		case obj.Type == "commit":
			if c, ok := gitcmd.ParseCommit(obj); ok && len(c.Parents) > 0 {
				run := baseRun[name]
				more = append(more, c.Parents[0]+":specs/"+run, c.Parents[0]+":specs/"+run+"/plan.md")
			}
		case obj.Type == "tree":
			commit, _, _ := strings.Cut(name, ":")
			ents, err := gitcmd.ParseTree(obj.Data, len(obj.OID)/2)
			if err != nil {
				continue
			}
			own, isBase := baseRun[commit]
			for _, e := range ents {
				run := e.Name
				if len(run) > 6 && run[6] == '-' {
					run = run[:6]
				}
				if !e.IsDir() || !want[run] || isBase && run != own {
					continue
				}
				dir := commit + ":specs/" + e.Name
				more = append(more, dir, dir+"/plan.md", dir+"/plan")
			}
		}
	}
	_, err = shared.Prefetch(more)
	return err
}
