// Package vocabtest checks the JSON vocabularies of both commands (every
// field whose value is one of a fixed set) against docs/JSON.md, which lists
// them for the users of --json, and against the constants' own lists; and
// the fields of the documents of schema_version 1 (--list --json,
// --check-plan --json) against the structs that write them.
package vocabtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/clean"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// vocabularies are the fixed sets, each with the file that declares its
// constants and where the docs/JSON.md lists it: the backquoted
// words after the marker (which occurs there once), words in parentheses
// left out (they explain), up to the end of the sentence or the
// parenthesis the marker opens.
var vocabularies = []struct {
	typ, file, marker string
	values            func() []string
}{
	{"RunStatus", "resume/vocab.go", "- `status`:", func() []string { return asStrings(resume.AllRunStatuses()) }},
	{"PhaseStatus", "resume/vocab.go", "- phase `status`:", func() []string { return asStrings(resume.AllPhaseStatuses()) }},
	{"PhaseMode", "resume/vocab.go", "- phase and resume `mode`:", func() []string { return asStrings(resume.AllPhaseModes()) }},
	{"TaskStatus", "resume/vocab.go", "- task `status`:", func() []string { return asStrings(resume.AllTaskStatuses()) }},
	{"WorktreeState", "resume/vocab.go", "- worktree `state`:", func() []string { return asStrings(resume.AllWorktreeStates()) }},
	{"ResumeKind", "resume/vocab.go", "`kind` is ", func() []string { return asStrings(resume.AllResumeKinds()) }},
	{"BaseSource", "resume/vocab.go", "`source` (", func() []string { return asStrings(resume.AllBaseSources()) }},
	{"RemoteSource", "resume/vocab.go", "remote `source`:", func() []string { return asStrings(resume.AllRemoteSources()) }},
	{"PlanPlace", "resume/vocab.go", "`place` (", func() []string { return asStrings(resume.AllPlanPlaces()) }},
	{"Relation", "resume/vocab.go", "`relation` is ", func() []string { return asStrings(resume.AllRelations()) }},
	{"ProblemKind", "resume/vocab.go", "- `problems[].kind`:", func() []string { return asStrings(resume.AllProblemKinds()) }},
	{"LandingHow", "branches/rule.go", "`how` is ", func() []string { return asStrings(branches.AllLandingHows()) }},
	{"LandingRef", "branches/rule.go", "`ref` is ", func() []string { return asStrings(branches.AllLandingRefs()) }},
	{"Op", "clean/ops.go", "- `action`:", func() []string { return asStrings(clean.AllOps()) }},
	{"SaveKind", "clean/backups.go", "- `backups[].saves[].kind`:", func() []string { return asStrings(clean.AllSaveKinds()) }},
}

// wholeFiles hold vocabularies only: every type with constants there must
// be one of the vocabularies above.
var wholeFiles = []string{"resume/vocab.go", "clean/ops.go"}

func asStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// docs/JSON.md lists every value of every vocabulary, and nothing else.
func TestJSONPageListsVocabularies(t *testing.T) {
	section := jsonPage(t)
	for _, v := range vocabularies {
		t.Run(v.typ, func(t *testing.T) {
			if n := strings.Count(section, v.marker); n != 1 {
				t.Fatalf("docs/JSON.md holds %q %d times, want once", v.marker, n)
			}
			listed := readmeList(section[strings.Index(section, v.marker)+len(v.marker):])
			missing, extra := setDiff(v.values(), listed)
			if len(missing) > 0 {
				t.Errorf("docs/JSON.md's list after %q lacks %s", v.marker, strings.Join(missing, ", "))
			}
			if len(extra) > 0 {
				t.Errorf("docs/JSON.md's list after %q has %s, which %s has not", v.marker, strings.Join(extra, ", "), v.typ)
			}
		})
	}
}

