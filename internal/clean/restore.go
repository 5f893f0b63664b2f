package clean

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Restore brings a saved worktree back, given its task id or its path: the
// newest of its most complete saves (work over HEAD only), or the one clean
// opts.From made. It recreates the worktree at its path, on its branch when
// that branch exists, points where the save's HEAD did and is checked out
// nowhere else (else detached at the saved HEAD; an unborn branch stays
// unborn), then puts back its index, its working files, its untracked files
// and its saved ignored files.
func Restore(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	pick, pickStamp, err := chooseSave(ctx, repo, opts)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(ctx, repo, opts); err != nil {
		return nil, err
	}
	r := newRestorer(repo, opts, pick, pickStamp)
	if opts.DryRun {
		return r.res, nil
	}
	lock, err := Acquire(repo.CommonDir, opts.Run)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	// What an interrupted clean left is finished first: its saves are what
	// this reads (and must not drop while a folder of it awaits deletion).
	if _, err := recoverLeftovers(ctx, repo, opts.Run, lock); err != nil {
		return nil, err
	}
	if err := r.addWorktree(ctx); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(repo.CommonDir, tmpPrefix(opts.Run))
	if err != nil {
		return r.fail(err)
	}
	defer os.RemoveAll(tmp)
	if err := r.restoreState(ctx, tmp); err != nil {
		return r.fail(err)
	}
	// Fresh stat data, so that status does not see every file as touched.
	r.in.Run(ctx, "update-index", "-q", "--refresh")
	r.a.Done = true
	r.reportAdmin()
	return r.res, nil
}

// chooseSave finds the save --restore names (a task id or a path) among
// the run's saves: the newest of the most complete ones, or with --from
// the one that clean made (saveFrom). It refuses, before anything changes,
// when there is none or something is at its path.
func chooseSave(ctx context.Context, repo *gitcmd.Repo, opts Options) (*SavedItem, *Backup, error) {
	all, err := readBackups(ctx, repo, opts.Run)
	if err != nil {
		return nil, nil, err
	}
	want := opts.Restore
	abs := want
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(opts.Cwd, want)
	}
	abs = filepath.Clean(abs)
	matches := func(it *SavedItem) bool {
		// Either separator names a task: "1.1" is the save of task "1-1".
		sameTask := it.Task != "" && (it.Task == want || plan.SameTaskID(it.Task, want))
		return it.Kind == SavedWorktree && (sameTask || filepath.Clean(it.Path) == abs ||
			it.Task == "" && filepath.Base(it.Path) == resume.WorktreeName(opts.Run, want))
	}
	if opts.From != "" {
		pick, pickStamp := saveFrom(all, opts.From, matches)
		if pick == nil {
			return nil, nil, fromError(all, opts)
		}
		return pick, pickStamp, freePath(want, pick)
	}
	pick, pickStamp := newestSave(all, matches)
	if pick == nil {
		return nil, nil, exit.BadInput("--restore %s: no saved worktree of run %s has that task or path (list them with: git taskclean --run %s --backups)", want, opts.Run, opts.Run)
	}
	return pick, pickStamp, freePath(want, pick)
}

// freePath refuses a restore whose path is taken: nothing is written over.
func freePath(want string, pick *SavedItem) error {
	if _, err := os.Lstat(pick.Path); err == nil {
		return exit.BadInput("--restore %s: %s exists; move it away first (nothing was changed)", want, pick.Path)
	}
	return nil
}

// restorer carries one restore through its steps: the save chosen, the
// result and action it reports, and the parts of the save the steps put
// back. A type of its own so that each step reads what the save holds.
type restorer struct {
	repo *gitcmd.Repo
	pick *SavedItem
	// stamp is the clean the save belongs to (its other saves of the
	// worktree: ignored files, raw bytes, admin entry).
	stamp *Backup
	path  string
	res   *Result
	a     *Action
	// ignored and raw are the save's ignored files and raw bytes (nil when
	// there are none).
	ignored, raw *SavedItem
	// head is the saved HEAD ("" unborn); indexCommit and untracked the
	// stash-shaped commit's other parents ("" when it has none); start the
	// commit the worktree is added at.
	head, indexCommit, untracked, start string
	// in runs git in the restored worktree.
	in gitcmd.Runner
}

