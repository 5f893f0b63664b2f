package worktree

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Regenerated names the directories that tools rebuild from sources or a
// lock file (dependencies, build output, caches). Ignored trees of these
// names are deleted without saving, and named in the report; they can be
// huge and hold nothing an agent wrote by hand.
var Regenerated = map[string]bool{
	"node_modules": true, "target": true, ".venv": true, "venv": true,
	"__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true,
	".tox": true, ".nox": true, ".gradle": true, ".next": true, ".nuxt": true,
	".turbo": true, ".parcel-cache": true, ".terraform": true,
}

// Budget bounds what of a worktree's ignored files is saved.
type Budget struct {
	PerFile int64 // larger files are not saved
	Total   int64 // past this sum, the rest is not saved
}

// DefaultBudget: small ignored files (.env, local settings, notes) are
// saved; large ones keep the worktree unless the user lets them go.
var DefaultBudget = Budget{PerFile: 1 << 20, Total: 20 << 20}

// IgnoredPlan says what becomes of a worktree's ignored files.
type IgnoredPlan struct {
	// Save are the files to save (slash-separated, relative to the top).
	Save []string
	// Regenerated are ignored directories deleted unsaved ("node_modules/").
	Regenerated []string
	// TooBig are ignored files past the budget, outside regenerated trees.
	TooBig []string
	// Unreadable are ignored entries that could not be read.
	Unreadable []string
}

// PlanIgnored walks the ignored entries git listed (`status
// --ignored=matching`: a wholly ignored directory is one entry ending in
// "/") and sorts their files into saved, regenerated and too big.
func PlanIgnored(root string, ignored []string, b Budget) IgnoredPlan {
	var p IgnoredPlan
	var total int64
	// An entry is a regenerated tree only when git ignores the whole
	// directory of that name: an ignored file inside a tracked folder
	// that happens to be called target/ is somebody's work.
	regen := func(rel string) bool {
		return strings.HasSuffix(rel, "/") && Regenerated[path.Base(strings.TrimSuffix(rel, "/"))]
	}
	add := func(rel string, size int64) {
		if size > b.PerFile || total+size > b.Total {
			p.TooBig = append(p.TooBig, rel)
			return
		}
		total += size
		p.Save = append(p.Save, rel)
	}
	sort.Strings(ignored)
	for _, entry := range ignored {
		if regen(entry) {
			p.Regenerated = append(p.Regenerated, entry)
			continue
		}
		top := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(entry, "/")))
		filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if err != nil {
				p.Unreadable = append(p.Unreadable, rel)
				return nil
			}
			if d.IsDir() {
				if path != top && (d.Name() == ".git" || Regenerated[d.Name()]) {
					if Regenerated[d.Name()] {
						p.Regenerated = append(p.Regenerated, rel+"/")
					}
					// A repository inside is not ours to save; the proof
					// reports it.
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil // fifos, sockets, devices hold no data
			}
			fi, err := d.Info()
			if err != nil {
				p.Unreadable = append(p.Unreadable, rel)
				return nil
			}
			add(rel, fi.Size())
			return nil
		})
	}
	return p
}

// Drop is the rule of a proof for entries that may go unsaved of a proof: the regenerated trees, and
// (when the user lets them go) the files past the budget.
func (p IgnoredPlan) Drop(tooBig bool) func(rel string, isDir bool) bool {
	dirs := map[string]bool{}
	for _, r := range p.Regenerated {
		dirs[strings.TrimSuffix(r, "/")] = true
	}
	files := map[string]bool{}
	if tooBig {
		for _, f := range p.TooBig {
			files[f] = true
		}
	}
	return func(rel string, isDir bool) bool {
		return dirs[rel] || files[rel]
	}
}
