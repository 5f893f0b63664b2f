package resume

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// vocabularies are the JSON report's fixed sets, each with where the
// README's JSON section lists it: the backquoted words after the marker
// (which occurs there once), words in parentheses left out (they explain),
// up to the end of the sentence or the parenthesis the marker opens.
var vocabularies = []struct {
	name, marker string
	values       func() []string
}{
	{"RunStatus", "- `status`:", func() []string { return asStrings(AllRunStatuses()) }},
	{"PhaseStatus", "- phase `status`:", func() []string { return asStrings(AllPhaseStatuses()) }},
	{"PhaseMode", "- phase and resume `mode`:", func() []string { return asStrings(AllPhaseModes()) }},
	{"TaskStatus", "- task `status`:", func() []string { return asStrings(AllTaskStatuses()) }},
	{"WorktreeState", "- worktree `state`:", func() []string { return asStrings(AllWorktreeStates()) }},
	{"ResumeKind", "`kind` is ", func() []string { return asStrings(AllResumeKinds()) }},
	{"BaseSource", "`source` (", func() []string { return asStrings(AllBaseSources()) }},
	{"PlanPlace", "`place` (", func() []string { return asStrings(AllPlanPlaces()) }},
	{"Relation", "`relation` is ", func() []string { return asStrings(AllRelations()) }},
	{"ProblemKind", "- `problems[].kind`:", func() []string { return asStrings(AllProblemKinds()) }},
}

func asStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// The README lists every value of every vocabulary, and nothing else.
func TestREADMEListsVocabularies(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := jsonSection(string(data))
	if section == "" {
		t.Fatal(`README.md has no "## JSON" section`)
	}
	for _, v := range vocabularies {
		t.Run(v.name, func(t *testing.T) {
			if n := strings.Count(section, v.marker); n != 1 {
				t.Fatalf("README's JSON section holds %q %d times, want once", v.marker, n)
			}
			listed := readmeList(section[strings.Index(section, v.marker)+len(v.marker):])
			missing, extra := setDiff(v.values(), listed)
			if len(missing) > 0 {
				t.Errorf("README's list after %q lacks %s", v.marker, strings.Join(missing, ", "))
			}
			if len(extra) > 0 {
				t.Errorf("README's list after %q has %s, which %s has not", v.marker, strings.Join(extra, ", "), v.name)
			}
		})
	}
}

// jsonSection is the README's "## JSON" section, up to the next one.
func jsonSection(readme string) string {
	i := strings.Index(readme, "\n## JSON")
	if i < 0 {
		return ""
	}
	rest := readme[i+1:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// readmeList reads the backquoted words of text outside parentheses, up to
// a full stop that ends a sentence or a parenthesis closed that text did
// not open.
func readmeList(text string) []string {
	var words []string
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '`':
			j := strings.IndexByte(text[i+1:], '`')
			if j < 0 {
				return words
			}
			if depth == 0 {
				words = append(words, text[i+1:i+1+j])
			}
			i += j + 1
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return words
			}
			depth--
		case c == '.' && depth == 0 && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n'):
			return words
		}
	}
	return words
}

// setDiff returns what want has and got lacks, and what got has and want
// lacks, each sorted.
func setDiff(want, got []string) (missing, extra []string) {
	in := func(ss []string, s string) bool {
		for _, x := range ss {
			if x == s {
				return true
			}
		}
		return false
	}
	for _, w := range want {
		if !in(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !in(want, g) {
			extra = append(extra, g)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

// Each All... function lists every constant vocab.go declares of its type,
// so that the README test sees a value as soon as it is declared.
func TestVocabulariesListEveryConstant(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "vocab.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The constants of each type, by name: a constant's type is written,
	// or is the conversion its value is (TaskStatus(branches.Completed)).
	declared := map[string][]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			typ := ""
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			} else if call, ok := vs.Values[0].(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok {
					typ = id.Name
				}
			}
			for _, n := range vs.Names {
				declared[typ] = append(declared[typ], n.Name)
			}
		}
	}
	values := map[string][]string{}
	for _, v := range vocabularies {
		values[v.name] = v.values()
	}
	if len(declared) != len(values) {
		t.Errorf("vocab.go declares constants of %d types, the README test checks %d", len(declared), len(values))
	}
	for typ, names := range declared {
		vals, ok := values[typ]
		if !ok {
			t.Errorf("constants of type %q (%s) are in no vocabulary the README test checks", typ, strings.Join(names, ", "))
			continue
		}
		if len(names) != len(vals) {
			t.Errorf("%s: vocab.go declares %d constants (%s), its All function lists %d values", typ, len(names), strings.Join(names, ", "), len(vals))
		}
		seen := map[string]bool{}
		for _, v := range vals {
			if seen[v] {
				t.Errorf("%s: %s listed twice", typ, strconv.Quote(v))
			}
			seen[v] = true
		}
	}
}
