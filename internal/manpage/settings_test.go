package manpage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/manpage"
)

// The settings a user can give the commands are their git config keys
// (taskresume.*, taskclean.*, color.taskresume, color.taskclean and
// color.ui, which those fall back to) and their environment variables
// (GIT_TASKRESUME_*, GIT_TASKCLEAN_*, including those git taskclean sets
// for its taskclean.preRemove command). Each page's CONFIGURATION and
// ENVIRONMENT sections list those of its command: found here in the
// string literals of the sources the command is built from, so that a key
// the code starts reading and nobody documents, or a key documented that
// the code no longer reads, fails this test.

const module = "github.com/taskresume/git-taskresume"

var (
	// A key: its section and name, the dot escaped or not (a regular
	// expression for git config --get-regexp names keys too). Not after a
	// dash or a word character: "git-taskresume.1" is a file name. A
	// section with no name after it is a prefix.
	keyRef = regexp.MustCompile(`(?i)(?:^|[^\w.-])((?:taskresume|taskclean|color)(?:\\)?\.)([a-z][a-z0-9]*)?`)
	// A variable; one ending in "_" is a prefix.
	envRef = regexp.MustCompile(`\bGIT_TASK(?:RESUME|CLEAN)_[A-Z0-9_]*`)
)

// testHooks are the variables that make git taskclean crash on purpose,
// for the tests of its recovery, and the one that reads every report
// through --list's shared reads, for the test suite's check of them: not
// for users, so not documented.
var testHooks = []string{"GIT_TASKCLEAN_CRASH_AFTER", "GIT_TASKCLEAN_CRASH_IN_TXN", "GIT_TASKRESUME_TEST_SHARED"}

// prefixFilters are the places allowed a bare prefix literal, each a
// filter that only selects keys, never a key built from a prefix (which
// the scan could not see): file, then the prefix as written.
var prefixFilters = map[[2]string]string{
	{"internal/resume/gather.go", `taskresume\.`}: "the one git config --get-regexp that reads the section; " +
		"every key is then looked up by its whole name",
}

// onlyFor names what belongs to one command's page although the other's
// binary names it too: both are built on internal/resume, which reads the
// whole config once and carries the clean's keys along (git taskresume
// never uses them; its test of a bad taskclean.preRemoveTimeout checks
// that), and on internal/ui, which knows both colour keys.
var onlyFor = map[string]string{
	"taskclean.":       "git-taskclean",
	"color.taskclean":  "git-taskclean",
	"GIT_TASKCLEAN_":   "git-taskclean",
	"color.taskresume": "git-taskresume",
}

func belongs(name, page string) bool {
	for prefix, p := range onlyFor {
		if strings.HasPrefix(name, prefix) && p != page {
			return false
		}
	}
	return true
}

// canonical is how a name is compared: git config keys are case-blind in
// their section and name, variables are not.
func canonical(name string) string {
	if envRef.FindString(name) == name {
		return name
	}
	return strings.ToLower(strings.ReplaceAll(name, `\.`, "."))
}

// scan is what one binary's sources say: the settings they name (file by
// name), the bare prefixes they use (by file), and every string literal.
type scan struct {
	names    map[string][]string
	prefixes map[[2]string]bool
	literals []string
}

// refs finds the settings and prefixes a string literal names.
func refs(lit string) (names, prefixes []string) {
	for _, m := range keyRef.FindAllStringSubmatch(lit, -1) {
		if m[2] == "" {
			prefixes = append(prefixes, m[1])
		} else {
			names = append(names, canonical(m[1]+m[2]))
		}
	}
	for _, v := range envRef.FindAllString(lit, -1) {
		if strings.HasSuffix(v, "_") {
			prefixes = append(prefixes, v)
		} else {
			names = append(names, v)
		}
	}
	return names, prefixes
}

// scanBinary reads the non-test sources of the packages of this module
// that cmd/<name> is built from, every platform's files, following
// imports (no go list: the parser is enough, and the test needs no
// toolchain beyond itself). The manuals are left out: they are what is
// checked.
func scanBinary(t *testing.T, top, name string) scan {
	t.Helper()
	s := scan{names: map[string][]string{}, prefixes: map[[2]string]bool{}}
	seen := map[string]bool{}
	queue := []string{"cmd/" + name}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		files, err := filepath.Glob(filepath.Join(top, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			rel := filepath.ToSlash(filepath.Join(dir, filepath.Base(f)))
			// The pages' own text names every setting without reading one.
			if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == "manual.go" && strings.HasPrefix(dir, "internal/cli/") ||
				rel == "internal/cliutil/settings.go" {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if sub, ok := strings.CutPrefix(p, module+"/"); ok {
					queue = append(queue, sub)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				s.literals = append(s.literals, v)
				names, prefixes := refs(v)
				for _, n := range names {
					if !slices.Contains(s.names[n], rel) {
						s.names[n] = append(s.names[n], rel)
					}
				}
				for _, p := range prefixes {
					s.prefixes[[2]string{rel, p}] = true
				}
				return true
			})
		}
	}
	if !seen["internal/resume"] || !seen["internal/gitcmd"] {
		t.Fatalf("%s: the walk of its imports missed internal/resume or internal/gitcmd: %v", name, seen)
	}
	return s
}

