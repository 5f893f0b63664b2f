package plan

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkRefFormat applies git's check-ref-format rules (git help
// check-ref-format) to a full ref name, so the fuzzers can check that every
// name the package makes is one git accepts without running git.
func checkRefFormat(ref string) error {
	if ref == "" || ref == "@" {
		return errors.New("empty or @")
	}
	if !strings.Contains(ref, "/") {
		return errors.New("no slash")
	}
	if strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") {
		return errors.New("bad start or end")
	}
	if strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.Contains(ref, "//") {
		return errors.New(`contains "..", "@{" or "//"`)
	}
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return fmt.Errorf("bad byte %q", c)
		}
	}
	for _, comp := range strings.Split(ref, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return fmt.Errorf("bad component %q", comp)
		}
	}
	return nil
}

// errorSeeds are plans that must fail; they steer the fuzzer to the error paths.
var errorSeeds = []string{
	"",
	"Run ID: r\n",
	"---\nrunId: r\n",
	"<!-- c\n-->\n---\nrun_id: '${runId}'\n---\n",
	"## Phsae 2: y\n### Taks 3.1: x\n",
	"## Phase 2 Features (Parallel)\n",
	"## Phase 1: P (Paralel)\n**Strategy**: parallel|sequential\n",
	"## Phase 1: P (Parallel)\n**Strategy**: Sequential\n### Task 1: A\n",
	"## Phase {N}: {Phase Name}\n### Task {ID}: {Name}\n",
	"## Phase 1: P\n### Task 1.1: A\n### Task 1-1: B\n",
	"Run ID: r\n### Task 1.1: A\n",
	"Run ID: r\n## Phase 1: P (Parallel)\n### Task 2.1: A\n### Task 2.1: B\n",
	"Run ID: r\n## Phase 1: P\n### Task 1.a: A\n",
	"Run ID: r\n## Phase x: P\n",
	"Run ID: a..b\n## Phase 1: P\n### Task 1: A\n",
	"Run ID: r\n## Phase 1: P\n### Task 1: A\nRun ID: s\n",
	"Run ID: r\n```\n## Phase 1: P\n### Task 1: A\n",
	"\xff\xfeR\x00",
	"Run ID: r\n## Phase 1: P\n### Task 1: \x00\n",
}