// jsonPage is docs/JSON.md, the page that lists every field and value of
// the JSON documents.
func jsonPage(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/JSON.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readmeList reads the backquoted words of text outside parentheses, up to
// the end of the sentence or a parenthesis closing one opened before text.
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
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

// Each All... function lists every constant its file declares of its
// type, once, so that the docs/JSON.md test sees a value as soon as it is
// declared.
func TestVocabulariesListEveryConstant(t *testing.T) {
	declared := map[string]map[string][]string{} // file -> type -> constants
	for _, v := range vocabularies {
		if declared[v.file] == nil {
			declared[v.file] = constantsByType(t, filepath.Join("..", v.file))
		}
	}
	for _, v := range vocabularies {
		names, vals := declared[v.file][v.typ], v.values()
		if len(names) == 0 {
			t.Errorf("%s: %s declares no constant of that type", v.typ, v.file)
		}
		if len(names) != len(vals) {
			t.Errorf("%s: %s declares %d constants (%s), its All function lists %d values", v.typ, v.file, len(names), strings.Join(names, ", "), len(vals))
		}
		seen := map[string]bool{}
		for _, val := range vals {
			if seen[val] {
				t.Errorf("%s: %s listed twice", v.typ, strconv.Quote(val))
			}
			seen[val] = true
		}
	}
	for _, file := range wholeFiles {
		for typ, names := range declared[file] {
			if !slices.ContainsFunc(vocabularies, func(v struct {
				typ, file, marker string
				values            func() []string
			}) bool {
				return v.typ == typ && v.file == file
			}) {
				t.Errorf("%s declares constants of type %s (%s), which no vocabulary here checks", file, typ, strings.Join(names, ", "))
			}
		}
	}
}

// constantsByType reads the constants of a Go file by their type: the type
// written, or the conversion the value is (TaskStatus(branches.Completed)).
func constantsByType(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
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
			} else if len(vs.Values) > 0 {
				if call, ok := vs.Values[0].(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok {
						typ = id.Name
					}
				}
			}
			if typ == "" {
				continue // untyped: no vocabulary
			}
			for _, n := range vs.Names {
				out[typ] = append(out[typ], n.Name)
			}
		}
	}
	return out
}

// documents are the JSON documents whose fields docs/JSON.md lists, each
// struct with the file that declares it and the marker of its list in the
// docs/JSON.md (read as for vocabularies).
var documents = []struct{ typ, file, marker string }{
	{"ListReport", "cli/taskresume/list.go", "- `--list --json`:"},
	{"ListEntry", "cli/taskresume/list.go", "- `--list --json` `runs[]`:"},
	{"CheckedPlan", "cli/taskresume/checkplan.go", "- `--check-plan --json`:"},
	{"CheckedPhase", "cli/taskresume/checkplan.go", "- `--check-plan --json` `phases[]`:"},
	{"CheckedTask", "cli/taskresume/checkplan.go", "- `--check-plan --json` `phases[].tasks[]`:"},
	{"CheckedError", "cli/taskresume/checkplan.go", "- `--check-plan --json` `errors[]`"},
	{"CheckedVersion", "cli/taskresume/checkplan.go", "- `--check-plan --json` `taskresume_version`:"},
	{"Info", "version/version.go", "- `--version --json`:"},
}

// docs/JSON.md lists every field of these documents, and nothing else; and
// every struct with JSON fields in their files is one of them, so that a
// new part of a document is listed too.
func TestJSONPageListsDocumentFields(t *testing.T) {
	section := jsonPage(t)
	fields := map[string]map[string][]string{} // file -> struct -> json names
	for _, d := range documents {
		if fields[d.file] == nil {
			fields[d.file] = jsonFields(t, filepath.Join("..", d.file))
		}
	}
	for _, d := range documents {
		t.Run(d.typ, func(t *testing.T) {
			want := fields[d.file][d.typ]
			if len(want) == 0 {
				t.Fatalf("%s declares no struct %s with JSON fields", d.file, d.typ)
			}
			if n := strings.Count(section, d.marker); n != 1 {
				t.Fatalf("docs/JSON.md holds %q %d times, want once", d.marker, n)
			}
			missing, extra := setDiff(want, readmeList(section[strings.Index(section, d.marker)+len(d.marker):]))
			if len(missing) > 0 {
				t.Errorf("docs/JSON.md's list after %q lacks %s", d.marker, strings.Join(missing, ", "))
			}
			if len(extra) > 0 {
				t.Errorf("docs/JSON.md's list after %q has %s, which %s has not", d.marker, strings.Join(extra, ", "), d.typ)
			}
		})
	}
	for file, structs := range fields {
		for typ := range structs {
			if !slices.ContainsFunc(documents, func(d struct{ typ, file, marker string }) bool { return d.typ == typ && d.file == file }) {
				t.Errorf("%s declares %s with JSON fields, which docs/JSON.md does not cover (add it to documents)", file, typ)
			}
		}
	}
}

// jsonFields reads the JSON names of the fields of each struct type a Go
// file declares (the json tag's name; "-" and untagged fields are not
// written under a name of their own here).
func jsonFields(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		for _, fld := range st.Fields.List {
			if fld.Tag == nil {
				continue
			}
			tag, err := strconv.Unquote(fld.Tag.Value)
			if err != nil {
				t.Fatalf("%s: tag %s: %v", path, fld.Tag.Value, err)
			}
			name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			if name != "" && name != "-" {
				out[ts.Name.Name] = append(out[ts.Name.Name], name)
			}
		}
		return false
	})
	return out
}
