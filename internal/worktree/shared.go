package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Shared is what a clean reads once for all the worktrees it saves, rather
// than once for each: the configuration that decides whether git converts
// a file on its way in (core.autocrlf, core.eol) and which attributes
// files outside the worktrees' own files exist; with the writers of their
// commits and trees. What one
// worktree can have of its own (a config.worktree, a configuration that
// includeIf may include for some worktrees and not others) is still read
// in that worktree, by git, as a save without Shared does.
type Shared struct {
	conv convertConfig
	// Writer writes the save commits; nil when commit-tree must (the
	// configuration sets an encoding, or the writer did not start).
	Writer *CommitWriter
	// Trees writes the trees of index files (write-tree takes the ones it
	// declines).
	Trees *TreeWriter
}

// convertConfig is what the configuration that every worktree shares says
// about conversion.
type convertConfig struct {
	// ok: it can be used for a worktree without a config.worktree. False
	// when it could not be read, or when a conditional include may set
	// something that matters for some worktrees.
	ok bool
	// all: core.autocrlf or core.eol, so any text file may be converted.
	all bool
	// outside: an attributes source other than the worktree's own
	// .gitattributes files may say something (info/attributes,
	// core.attributesFile or its default, the system file, attr.tree,
	// GIT_ATTR_SOURCE).
	outside bool
	// plainCommits: commit-tree would name no encoding
	// (i18n.commitEncoding), so the writer makes the bytes it makes.
	// (commit-tree, unlike commit, never signs on commit.gpgSign.)
	plainCommits bool
}

// sharedKeys are the configuration keys a save's conversion and commits
// depend on, as `git config --get-regexp` prints them (section and name in
// lower case).
const sharedKeys = `core\.(autocrlf|eol|attributesfile)|attr\.tree|i18n\.commitencoding`

// OpenShared reads, in the repository whose common directory is commonDir,
// what all the saves of a clean share, and starts the commit writer (it
// keeps a file in tmpDir; the tree writer starts with the first tree).
// identity is the environment of the save commits.
// A configuration it cannot vouch for makes each worktree read its own; a
// writer that does not start leaves the commits to commit-tree.
func OpenShared(ctx context.Context, commonDir, tmpDir string, hashLen int, identity []string) *Shared {
	env := saveEnviron()
	s := &Shared{Trees: newTreeWriter(ctx, commonDir, hashLen, env)}
	var sysDirs []string
	s.conv, sysDirs = readConvertConfig(ctx, commonDir, env)

	// git var lists the identities of the commits and, from git 2.42, the
	// system and global attributes files git reads. Before, the system
	// file is where git keeps its system configuration (both are in its
	// sysconfdir).
	var attrFiles []string
	for _, d := range sysDirs {
		attrFiles = append(attrFiles, filepath.Join(d, "gitattributes"))
	}
	vars, verr := gitOutput(ctx, commonDir, saveEnviron(identity...), "var", "-l")
	for _, line := range strings.Split(string(vars), "\n") {
		for _, k := range []string{"GIT_ATTR_SYSTEM=", "GIT_ATTR_GLOBAL="} {
			if v, ok := strings.CutPrefix(line, k); ok && v != "" {
				attrFiles = append(attrFiles, v)
			}
		}
	}
	if s.conv.ok && !s.conv.outside {
		s.conv.outside = attrsOutside(commonDir, attrFiles)
	}
	if s.conv.ok && s.conv.plainCommits && verr == nil {
		// A writer that does not start leaves the commits to commit-tree.
		if w, err := startCommitWriter(ctx, commonDir, tmpDir, hashLen, saveEnviron(identity...), string(vars)); err == nil {
			s.Writer = w
		}
	}
	return s
}

// Close stops the writers.
func (s *Shared) Close() error {
	if s == nil {
		return nil
	}
	terr := s.Trees.Close()
	if err := s.Writer.Close(); err != nil {
		return err
	}
	return terr
}

// Err is the error that stopped the commit writer: from then on no save
// can be made.
func (s *Shared) Err() error {
	if s == nil {
		return nil
	}
	return s.Writer.Err()
}

// forWorktree returns the shared configuration when it is the one git
// reads for the worktree whose admin entry is adminDir: false when the
// worktree has a config.worktree (with extensions.worktreeConfig its
// settings win; without it, reading it is still the safe side).
func (s *Shared) forWorktree(adminDir string) (convertConfig, bool) {
	if s == nil || !s.conv.ok || adminDir == "" {
		return convertConfig{}, false
	}
	if _, err := os.Lstat(filepath.Join(adminDir, "config.worktree")); !errors.Is(err, os.ErrNotExist) {
		return convertConfig{}, false
	}
	return s.conv, true
}

// trees is the tree writer, nil without Shared.
func (s *Shared) trees() *TreeWriter {
	if s == nil {
		return nil
	}
	return s.Trees
}

// writerFor is the commit writer for a worktree's save, nil when
// commit-tree must make its commits.
func (s *Shared) writerFor(adminDir string) *CommitWriter {
	if _, ok := s.forWorktree(adminDir); !ok {
		return nil
	}
	return s.Writer
}

