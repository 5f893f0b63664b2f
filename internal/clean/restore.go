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
// newest of its most complete saves (work over HEAD only). It recreates the
// worktree at its path, on its branch when that branch exists, points where
// the save's HEAD did and is checked out nowhere else (else detached at the
// saved HEAD; an unborn branch stays unborn), then puts back its index, its
// working files, its untracked files and its saved ignored files.
func Restore(ctx context.Context, repo *gitcmd.Repo, opts Options) (*Result, error) {
	all, err := readBackups(ctx, repo, opts.Run)
	if err != nil {
		return nil, err
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
		return it.Kind == "worktree" && (sameTask || filepath.Clean(it.Path) == abs ||
			it.Task == "" && filepath.Base(it.Path) == resume.WorktreeName(opts.Run, want))
	}
	pick, pickStamp := newestSave(all, matches)
	if pick == nil {
		return nil, exit.BadInput("--restore %s: no saved worktree of run %s has that task or path (list them with: git taskclean --run %s --backups)", want, opts.Run, opts.Run)
	}
	path := pick.Path
	if _, err := os.Lstat(path); err == nil {
		return nil, exit.BadInput("--restore %s: %s exists; move it away first (nothing was changed)", want, path)
	}
	res := &Result{RunID: opts.Run, DryRun: opts.DryRun, Actions: []*Action{}, Stamp: pickStamp.Stamp,
		Backup: BackupRoot + opts.Run + "/" + pickStamp.Stamp + "/"}
	a := &Action{Op: OpRestoreWorktree, Path: path, Task: pick.Task, Ref: pick.Ref, Commit: pick.Commit}
	res.Actions = append(res.Actions, a)
	var ignored, raw *SavedItem
	for _, it := range pickStamp.Saves {
		switch {
		case it.Kind == "ignored" && it.Name == pick.Name:
			ignored = it
		case it.Kind == "raw" && it.Name == pick.Name:
			raw = it
		}
	}
	if opts.DryRun {
		return res, nil
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

	// The saved commit: HEAD-only (parent: HEAD) or stash-shaped (parents:
	// HEAD when born, the index commit, the untracked files' commit).
	head := pick.Head
	parents := pick.Parents
	if head != "" && len(parents) > 0 {
		parents = parents[1:]
	}
	indexCommit, untracked := "", ""
	if pick.Work && len(parents) > 0 {
		indexCommit = parents[0]
		if len(parents) > 1 {
			untracked = parents[1]
		}
	}
	start := head
	if start == "" {
		start = indexCommit
	}
	if start == "" {
		// An unborn HEAD with an empty index: the worktree starts from any
		// commit, and HEAD is then made the unborn branch again.
		start = pick.Commit
	}
	w := repo.Runner
	w.Write = true
	if _, err := w.Run(ctx, "worktree", "add", "--no-checkout", "--detach", path, start); err != nil {
		return nil, fmt.Errorf("restore %s: %w", path, err)
	}
	fail := func(err error) (*Result, error) {
		a.Reason = "partly restored: " + gitcmd.OneLine(err)
		return nil, &PartialError{Result: res, Err: fmt.Errorf("restore %s: %w", path, err)}
	}
	in := gitcmd.Runner{Dir: path, Worktree: true, Write: true}
	tmp, err := os.MkdirTemp(repo.CommonDir, tmpPrefix(opts.Run))
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	// Working files: the saved working tree, then the untracked and the
	// ignored files, each written through an index of its own.
	trees := []string{pick.Commit + "^{tree}"}
	if untracked != "" {
		trees = append(trees, untracked+"^{tree}")
	}
	if ignored != nil {
		trees = append(trees, ignored.Commit+"^{tree}")
	}
	for i, tree := range trees {
		env := []string{fmt.Sprintf("GIT_INDEX_FILE=%s/restore-%d", tmp, i)}
		if _, err := in.RunEnv(ctx, env, nil, "read-tree", tree); err != nil {
			return fail(err)
		}
		if _, err := in.RunEnv(ctx, env, nil, "checkout-index", "--all", "--force", "--quiet"); err != nil {
			return fail(err)
		}
	}
	// Files git stores converted come back as they were on disk, byte for
	// byte, written here rather than by git (which would convert them).
	if raw != nil {
		if err := writeRaw(ctx, repo, raw.Commit, path); err != nil {
			return fail(err)
		}
	}
	// The index as it was.
	indexTree := start + "^{tree}"
	if indexCommit != "" {
		indexTree = indexCommit + "^{tree}"
	}
	if _, err := in.Run(ctx, "read-tree", indexTree); err != nil {
		return fail(err)
	}
	// HEAD on its branch, when that is where it was and still can be.
	a.Reason = "detached at " + ui.Short(head)
	if pick.Branch != "" {
		ref := "refs/heads/" + pick.Branch
		cur, _ := repo.Refs(ctx, ref)
		tip := ""
		for _, r := range cur {
			if r.Name == ref {
				tip = r.OID
			}
		}
		elsewhere := ""
		if wts, err := worktree.List(ctx, repo); err == nil {
			admins := worktree.AdminDirs(repo.CommonDir)
			for _, o := range wts {
				if filepath.Clean(o.Path) == filepath.Clean(path) || o.Bare {
					continue
				}
				if o.Branch == ref {
					elsewhere = o.Path
				}
				// A branch an operation there will write (a rebase, a
				// bisect) is as taken as one checked out.
				admin := admins[filepath.Clean(o.Path)]
				if o.Main {
					admin = repo.CommonDir
				}
				if admin == "" {
					continue
				}
				held := heldBranches(admin)
				if op, br := worktree.InProgress(admin); op != "" {
					held = append(held, Operation{Op: op, Branch: br})
				}
				for _, h := range held {
					if h.Branch == pick.Branch {
						elsewhere = o.Path + " (a " + h.Op + " of it is in progress there)"
					}
				}
			}
		}
		switch {
		case elsewhere != "":
			a.Reason += "; branch " + pick.Branch + " is checked out in " + elsewhere
		case head == "" && tip == "" || head != "" && tip == head:
			if _, err := in.Run(ctx, "symbolic-ref", "HEAD", ref); err != nil {
				return fail(err)
			}
			a.Reason = "on branch " + pick.Branch
			if head == "" {
				a.Reason = "on unborn branch " + pick.Branch
			}
		case tip == "":
			a.Reason += "; branch " + pick.Branch + " no longer exists (git switch -c " + ui.ShellQuote(pick.Branch) + " to make it again)"
		default:
			a.Reason += "; branch " + pick.Branch + " has moved to " + ui.Short(tip)
		}
	}
	// Fresh stat data, so that status does not see every file as touched.
	in.Run(ctx, "update-index", "-q", "--refresh")
	a.Done = true
	for _, it := range pickStamp.Saves {
		if it.Kind == "admin" && it.Name == pick.Name {
			res.Actions = append(res.Actions, &Action{Op: OpSaveAdmin, Path: path, Ref: it.Ref, Commit: it.Commit,
				Reason: "its admin entry's state (stopped operation, per-worktree refs, reflog commits) stays saved in " + it.Ref + "; see its tree with git ls-tree -r " + it.Ref})
		}
	}
	return res, nil
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
