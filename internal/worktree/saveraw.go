package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// saveRaw finds the saved files whose bytes on disk are not what git
// stored for them (git converted them: a clean filter, line endings,
// ident) and saves those bytes as they are, hashed without filters, in a
// tree of their own. It reads only files that attributes or configuration
// say git may convert. s.treeAttrs says whether the worktree may hold a
// .gitattributes file.
func (s *saver) saveRaw() error {
	entries, err := s.savedEntries()
	if err != nil || len(entries) == 0 {
		return err
	}
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	cands, err := s.mayConvert(paths)
	if err != nil {
		return err
	}
	readable := s.readRaw(cands, entries)
	if len(readable) == 0 {
		return nil
	}
	return s.commitRaw(readable, entries)
}

// savedEntries are the entries, by path, of the save's index files that
// hold a file's content (stage 0, neither a submodule nor a symbolic link):
// the files whose bytes git may have converted.
func (s *saver) savedEntries() (map[string]IndexEntry, error) {
	entries := map[string]IndexEntry{}
	for _, idx := range s.snap.Indexes {
		es, err := ReadIndex(idx, s.in.HashLen)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		for _, e := range es {
			if e.Stage != 0 || e.Mode == 0o160000 || e.Mode == 0o120000 {
				continue
			}
			entries[e.Path] = e
		}
	}
	return entries, nil
}

// mayConvert returns those of paths git may convert: all of them when the
// configuration converts every text file, none when no attributes file
// could say anything, else those check-attr gives a converting attribute.
func (s *saver) mayConvert(paths []string) ([]string, error) {
	all, check := s.convertSettings()
	if !all && !check {
		return nil, nil
	} else if !all {
		return s.checkAttr(paths)
	}
	return paths, nil
}

// convertSettings says whether the configuration converts every text file
// (all) and whether an attributes file may say something (check). What
// converts is read where git reads it for this worktree: its own
// configuration (system, global, the repository's, the worktree's,
// included files) and every attributes file (the worktree's, the
// repository's, the global and system ones). The clean has read once what
// every worktree without a configuration of its own shares.
func (s *saver) convertSettings() (all, check bool) {
	all, check = false, true
	if conv, ok := s.in.Shared.forWorktree(s.in.AdminDir); ok {
		all = conv.all
		// Without an attributes file that could say something, check-attr
		// would answer "unspecified" for every path.
		check = conv.outside || s.treeAttrs || present(filepath.Join(s.in.AdminDir, "info", "attributes"))
		return all, check
	}
	cfg, _ := s.git(s.idx, nil, "config", "-z", "--get-regexp", `^core\.(autocrlf|eol)$`)
	for _, kv := range strings.Split(cfg, "\x00") {
		k, v, _ := strings.Cut(kv, "\n")
		switch strings.ToLower(k) {
		case "core.autocrlf":
			all = all || v != "false"
		case "core.eol":
			all = true
		}
	}
	// GIT_CONFIG makes git config read that one file, not the ones the
	// other commands read: what they convert is unknown.
	if _, set := os.LookupEnv("GIT_CONFIG"); set {
		all = true
	}
	return all, check
}

// checkAttr returns those of paths that have an attribute by which git
// converts a file, in the order check-attr names them.
func (s *saver) checkAttr(paths []string) ([]string, error) {
	out, err := s.git(s.idx, []byte(strings.Join(paths, "\x00")+"\x00"),
		"check-attr", "-z", "--stdin", "filter", "ident", "text", "eol", "crlf", "working-tree-encoding")
	if err != nil {
		return nil, err
	}
	var cands []string
	seen := map[string]bool{}
	f := strings.Split(out, "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		p, attr, val := f[i], f[i+1], f[i+2]
		if val == "unspecified" || val == "unset" || attr == "text" && val == "" {
			continue
		}
		if !seen[p] {
			seen[p] = true
			cands = append(cands, p)
		}
	}
	return cands, nil
}

// readRaw reads the candidates' files and returns those it could read (all
// of them are saved as they are); it marks in the snapshot's RawPaths
// those whose bytes are not what git stored. A file that cannot be read is
// left to the proof, which reports it.
func (s *saver) readRaw(cands []string, entries map[string]IndexEntry) []string {
	var readable []string
	s.snap.RawPaths = map[string]bool{}
	for _, p := range cands {
		data, err := os.ReadFile(filepath.Join(s.in.Dir, filepath.FromSlash(p)))
		if err != nil {
			continue // the proof reports what cannot be read
		}
		readable = append(readable, p)
		if BlobID(data, s.in.HashLen) != entries[p].OID {
			s.snap.RawPaths[p] = true
		}
	}
	return readable
}

// commitRaw hashes the files at paths as they are on disk, without
// filters, and commits them, with their index modes, in a tree of their
// own through the index file "raw", which joins the save's indexes.
func (s *saver) commitRaw(paths []string, entries map[string]IndexEntry) error {
	var list strings.Builder
	for _, p := range paths {
		list.WriteString(cQuote(p) + "\n")
	}
	out, err := s.git(s.idx, []byte(list.String()), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	oids := strings.Fields(out)
	if len(oids) != len(paths) {
		return fmt.Errorf("hash-object gave %d ids for %d files", len(oids), len(paths))
	}
	var info strings.Builder
	for i, p := range paths {
		fmt.Fprintf(&info, "%o %s\t%s\x00", entries[p].Mode, oids[i], p)
	}
	ridx := filepath.Join(s.in.TmpDir, "raw")
	if _, err := s.git(ridx, []byte(info.String()), "update-index", "--add", "-z", "--index-info"); err != nil {
		return err
	}
	tree, err := s.writeTree(ridx)
	if err != nil {
		return err
	}
	if s.snap.Raw, err = s.commit(tree, nil, "raw bytes on "+s.in.Msg); err != nil {
		return err
	}
	s.snap.Indexes = append(s.snap.Indexes, ridx)
	return nil
}