// documented lists the tags of the page's CONFIGURATION and ENVIRONMENT
// sections, as written (backquotes off).
func documented(t *testing.T, p *manpage.Page) []string {
	t.Helper()
	var out []string
	found := 0
	for _, s := range p.Sections {
		if s.Title != "CONFIGURATION" && s.Title != "ENVIRONMENT" {
			continue
		}
		found++
		for _, b := range s.Blocks {
			if it, ok := b.(manpage.Item); ok {
				out = append(out, strings.Trim(it.Tag, "`"))
			}
		}
	}
	if found != 2 {
		t.Fatalf("%s: %d of the CONFIGURATION and ENVIRONMENT sections, want both", p.Name, found)
	}
	return out
}

func TestPagesDocumentEverySetting(t *testing.T) {
	top := filepath.Join("..", "..")
	for name, c := range commands() {
		s := scanBinary(t, top, name)
		docs := map[string]bool{}
		for _, tag := range documented(t, c.page) {
			n := canonical(tag)
			docs[n] = true
			inScope := keyRef.MatchString(" "+tag) || envRef.MatchString(tag)
			switch {
			case slices.Contains(testHooks, tag):
				t.Errorf("%s documents %s, a hook for tests only", name, tag)
			case inScope && len(s.names[n]) == 0:
				t.Errorf("%s documents %s, which no source of the command reads or sets", name, tag)
			case inScope && !belongs(n, name):
				t.Errorf("%s documents %s, which is the other command's", name, tag)
			case !inScope && !slices.ContainsFunc(s.literals, func(l string) bool {
				return strings.Contains(strings.ToLower(l), strings.ToLower(tag))
			}):
				// git's own settings the page names (checkout.defaultRemote,
				// NO_COLOR): read by the command too.
				t.Errorf("%s documents %s, which no source of the command names", name, tag)
			}
			if !strings.Contains(roffOf(t, c.page), `\fB`+strings.ReplaceAll(tag, "-", `\-`)+`\fR`) {
				t.Errorf("%s: the page shows no heading for %s", name, tag)
			}
		}
		var missing []string
		for n, files := range s.names {
			if !docs[n] && belongs(n, name) && !slices.Contains(testHooks, n) {
				missing = append(missing, n+" (named in "+strings.Join(files, ", ")+")")
			}
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s: the page does not document %s", name, m)
		}
		// The scan itself: the names this test was written against are found.
		for _, want := range []string{"taskresume.remotetimeout", "color.ui", "GIT_TASKRESUME_TRACE"} {
			if len(s.names[want]) == 0 {
				t.Errorf("%s: the scan found no %s: it no longer reads the sources as they name settings", name, want)
			}
		}
	}
}

// TestNoSettingBuiltFromPrefix: a key or variable put together at run
// time ("color." + command) would escape the scan above, so every bare
// prefix is one of the filters allowed, and each allowed one is still used.
func TestNoSettingBuiltFromPrefix(t *testing.T) {
	top := filepath.Join("..", "..")
	used := map[[2]string]bool{} // both binaries share most sources: each use once
	for name := range commands() {
		for p := range scanBinary(t, top, name).prefixes {
			used[p] = true
		}
	}
	for p := range used {
		if _, ok := prefixFilters[p]; !ok {
			t.Errorf("%s: the literal prefix %q: name each setting whole where it is read, so that the man pages' test sees it "+
				"(a filter that only selects keys goes in prefixFilters, with why)", p[0], p[1])
		}
	}
	for p := range prefixFilters {
		if !used[p] {
			t.Errorf("prefixFilters allows %q in %s, which no longer uses it: drop the entry", p[1], p[0])
		}
	}
}

// The scan's rule on made-up literals: what names a setting, what is a
// prefix, what is neither.
func TestSettingRefs(t *testing.T) {
	for lit, want := range map[string][2][]string{
		"git config taskresume.remoteTimeout %q":           {{"taskresume.remotetimeout"}, nil},
		`^(taskresume\.|color\.ui$|taskclean\.preremove$)`: {{"color.ui", "taskclean.preremove"}, {`taskresume\.`}},
		"color.":             {nil, {"color."}},
		"GIT_TASKCLEAN_RUN=": {{"GIT_TASKCLEAN_RUN"}, nil},
		"GIT_TASKRESUME_":    {nil, {"GIT_TASKRESUME_"}},
		"install as git-taskresume.1; set taskclean. or remote.x": {nil, {"taskclean."}},
		"git-taskclean.1 and the colour of the report":            {nil, nil},
	} {
		names, prefixes := refs(lit)
		if !slices.Equal(names, want[0]) || !slices.Equal(prefixes, want[1]) {
			t.Errorf("refs(%q) = %q, %q; want %q, %q", lit, names, prefixes, want[0], want[1])
		}
	}
}
