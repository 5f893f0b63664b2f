package clean

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// Backup is one saved clean: everything under refs/taskclean/<run>/<stamp>/.
type Backup struct {
	Stamp string    `json:"stamp"`
	Time  time.Time `json:"time"`
	// Continues are the interrupted cleans this one finished.
	Continues []string     `json:"continues,omitempty"`
	Saves     []*SavedItem `json:"saves"`
}

// SaveKind is what a saved item is: the folder of its ref under
// refs/taskclean/<run>/<stamp>/, and the "kind" of --backups --json.
type SaveKind string

const (
	SavedWorktree SaveKind = "worktree" // files, index and HEAD, stash-shaped
	SavedIgnored  SaveKind = "ignored"  // ignored files within the budget
	SavedRaw      SaveKind = "raw"      // bytes of files git converts
	SavedAdmin    SaveKind = "admin"    // what the admin entry holds
	SavedIndex    SaveKind = "index"    // an unmerged index's conflict stages
	SavedBranch   SaveKind = "branch"   // a deleted branch's tip
	SavedAlias    SaveKind = "alias"    // a deleted symbolic ref: what it pointed to
	SavedReflog   SaveKind = "reflog"   // what only a branch's reflog held
	SavedClaim    SaveKind = "claim"    // a dropped claim
)

// AllSaveKinds lists every SaveKind.
func AllSaveKinds() []SaveKind {
	return []SaveKind{SavedWorktree, SavedIgnored, SavedRaw, SavedAdmin, SavedIndex, SavedBranch, SavedAlias, SavedReflog, SavedClaim}
}

// SavedItem is one saved thing of a backup.
type SavedItem struct {
	Kind   SaveKind `json:"kind"`
	Name   string   `json:"name"`
	Ref    string   `json:"ref"`
	Commit string   `json:"commit"`
	// Path is where a saved worktree was; Task its task.
	Path string `json:"path,omitempty"`
	Task string `json:"task,omitempty"`
	// Work is true for a worktree save that holds uncommitted work (not
	// only its HEAD).
	Work bool `json:"work,omitempty"`
	// Head and Branch are what the saved worktree's HEAD was.
	Head   string `json:"head,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Command restores exactly this save (a saved worktree, with
	// --backups): --restore PATH --from its clean.
	Command string `json:"command,omitempty"`
	// Target is the ref a saved alias (a branch that was a symbolic ref)
	// pointed to, refs/heads/main; Tip the commit it resolved to. The
	// alias's save is a commit of its own (parent: Tip) whose message
	// names both.
	Target string `json:"target,omitempty"`
	Tip    string `json:"tip,omitempty"`
	// Parents of the saved commit (a worktree save's index and untracked
	// files are its second and third).
	Parents []string `json:"-"`
	Tree    string   `json:"-"`
}

// readBackups lists the run's saved cleans, oldest first, once the run id
// is checked (it is part of every ref read). Saves made by every version
// are read: the worktree save has always been a stash-shaped commit whose
// body names its path and head.
func readBackups(ctx context.Context, repo *gitcmd.Repo, run string) ([]*Backup, error) {
	if err := validRun(run); err != nil {
		return nil, err
	}
	saved, err := repo.SavedRefs(ctx, BackupRoot+run+"/")
	if err != nil {
		return nil, err
	}
	byStamp := map[string]*Backup{}
	var out []*Backup
	for _, r := range saved {
		rest := strings.TrimPrefix(r.Name, BackupRoot+run+"/")
		stamp, rest, ok := strings.Cut(rest, "/")
		t, isStamp := parseStamp(stamp)
		if !ok || !isStamp {
			continue
		}
		b := byStamp[stamp]
		if b == nil {
			b = &Backup{Stamp: stamp, Time: t, Saves: []*SavedItem{}}
			byStamp[stamp] = b
			out = append(out, b)
		}
		kind, name, _ := strings.Cut(rest, "/")
		if kind == "continues" {
			b.Continues = append(b.Continues, name)
			continue
		}
		it := &SavedItem{Kind: SaveKind(kind), Name: name, Ref: r.Name, Commit: r.OID, Parents: r.Parents, Tree: r.Tree}
		if SaveKind(kind) == SavedWorktree {
			it.Path = bodyField(r.Body, "path")
			if p, err := strconv.Unquote(it.Path); err == nil {
				it.Path = p
			}
			it.Head = bodyField(r.Body, "head")
			it.Branch = strings.TrimPrefix(bodyField(r.Body, "branch"), "refs/heads/")
			it.Task = bodyField(r.Body, "task")
			it.Work = resume.SaveHoldsWork(it.Head, len(r.Parents))
		}
		switch SaveKind(kind) {
		case SavedBranch:
			it.Branch = name
		case SavedAlias:
			it.Branch = name
			it.Target = bodyField(r.Body, aliasTargetField)
			if len(r.Parents) == 1 && bodyField(r.Body, aliasTipField) == r.Parents[0] {
				it.Tip = r.Parents[0]
			}
		}
		b.Saves = append(b.Saves, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stamp < out[j].Stamp })
	return out, nil
}

// Backups lists the run's saved cleans.
func Backups(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	// A listing is allowed to any version, but a required version that
	// does not parse is refused by every command alike.
	if _, err := configGate(ctx, repo); err != nil {
		return nil, err
	}
	bs, err := readBackups(ctx, repo, opts.Run)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		for _, it := range b.Saves {
			if it.Kind == SavedWorktree {
				// By path and stamp: exactly this save, whatever other
				// clean saved the same path or task (saveFrom).
				it.Command = restoreFromCmd(opts.Run, it.Path, b.Stamp)
			}
		}
	}
	return &Result{RunID: opts.Run, Actions: []*Action{}, Backups: bs}, nil
}

func bodyField(body, key string) string { return resume.SaveField(body, key) }

func validRun(run string) error {
	_, err := resume.ValidRun(run)
	return err
}