// newRestorer sets up the result and the action of restoring pick, and
// finds the other saves of its worktree in its clean.
func newRestorer(repo *gitcmd.Repo, opts Options, pick *SavedItem, pickStamp *Backup) *restorer {
	r := &restorer{repo: repo, pick: pick, stamp: pickStamp, path: pick.Path,
		in: gitcmd.Runner{Dir: pick.Path, Worktree: true, Write: true}}
	r.res = &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}, Stamp: pickStamp.Stamp,
		Backup: BackupRoot + opts.Run + "/" + pickStamp.Stamp + "/"}
	r.a = &Action{Op: OpRestoreWorktree, Path: r.path, Task: pick.Task, Ref: pick.Ref, Commit: pick.Commit}
	r.res.Actions = append(r.res.Actions, r.a)
	for _, it := range pickStamp.Saves {
		switch {
		case it.Kind == SavedIgnored && it.Name == pick.Name:
			r.ignored = it
		case it.Kind == SavedRaw && it.Name == pick.Name:
			r.raw = it
		}
	}
	r.readCommit()
	return r
}

// readCommit reads what the saved commit is made of: HEAD-only (parent:
// HEAD) or stash-shaped (parents: HEAD when born, the index commit, the
// untracked files' commit), and the commit the worktree is added at.
func (r *restorer) readCommit() {
	r.head = r.pick.Head
	parents := r.pick.Parents
	if r.head != "" && len(parents) > 0 {
		parents = parents[1:]
	}
	if r.pick.Work && len(parents) > 0 {
		r.indexCommit = parents[0]
		if len(parents) > 1 {
			r.untracked = parents[1]
		}
	}
	r.start = r.head
	if r.start == "" {
		r.start = r.indexCommit
	}
	if r.start == "" {
		// An unborn HEAD with an empty index: the worktree starts from any
		// commit, and HEAD is then made the unborn branch again.
		r.start = r.pick.Commit
	}
}

// addWorktree recreates the worktree at its path, detached at the start
// commit with nothing checked out (the later steps write its files). A
// failure here leaves nothing to report as partly restored.
func (r *restorer) addWorktree(ctx context.Context) error {
	w := r.repo.Runner
	w.Write = true
	if _, err := w.Run(ctx, "worktree", "add", "--no-checkout", "--detach", r.path, r.start); err != nil {
		return fmt.Errorf("restore %s: %w", r.path, err)
	}
	return nil
}

// fail is a restore that stopped after the worktree was added: the result
// says what is there, the action that it is partly restored.
func (r *restorer) fail(err error) (*Result, error) {
	r.a.Reason = "partly restored: " + gitcmd.OneLine(err)
	return nil, &PartialError{Result: r.res, Err: fmt.Errorf("restore %s: %w", r.path, err)}
}

// restoreState puts the saved state into the added worktree: its working files
// (through index files in tmp), the raw bytes of the files git converts,
// the index as it was (a conflict's stages included), and HEAD on its
// branch when it can be.
func (r *restorer) restoreState(ctx context.Context, tmp string) error {
	if err := r.writeFiles(ctx, tmp); err != nil {
		return err
	}
	// Files git stores converted come back as they were on disk, byte for
	// byte, written here rather than by git (which would convert them).
	if r.raw != nil {
		if err := writeRaw(ctx, r.repo, r.raw.Commit, r.path); err != nil {
			return err
		}
	}
	// The index as it was.
	indexTree := r.start + "^{tree}"
	if r.indexCommit != "" {
		indexTree = r.indexCommit + "^{tree}"
	}
	if _, err := r.in.Run(ctx, "read-tree", indexTree); err != nil {
		return err
	}
	if err := r.restoreStages(ctx); err != nil {
		return err
	}
	return r.setHead(ctx)
}