// readConvertConfig reads the configuration every worktree of the
// repository shares (system, global, the repository's, the command's),
// leaving out the worktree scope: a worktree's config.worktree is its own.
// It lists every key, to learn too where the system configuration is
// (sysDirs: the folders of its files).
func readConvertConfig(ctx context.Context, commonDir string, env []string) (c convertConfig, sysDirs []string) {
	c = convertConfig{ok: true, plainCommits: true}
	out, err := gitOutput(ctx, commonDir, env, "config", "-z", "--show-scope", "--show-origin", "--list")
	if err != nil {
		return convertConfig{}, nil
	}
	f := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		scope, origin, kv := f[i], f[i+1], f[i+2]
		if scope == "worktree" {
			continue
		}
		if p, ok := strings.CutPrefix(origin, "file:"); ok && scope == "system" && filepath.IsAbs(p) {
			sysDirs = append(sysDirs, filepath.Dir(p))
		}
		key, val, hasVal := strings.Cut(kv, "\n")
		if strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path") {
			// The include applies to some worktrees (gitdir:, onbranch:)
			// and perhaps not to others: harmless only when the file it
			// names sets nothing that matters and includes nothing more.
			if !harmlessInclude(ctx, commonDir, env, origin, val, hasVal) {
				return convertConfig{}, nil
			}
			continue
		}
		c.apply(key, val, hasVal)
	}
	return c, sysDirs
}

// apply records one configuration value, erring on the side that saves
// more: any value but "false" counts as set.
func (c *convertConfig) apply(key, val string, hasVal bool) {
	switch key {
	case "core.autocrlf":
		c.all = c.all || !hasVal || val != "false"
	case "core.eol":
		c.all = true
	case "core.attributesfile", "attr.tree":
		// A relative core.attributesFile is read from each worktree's
		// directory: set at all, it may say something.
		c.outside = true
	case "i18n.commitencoding":
		if !hasVal || !strings.EqualFold(val, "utf-8") && !strings.EqualFold(val, "utf8") {
			c.plainCommits = false
		}
	}
}

// harmlessInclude says whether the file an includeIf.<cond>.path names can
// change nothing a save depends on, whichever worktree it is read for: it
// does not exist, or it sets none of sharedKeys and includes nothing. A
// path whose place cannot be worked out as git works it out is not.
func harmlessInclude(ctx context.Context, commonDir string, env []string, origin, path string, hasVal bool) bool {
	if !hasVal || path == "" {
		return false
	}
	switch {
	case strings.HasPrefix(path, "~/"):
		home := os.Getenv("HOME")
		if home == "" {
			return false
		}
		path = filepath.Join(home, path[2:])
	case strings.HasPrefix(path, "~"), strings.HasPrefix(path, "%("):
		return false
	case !filepath.IsAbs(path):
		// Relative to the file that includes it.
		from, ok := strings.CutPrefix(origin, "file:")
		if !ok {
			return false
		}
		if !filepath.IsAbs(from) {
			from = filepath.Join(commonDir, from)
		}
		path = filepath.Join(filepath.Dir(from), path)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return true // git skips an include that is not there
	}
	out, err := gitOutput(ctx, commonDir, env, "config", "--file", path, "--no-includes", "-z",
		"--get-regexp", `^(`+sharedKeys+`|include\..*|includeif\..*)$`)
	return exitCode(err) == 1 && len(out) == 0
}

// attrsOutside says whether an attributes file outside the worktrees'
// own files exists: the repository's info/attributes, the global file
// (core.attributesFile, read already, or its default under
// $XDG_CONFIG_HOME or ~/.config), the system file (where git var says, or
// where git keeps it beside its program), or GIT_ATTR_SOURCE names a tree
// to read them from. An existing file may say nothing, but only check-attr
// can tell.
func attrsOutside(commonDir string, known []string) bool {
	if os.Getenv("GIT_ATTR_SOURCE") != "" {
		return true
	}
	files := append([]string{filepath.Join(commonDir, "info", "attributes"), "/etc/gitattributes"}, known...)
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "attributes"))
	}
	if h := os.Getenv("HOME"); h != "" {
		files = append(files, filepath.Join(h, ".config", "git", "attributes"))
	}
	// $(prefix)/etc/gitattributes, the prefix being where git's program
	// is (or what a link to it leads to).
	if p, err := exec.LookPath("git"); err == nil {
		for _, bin := range []string{p, resolved(p)} {
			if bin != "" {
				files = append(files, filepath.Join(filepath.Dir(filepath.Dir(bin)), "etc", "gitattributes"))
			}
		}
	}
	for _, f := range files {
		if present(f) {
			return true
		}
	}
	return false
}

func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// present: the path exists, or cannot be told not to (a permission
// error): git may read it.
func present(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// isAttrFile says whether a worktree path may be read as a .gitattributes
// file (in any case: a file system that ignores case opens it as one).
func isAttrFile(p string) bool {
	return strings.EqualFold(filepath.Base(strings.TrimSuffix(p, "/")), ".gitattributes")
}