func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("testdata/example.md")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(strings.ReplaceAll(string(example), "\n", "\r\n")))
	f.Add([]byte("\uFEFF**Run ID:** `r.1`\r## Phase 2: X\r### Task 2.1.3: 🚀 (XL - 2-3h) ##\r\t* meta\r~~~\r### Task 9: no\r~~~\r"))
	f.Add([]byte("<!-- x -->\n---\nrunId: \"ab12\"\n---\n# Phase 3 - PARALLEL (6h) - Run:\n- Strategy: parallel (why)\n## Task 4: A (M)\n**Complexity**: M (4h)\n**Dependencies:**\n- Task 1.1 (x)\n- None\n"))
	f.Add([]byte("## Phase 1: F (sequential)\n- [ ] **Task 1.1**: Add | repo: a | files: b\n- [x] Task 1-2: B\n"))
	for _, s := range errorSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ws, err := Parse("fuzz.md", data)
		for _, w := range ws {
			if w.Path != "fuzz.md" || w.Line < 1 || w.Msg == "" {
				t.Fatalf("bad warning %#v", w)
			}
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if p != nil || pe.Line < 1 || pe.Path != "fuzz.md" || pe.Msg == "" {
				t.Fatalf("bad error %#v (plan %v)", pe, p)
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 || es[0] != pe || err.Error() != pe.Error() {
				t.Fatalf("error %T is not Errors led by the first *Error: %v", err, err)
			}
			for i, e := range es {
				if e.Line < 1 || e.Path != "fuzz.md" || e.Msg == "" || i > 0 && e.Line < es[i-1].Line {
					t.Fatalf("bad or unordered error %d %#v", i, e)
				}
			}
			return
		}
		if p.RunID != "" || p.RunIDLine != 0 {
			if err := ValidateRunID(p.RunID); err != nil {
				t.Fatalf("accepted run id: %v", err)
			}
			if p.RunIDLine < 1 {
				t.Fatalf("run id line %d", p.RunIDLine)
			}
		}
		tasks := p.Tasks()
		if len(tasks) == 0 {
			t.Fatal("accepted a plan without tasks")
		}
		seen := map[string]bool{}
		numbers := map[int]bool{}
		line := 0
		for _, ph := range p.Phases {
			if numbers[ph.Number] || ph.Number < 0 {
				t.Fatalf("phase number %d repeated or negative", ph.Number)
			}
			numbers[ph.Number] = true
			if ph.Mode != Sequential && ph.Mode != Parallel {
				t.Fatalf("phase %d mode %q", ph.Number, ph.Mode)
			}
			if ph.ModeGiven != (ph.ModeLine >= ph.Line) || !ph.ModeGiven && (ph.Mode != Sequential || ph.ModeLine != 0) {
				t.Fatalf("phase %d mode %q given %v at line %d", ph.Number, ph.Mode, ph.ModeGiven, ph.ModeLine)
			}
			if ph.Line <= line {
				t.Fatalf("phase %d at line %d is not after line %d", ph.Number, ph.Line, line)
			}
			line = ph.Line
			for _, tk := range ph.Tasks {
				if tk.Phase != ph {
					t.Fatalf("task %s: Phase does not point at its phase", tk.ID)
				}
				if !ValidTaskID(tk.ID) {
					t.Fatalf("accepted task id %q", tk.ID)
				}
				if seen[CanonicalID(tk.ID)] {
					t.Fatalf("duplicate task id %q", tk.ID)
				}
				seen[CanonicalID(tk.ID)] = true
				if p.Task(tk.ID) != tk {
					t.Fatalf("Task(%q) does not find it", tk.ID)
				}
				if tk.Line <= line {
					t.Fatalf("task %s at line %d is not after line %d", tk.ID, tk.Line, line)
				}
				line = tk.Line
				if tk.Title == "" || tk.Title != trimBlank(tk.Title) || !utf8.ValidString(tk.Title) {
					t.Fatalf("task %s title %q", tk.ID, tk.Title)
				}
				if tk.Size != trimBlank(tk.Size) || tk.Estimate != trimBlank(tk.Estimate) {
					t.Fatalf("task %s size %q estimate %q", tk.ID, tk.Size, tk.Estimate)
				}
				for _, d := range tk.DependsOn {
					if !ValidTaskID(d) {
						t.Fatalf("task %s depends on %q", tk.ID, d)
					}
				}
				for _, m := range tk.Meta {
					if m == "" || m != trimBlank(m) || strings.ContainsAny(m, "\r\n") {
						t.Fatalf("task %s meta %q", tk.ID, m)
					}
				}
				branch := BranchName(cmp.Or(p.RunID, "r"), tk)
				if err := checkRefFormat("refs/heads/" + branch); err != nil {
					t.Fatalf("branch %q is not a valid ref: %v", branch, err)
				}
				if !strings.HasPrefix(branch+"-", BranchPrefix(cmp.Or(p.RunID, "r"), tk.ID)) {
					t.Fatalf("branch %q does not start with its prefix %q", branch, BranchPrefix(cmp.Or(p.RunID, "r"), tk.ID))
				}
			}
		}
		if len(seen) != len(tasks) {
			t.Fatalf("Tasks() returned %d, phases hold %d", len(tasks), len(seen))
		}
		run := p.RunID
		if run == "" {
			run = "r" // what a caller takes from the directory instead
		}
		for _, ref := range []string{"refs/heads/" + run + "-main", "refs/taskclean/" + run + "/x"} {
			if err := checkRefFormat(ref); err != nil {
				t.Fatalf("%q: %v", ref, err)
			}
		}
	})
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Create database schema", "API: v2 (beta)!", "🚀", "数据库", "--a--b--", "", "\xff", "Ünïcödé"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		s := Slug(title)
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				t.Fatalf("Slug(%q) = %q has byte %q", title, s, c)
			}
		}
		if strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
			t.Fatalf("Slug(%q) = %q has a stray dash", title, s)
		}
		if Slug(s) != s {
			t.Fatalf("Slug is not idempotent on %q", s)
		}
		if Slug(strings.ToUpper(title)) != Slug(strings.ToLower(title)) && isASCII(title) {
			t.Fatalf("Slug of %q depends on ASCII case", title)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func FuzzValidateRunID(f *testing.F) {
	for _, s := range []string{"x1y2z3", "a.b-c_d", "a..b", "x.lock", "-x", "a/b", "x.", "héllo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := ValidateRunID(id)
		if err == nil {
			for _, ref := range []string{"refs/heads/" + id + "-task-1", "refs/heads/" + id + "-main", "refs/taskclean/" + id + "/x", "refs/heads/" + id} {
				if rerr := checkRefFormat(ref); rerr != nil {
					t.Fatalf("ValidateRunID(%q) = nil but %q: %v", id, ref, rerr)
				}
			}
			if len(id) > 64 || id[0] == '-' {
				t.Fatalf("ValidateRunID(%q) = nil", id)
			}
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "run id ") || strings.HasSuffix(msg, ".") || len(msg) > 400 {
			t.Fatalf("message %q", msg)
		}
	})
}