// restoreStages puts back the conflict stages of the index's unmerged
// paths, from the worktree's index/ save of the same clean (saves made
// before that kind existed, or of an index without a conflict, have none:
// nothing to do). The save's tree holds each stage at <stage>/<path>; a
// path's stage-0 entry, should the index hold one, is dropped first, as
// update-index --index-info asks.
func (r *restorer) restoreStages(ctx context.Context) error {
	var stages *SavedItem
	for _, it := range r.stamp.Saves {
		if it.Kind == SavedIndex && it.Name == r.pick.Name {
			stages = it
		}
	}
	if stages == nil {
		return nil
	}
	out, err := r.repo.Run(ctx, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", stages.Commit)
	if err != nil {
		return err
	}
	var drop, add strings.Builder
	dropped := map[string]bool{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		stage, path, ok := strings.Cut(p, "/")
		if !ok || stage != "1" && stage != "2" && stage != "3" {
			return fmt.Errorf("%s: %q is no conflict stage", stages.Ref, p)
		}
		if !dropped[path] {
			dropped[path] = true
			fmt.Fprintf(&drop, "0 %s\t%s\x00", strings.Repeat("0", len(f[2])), path)
		}
		fmt.Fprintf(&add, "%s %s %s\t%s\x00", f[0], f[2], stage, path)
	}
	if add.Len() == 0 {
		return nil
	}
	_, err = r.in.RunInput(ctx, []byte(drop.String()+add.String()), "update-index", "-z", "--index-info")
	return err
}

// writeFiles writes the working files: the saved working tree, then the
// untracked and the ignored files, each written through an index of its
// own in tmp (the worktree's index is put back afterwards).
func (r *restorer) writeFiles(ctx context.Context, tmp string) error {
	trees := []string{r.pick.Commit + "^{tree}"}
	if r.untracked != "" {
		trees = append(trees, r.untracked+"^{tree}")
	}
	if r.ignored != nil {
		trees = append(trees, r.ignored.Commit+"^{tree}")
	}
	for i, tree := range trees {
		env := []string{fmt.Sprintf("GIT_INDEX_FILE=%s/restore-%d", tmp, i)}
		if _, err := r.in.RunEnv(ctx, env, nil, "read-tree", tree); err != nil {
			return err
		}
		if _, err := r.in.RunEnv(ctx, env, nil, "checkout-index", "--all", "--force", "--quiet"); err != nil {
			return err
		}
	}
	return nil
}

// setHead puts HEAD on its branch, when that is where it was and still can
// be: the branch points where the saved HEAD did (or is unborn, as it was)
// and is checked out or being worked on nowhere else. Otherwise HEAD stays
// detached and the action says why.
func (r *restorer) setHead(ctx context.Context) error {
	pick, head := r.pick, r.head
	r.a.Reason = "detached at " + ui.Short(head)
	if pick.Branch == "" {
		return nil
	}
	ref := "refs/heads/" + pick.Branch
	cur, _ := r.repo.Refs(ctx, ref)
	tip, alias := "", ""
	for _, c := range cur {
		if c.Name == ref {
			tip, alias = c.OID, c.Symref
		}
	}
	if alias == "" {
		// A symbolic ref to nothing is no ref to for-each-ref.
		alias = worktree.SymrefTarget(r.repo.CommonDir, ref)
	}
	elsewhere := r.branchElsewhere(ctx, ref)
	switch {
	case alias != "":
		// HEAD on the alias would commit to what it points to, a branch
		// the checks below never saw (and maybe checked out elsewhere).
		r.a.Reason += "; " + pick.Branch + " is now a symbolic ref to " + alias + " (git switch " + ui.ShellQuote(strings.TrimPrefix(alias, "refs/heads/")) + " if that is where the work goes)"
	case elsewhere != "":
		r.a.Reason += "; branch " + pick.Branch + " is checked out in " + elsewhere
	case head == "" && tip == "" || head != "" && tip == head:
		if _, err := r.in.Run(ctx, "symbolic-ref", "HEAD", ref); err != nil {
			return err
		}
		r.a.Reason = "on branch " + pick.Branch
		if head == "" {
			r.a.Reason = "on unborn branch " + pick.Branch
		}
	case tip == "":
		r.a.Reason += "; branch " + pick.Branch + " no longer exists (git switch -c " + ui.ShellQuote(pick.Branch) + " to make it again)"
	default:
		r.a.Reason += "; branch " + pick.Branch + " has moved to " + ui.Short(tip)
	}
	return nil
}

// branchElsewhere says where else the saved branch (ref) is taken: the
// last other worktree that has it checked out, or in which an operation
// (a rebase, a bisect) will write it, which is as taken as one checked
// out; "" when none (or the worktrees cannot be listed).
func (r *restorer) branchElsewhere(ctx context.Context, ref string) string {
	elsewhere := ""
	wts, err := worktree.List(ctx, r.repo)
	if err != nil {
		return ""
	}
	admins := worktree.AdminDirs(r.repo.CommonDir)
	for _, o := range wts {
		if filepath.Clean(o.Path) == filepath.Clean(r.path) || o.Bare {
			continue
		}
		if o.Branch == ref {
			elsewhere = o.Path
		}
		admin := admins[filepath.Clean(o.Path)]
		if o.Main {
			admin = r.repo.CommonDir
		}
		if admin == "" {
			continue
		}
		held := heldBranches(admin)
		if op, br := worktree.InProgress(admin); op != "" {
			held = append(held, Operation{Op: op, Branch: br})
		}
		for _, h := range held {
			if h.Branch == r.pick.Branch {
				elsewhere = o.Path + " (a " + h.Op + " of it is in progress there)"
			}
		}
	}
	return elsewhere
}

// reportAdmin adds, after a restore, where the worktree's admin entry's
// state stays saved: the restore does not put it back.
func (r *restorer) reportAdmin() {
	for _, it := range r.stamp.Saves {
		if it.Kind == SavedAdmin && it.Name == r.pick.Name {
			r.res.Actions = append(r.res.Actions, &Action{Op: OpSaveAdmin, Path: r.path, Ref: it.Ref, Commit: it.Commit,
				Reason: "its admin entry's state (stopped operation, per-worktree refs, reflog commits) stays saved in " + it.Ref + "; see its tree with git ls-tree -r " + it.Ref})
		}
	}
}

// newestSave picks the save to restore among those matches accepts: the
// newest; when that one holds only HEAD and the clean it belongs to
// finished an interrupted one that saved the work, the save with the work.
func newestSave(all []*Backup, matches func(*SavedItem) bool) (*SavedItem, *Backup) {
	byStamp := map[string]*Backup{}
	for _, b := range all {
		byStamp[b.Stamp] = b
	}
	find := func(b *Backup) *SavedItem {
		for _, it := range b.Saves {
			if matches(it) {
				return it
			}
		}
		return nil
	}
	for i := len(all) - 1; i >= 0; i-- {
		it := find(all[i])
		if it == nil {
			continue
		}
		if !it.Work {
			seen := map[string]bool{}
			for next := all[i].Continues; len(next) > 0; {
				s := next[0]
				next = next[1:]
				b := byStamp[s]
				if b == nil || seen[s] {
					continue
				}
				seen[s] = true
				if older := find(b); older != nil && older.Work {
					return older, b
				}
				next = append(next, b.Continues...)
			}
		}
		return it, all[i]
	}
	return nil, nil
}

// writeRaw writes every file of commit's tree under dir, as the bytes the
// tree holds, with their executable bit.
func writeRaw(ctx context.Context, repo *gitcmd.Repo, commit, dir string) error {
	out, err := repo.Run(ctx, "ls-tree", "-r", "-z", "--end-of-options", commit)
	if err != nil {
		return err
	}
	type file struct{ mode, oid, path string }
	var files []file
	var in strings.Builder
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		files = append(files, file{f[0], f[2], p})
		in.WriteString(f[2] + "\n")
	}
	if len(files) == 0 {
		return nil
	}
	data, err := repo.RunInput(ctx, []byte(in.String()), "cat-file", "--batch")
	if err != nil {
		return err
	}
	for _, f := range files {
		// Each object: "<oid> blob <size>\n<content>\n".
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return fmt.Errorf("cat-file: short output")
		}
		hdr := strings.Fields(string(data[:nl]))
		if len(hdr) != 3 {
			return fmt.Errorf("cat-file: %q", data[:nl])
		}
		size, err := strconv.Atoi(hdr[2])
		if err != nil || nl+1+size > len(data) {
			return fmt.Errorf("cat-file: bad size in %q", data[:nl])
		}
		content := data[nl+1 : nl+1+size]
		data = data[nl+1+size+1:]
		perm := os.FileMode(0o644)
		if f.mode == "100755" {
			perm = 0o755
		}
		if err := writeInside(dir, f.path, content, perm); err != nil {
			return err
		}
	}
	return nil
}

// writeInside writes a file at rel under dir without following any
// symbolic link on the way: a link where a directory is expected (which
// could lead out of the worktree) is an error, and a link or file at rel
// itself is replaced, never written through.
func writeInside(dir, rel string, content []byte, perm os.FileMode) error {
	parts := strings.Split(rel, "/")
	cur := dir
	for _, part := range parts[:len(parts)-1] {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("refusing to write %s: not a plain path", rel)
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case os.IsNotExist(err):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("refusing to write %s: %s is not a directory (a symbolic link is never followed)", rel, cur)
		}
	}
	target := filepath.Join(cur, parts[len(parts)-1])
	if fi, err := os.Lstat(target); err == nil && !fi.IsDir() {
		if err := os.Remove(target); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(target, perm)
}
