// Helpers of the git-taskclean tests: the real binaries reached through git
// dispatch, a builder of the crashed run of examples/demo.sh with plain git,
// and readers of what a repository holds (refs, worktrees, saved contents).
package clean_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

const run = "x1y2z3"

// fixedDate keeps commit ids equal between scenarios, so that the final state
// of a crashed-then-rerun clean can be compared with one that never crashed.
const fixedDate = "2026-01-01T00:00:00Z"

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Options{Date: fixedDate, Setup: func(scratch string) error {
		templateDir = filepath.Join(scratch, "templates")
		var err error
		realGit, err = exec.LookPath("git")
		return err
	}}))
}

// ---- running git and git taskclean ----

// git runs git in dir and returns its standard output as printed; a failure
// ends the test. Reads use GIT_OPTIONAL_LOCKS=0 so that the tests themselves
// never refresh an index they are watching.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testbin.Must(t, testbin.Run(dir, []string{"GIT_OPTIONAL_LOCKS=0"}, "git", args...)).Stdout
}

// gitIn runs git in dir with stdin as its input and returns its standard
// output as printed; a failure ends the test.
func gitIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	return testbin.Must(t, testbin.RunStdin(dir, nil, stdin, "git", args...)).Stdout
}

// mustClean runs git taskclean and requires exit 0.
func mustClean(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testbin.Must(t, testbin.Taskclean(dir, nil, args...)).Stdout
}

// ---- the scenario ----

const (
	branch11   = run + "-task-1-1-create-database-schema"
	branch12   = run + "-task-1-2-install-dependencies"
	branch21   = run + "-task-2-1-user-service"
	branchMain = run + "-main"
	wtMain     = run + "-main"
	wt21       = run + "-task-2-1"
	wt22       = run + "-task-2-2"
	wt23       = run + "-task-2-3"
	readme     = "# demo project\n"
	schema11   = "CREATE TABLE users (id int);\n"
)

// dirtyWT is a crashed agent's worktree and every uncommitted byte in it.
type dirtyWT struct {
	task, name, path string
	head             string
	// staged: path -> content in the index; work: tracked path -> content in
	// the working tree; untracked: path -> content; ignored: path -> content.
	staged, work, untracked, ignored map[string]string
	// status is `git status --porcelain --untracked-files=all` before any clean.
	status string
}

type scenario struct {
	root  string // the main worktree, top of the repository
	wtDir string // taskresume.worktreeDir as configured (relative)
	// tips are the branches at build time.
	tips  map[string]string
	p2    string // commit of task 1.2, where phase 2 started
	dirty []*dirtyWT
}

type scenarioOpts struct {
	// wtDir sets git config taskresume.worktreeDir and puts the task
	// worktrees there; "" keeps the default .worktrees.
	wtDir string
}

func (s *scenario) wt(name string) string { return filepath.Join(s.root, s.wtDir, name) }

func (s *scenario) rel(name string) string { return filepath.Join(s.wtDir, name) }

func (s *scenario) dirtyByName(name string) *dirtyWT {
	for _, d := range s.dirty {
		if d.name == name {
			return d
		}
	}
	return nil
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		testbin.WriteFile(t, filepath.Join(dir, p), c)
	}
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// realGit is the git binary found on PATH.
var realGit string

// templateDir holds one built scenario per option set; tests get copies.
var templateDir string

var (
	templateMu sync.Mutex
	templates  = map[scenarioOpts]*scenario{}
)

// newScenario returns a fresh copy of the scenario that buildScenario makes:
// the first test to ask builds it with git, every test then gets its own copy
// of the files (worktree links rewritten to the new place), which costs no
// git process at all.
func newScenario(t testing.TB, o scenarioOpts) *scenario {
	t.Helper()
	tpl := template(t, o)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return copyScenario(t, tpl, filepath.Join(base, "repo"))
}

func template(t testing.TB, o scenarioOpts) *scenario {
	t.Helper()
	templateMu.Lock()
	defer templateMu.Unlock()
	if tpl, ok := templates[o]; ok {
		return tpl
	}
	dir := filepath.Join(templateDir, strconv.Itoa(len(templates)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tpl := buildScenario(t, dir, o)
	templates[o] = tpl
	return tpl
}

// copyScenario copies tpl's files to root and points the worktree links
// (<worktree>/.git and .git/worktrees/<id>/gitdir, the only files that hold
// absolute paths) at the copy.
func copyScenario(t testing.TB, tpl *scenario, root string) *scenario {
	t.Helper()
	err := filepath.WalkDir(tpl.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tpl.root, p)
		dst := filepath.Join(root, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == ".git" || (d.Name() == "gitdir" && strings.Contains(rel, filepath.Join(".git", "worktrees"))) {
			b = bytes.ReplaceAll(b, []byte(tpl.root), []byte(root))
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy the scenario: %v", err)
	}
	s := &scenario{root: root, wtDir: tpl.wtDir, tips: map[string]string{}, p2: tpl.p2}
	for k, v := range tpl.tips {
		s.tips[k] = v
	}
	for _, d := range tpl.dirty {
		c := *d
		c.path = s.wt(d.name)
		s.dirty = append(s.dirty, &c)
	}
	return s
}

// buildScenario builds the crash of examples/demo.sh: the seven-task plan of
// run x1y2z3 committed on main (with *.log ignored), x1y2z3-main in its
// worktree, 1.1 and 1.2 done, 2.1 done with its worktree left detached at its
// commit, and 2.2 and 2.3 detached and dirty in every way git knows: a staged
// new file, a file staged and then changed again, an unstaged change to a
// tracked file, untracked files (one in a new folder) and an ignored
// build.log. About twenty git processes.
func buildScenario(t testing.TB, base string, o scenarioOpts) *scenario {
	t.Helper()
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{root: filepath.Join(base, "repo"), wtDir: ".worktrees", tips: map[string]string{}}
	if o.wtDir != "" {
		s.wtDir = o.wtDir
	}
	root := s.root
	gitIn(t, base, "", "init", "-q", root)
	exclude := ".worktrees/\n"
	if s.wtDir != ".worktrees" {
		exclude += s.wtDir + "/\n"
	}
	writeFiles(t, root, map[string]string{
		"specs/" + run + "/plan.md": testbin.SevenTaskPlan(run),
		".gitignore":                "*.log\n",
		"README.md":                 readme,
		".git/info/exclude":         exclude,
	})
	if o.wtDir != "" {
		gitIn(t, root, "", "config", "taskresume.worktreeDir", o.wtDir)
	}
	gitIn(t, root, "", "add", "-A")
	gitIn(t, root, "", "commit", "-q", "-m", "Add plan for run "+run)
	gitIn(t, root, "", "worktree", "add", "-q", "-b", branchMain, s.wt(wtMain))

	// Tasks 1.1 and 1.2 and 2.1 are made one after the other in 2.1's
	// worktree (as a stacked agent would), then get their branches at once.
	w21 := s.wt(wt21)
	gitIn(t, root, "", "worktree", "add", "-q", "--detach", w21, branchMain)
	for _, step := range []struct{ msg, file, content string }{
		{"task 1.1: create database schema", "db/schema.sql", schema11},
		{"task 1.2: install dependencies", "package.json", "{\"name\": \"demo\"}\n"},
		{"task 2.1: user service", "src/services/user-service.ts", "export class UserService {}\n"},
	} {
		writeFiles(t, w21, map[string]string{step.file: step.content})
		gitIn(t, w21, "", "add", "-A")
		gitIn(t, w21, "", "commit", "-q", "-m", step.msg)
	}
	oids := strings.Fields(gitIn(t, w21, "", "rev-parse", "HEAD~2", "HEAD~1", "HEAD", branchMain))
	gitIn(t, root, fmt.Sprintf("create refs/heads/%s %s\ncreate refs/heads/%s %s\ncreate refs/heads/%s %s\n",
		branch11, oids[0], branch12, oids[1], branch21, oids[2]), "update-ref", "--stdin")
	s.tips[branch11], s.tips[branch12], s.tips[branch21], s.tips[branchMain] = oids[0], oids[1], oids[2], oids[3]
	s.tips["main"] = oids[3]
	s.p2 = oids[1]

	for _, c := range []struct{ id, name, what string }{{"2.2", wt22, "product"}, {"2.3", wt23, "order"}} {
		d := &dirtyWT{task: c.id, name: c.name, path: s.wt(c.name), head: s.p2}
		service := "src/services/" + c.what + "-service.ts"
		stagedSchema := schema11 + "CREATE TABLE " + c.what + "s (id int);\n"
		d.staged = map[string]string{
			service:         "export class " + c.what + "Service { /* half done */ }\n",
			"db/schema.sql": stagedSchema,
		}
		d.work = map[string]string{
			service:         d.staged[service],
			"db/schema.sql": stagedSchema + "-- " + c.what + ": unstaged afterthought\n",
			"README.md":     readme + "Task " + c.id + " was here.\n",
		}
		d.untracked = map[string]string{
			"NOTES.md":         "notes of task " + c.id + "\n",
			"scratch/todo.txt": "todo of task " + c.id + ": finish the " + c.what + " service\n",
		}
		d.ignored = map[string]string{"build.log": "build output of task " + c.id + "\n"}
		gitIn(t, root, "", "worktree", "add", "-q", "--detach", d.path, s.p2)
		writeFiles(t, d.path, d.staged)
		gitIn(t, d.path, "", "add", "--", service, "db/schema.sql")
		writeFiles(t, d.path, d.work)
		writeFiles(t, d.path, d.untracked)
		writeFiles(t, d.path, d.ignored)
		d.status = gitIn(t, d.path, "", "status", "--porcelain", "--untracked-files=all")
		s.dirty = append(s.dirty, d)
	}
	return s
}

// ---- reading the repository ----

// refs returns name -> object id of the refs under the patterns (all refs
// when none).
func refs(t testing.TB, dir string, patterns ...string) map[string]string {
	t.Helper()
	args := append([]string{"for-each-ref", "--format=%(refname) %(objectname)"}, patterns...)
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(git(t, dir, args...)), "\n") {
		if name, oid, ok := strings.Cut(l, " "); ok {
			m[name] = oid
		}
	}
	return m
}

func heads(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for name, oid := range refs(t, dir, "refs/heads/") {
		m[strings.TrimPrefix(name, "refs/heads/")] = oid
	}
	return m
}

// savedRefs lists refs under refs/taskclean/<run>/.
func savedRefs(t testing.TB, dir string) map[string]string {
	t.Helper()
	return refs(t, dir, "refs/taskclean/"+run+"/")
}

var savedRefRE = regexp.MustCompile(`^refs/taskclean/` + run + `/([0-9]{8}T[0-9]{6}\.[0-9]{9}Z)/(worktree|branch|ignored|admin)/(.+)$`)

// savedFor returns the saved refs of kind (worktree or branch) whose name is
// name, or name-<n> (a second save under one stamp), sorted.
func savedFor(saved map[string]string, kind, name string) []string {
	var out []string
	for ref := range saved {
		m := savedRefRE.FindStringSubmatch(ref)
		if m == nil || m[2] != kind {
			continue
		}
		if m[3] == name || regexp.MustCompile(`^`+regexp.QuoteMeta(name)+`-[0-9]+$`).MatchString(m[3]) {
			out = append(out, ref)
		}
	}
	sort.Strings(out)
	return out
}

type wtEntry struct {
	path, head, branch       string
	detached, locked, prunes bool
	lockReason               string
}

// worktrees parses `git worktree list --porcelain -z`.
func worktrees(t testing.TB, dir string) []wtEntry {
	t.Helper()
	var out []wtEntry
	var cur *wtEntry
	for _, attr := range strings.Split(git(t, dir, "worktree", "list", "--porcelain", "-z"), "\x00") {
		if attr == "" {
			cur = nil
			continue
		}
		k, v, _ := strings.Cut(attr, " ")
		if k == "worktree" {
			out = append(out, wtEntry{path: v})
			cur = &out[len(out)-1]
			continue
		}
		switch k {
		case "HEAD":
			cur.head = v
		case "branch":
			cur.branch = strings.TrimPrefix(v, "refs/heads/")
		case "detached":
			cur.detached = true
		case "locked":
			cur.locked, cur.lockReason = true, v
		case "prunable":
			cur.prunes = true
		}
	}
	return out
}

// worktreeSummary is the worktree list relative to the repository, one
// line each, for comparing repositories built in different directories.
func worktreeSummary(s *scenario, wts []wtEntry) []string {
	var out []string
	for _, w := range wts {
		rel, err := filepath.Rel(s.root, w.path)
		if err != nil {
			rel = w.path
		}
		out = append(out, fmt.Sprintf("%s head=%s branch=%s locked=%v prunable=%v", rel, w.head, w.branch, w.locked, w.prunes))
	}
	sort.Strings(out)
	return out
}

func registered(t testing.TB, s *scenario, path string) bool {
	t.Helper()
	for _, w := range worktrees(t, s.root) {
		if w.path == path {
			return true
		}
	}
	return false
}

type object struct {
	oid, typ, content string
	missing           bool
}

// catBatch reads many objects in one `git cat-file --batch`.
func catBatch(t testing.TB, dir string, specs []string) map[string]object {
	t.Helper()
	out := testbin.RunStdin(dir, []string{"GIT_OPTIONAL_LOCKS=0"}, strings.Join(specs, "\n")+"\n", "git", "cat-file", "--batch")
	if out.Code != 0 {
		t.Fatalf("git cat-file --batch: exit %d: %s", out.Code, out.Stderr)
	}
	r := bufio.NewReader(strings.NewReader(out.Stdout))
	res := map[string]object{}
	for _, spec := range specs {
		header, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file --batch: short output for %q", spec)
		}
		header = strings.TrimSuffix(header, "\n")
		if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
			res[spec] = object{missing: true}
			continue
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			t.Fatalf("cat-file --batch: bad header %q", header)
		}
		n, _ := strconv.Atoi(f[2])
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatalf("cat-file --batch: %v", err)
		}
		res[spec] = object{oid: f[0], typ: f[1], content: string(buf[:n])}
	}
	return res
}

// savedContentErr says what of d's uncommitted work ref does not hold: the
// index commit (ref^2) must have the staged contents, the worktree commit
// (ref) every tracked file as it was in the working tree, the untracked
// commit (ref^3) the untracked files; the first parent is the HEAD; ignored
// files are in none of them.
func savedContentErr(t testing.TB, dir, ref string, d *dirtyWT) error {
	t.Helper()
	type want struct{ spec, content string }
	var wants []want
	for _, p := range sortedKeys(d.staged) {
		wants = append(wants, want{ref + "^2:" + p, d.staged[p]})
	}
	for _, p := range sortedKeys(d.work) {
		wants = append(wants, want{ref + ":" + p, d.work[p]})
	}
	for _, p := range sortedKeys(d.untracked) {
		wants = append(wants, want{ref + "^3:" + p, d.untracked[p]})
	}
	specs := []string{ref + "^1"}
	for _, w := range wants {
		specs = append(specs, w.spec)
	}
	var notSaved []string
	for p := range d.ignored {
		for _, c := range []string{"", "^2", "^3"} {
			notSaved = append(notSaved, ref+c+":"+p)
		}
	}
	specs = append(specs, notSaved...)
	got := catBatch(t, dir, specs)
	var errs []string
	if h := got[ref+"^1"]; h.oid != d.head {
		errs = append(errs, fmt.Sprintf("%s^1 is %q, want the worktree's HEAD %s", ref, h.oid, d.head))
	}
	for _, w := range wants {
		if g := got[w.spec]; g.missing || g.content != w.content {
			errs = append(errs, fmt.Sprintf("%s = %q (missing=%v), want %q", w.spec, g.content, g.missing, w.content))
		}
	}
	for _, spec := range notSaved {
		if !got[spec].missing {
			errs = append(errs, fmt.Sprintf("%s exists: an ignored file was saved", spec))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s does not hold %s's work:\n  %s", ref, d.name, strings.Join(errs, "\n  "))
	}
	return nil
}

// intactErr says how d's directory differs from what the agent left:
// registered, every file with its content, the index holding the staged
// contents, and the same git status. withIgnored also wants the ignored
// files (a restore does not bring them back).
func intactErr(t testing.TB, s *scenario, d *dirtyWT, withIgnored bool) error {
	t.Helper()
	return intactErrIn(t, worktrees(t, s.root), d, withIgnored)
}

// intactErrIn is intactErr with the worktree list already read.
func intactErrIn(t testing.TB, wts []wtEntry, d *dirtyWT, withIgnored bool) error {
	t.Helper()
	if !testbin.Exists(d.path) {
		return fmt.Errorf("%s is gone", d.path)
	}
	var errs []string
	found := false
	for _, w := range wts {
		found = found || w.path == d.path && !w.prunes
	}
	if !found {
		errs = append(errs, "not a registered worktree")
	}
	files := map[string]string{}
	for _, m := range []map[string]string{d.work, d.untracked} {
		for p, c := range m {
			files[p] = c
		}
	}
	if withIgnored {
		for p, c := range d.ignored {
			files[p] = c
		}
	}
	for _, p := range sortedKeys(files) {
		b, err := os.ReadFile(filepath.Join(d.path, p))
		if err != nil || string(b) != files[p] {
			errs = append(errs, fmt.Sprintf("%s: %q (%v), want %q", p, b, err, files[p]))
		}
	}
	var specs []string
	for _, p := range sortedKeys(d.staged) {
		specs = append(specs, ":"+p)
	}
	got := catBatch(t, d.path, specs)
	for _, p := range sortedKeys(d.staged) {
		if g := got[":"+p]; g.missing || g.content != d.staged[p] {
			errs = append(errs, fmt.Sprintf("index %s: %q, want %q", p, g.content, d.staged[p]))
		}
	}
	if st := git(t, d.path, "status", "--porcelain", "--untracked-files=all"); st != d.status {
		errs = append(errs, fmt.Sprintf("git status:\n%s\nwant:\n%s", st, d.status))
	}
	if len(errs) > 0 {
		return fmt.Errorf("worktree %s is not intact:\n  %s", d.path, strings.Join(errs, "\n  "))
	}
	return nil
}

// savedSomewhere reports whether some saved worktree ref of d holds all of
// its work, and the errors of those that do not.
func savedSomewhere(t testing.TB, s *scenario, d *dirtyWT) (string, error) {
	t.Helper()
	return savedIn(t, s, savedRefs(t, s.root), d)
}

// savedIn is savedSomewhere with the saved refs already read.
func savedIn(t testing.TB, s *scenario, saved map[string]string, d *dirtyWT) (string, error) {
	t.Helper()
	cands := savedFor(saved, "worktree", d.name)
	if len(cands) == 0 {
		return "", fmt.Errorf("no ref under refs/taskclean/%s/*/worktree/ for %s", run, d.name)
	}
	var errs []string
	for _, ref := range cands {
		err := savedContentErr(t, s.root, ref, d)
		if err == nil {
			return ref, nil
		}
		errs = append(errs, err.Error())
	}
	return "", fmt.Errorf("%s", strings.Join(errs, "\n"))
}

// reachableFromRefs returns the subset of commits reachable from some ref
// (HEADs and reflogs do not count).
func reachableFromRefs(t testing.TB, dir string, commits []string) map[string]bool {
	t.Helper()
	return reachableFrom(t, dir, refs(t, dir), commits)
}

// reachableFrom is reachableFromRefs with the refs already read.
func reachableFrom(t testing.TB, dir string, all map[string]string, commits []string) map[string]bool {
	t.Helper()
	var tips []string
	for _, oid := range all {
		tips = append(tips, oid)
	}
	seen := map[string]bool{}
	if len(tips) > 0 {
		out := testbin.RunStdin(dir, []string{"GIT_OPTIONAL_LOCKS=0"}, strings.Join(tips, "\n")+"\n", "git", "rev-list", "--stdin")
		if out.Code != 0 {
			t.Fatalf("rev-list: %s", out.Stderr)
		}
		for _, l := range strings.Fields(out.Stdout) {
			seen[l] = true
		}
	}
	res := map[string]bool{}
	for _, c := range commits {
		if seen[c] {
			res[c] = true
		}
	}
	return res
}

// treeHash hashes every file, link and directory under root, .git included.
func treeHash(t testing.TB, root string) map[string]string {
	t.Helper()
	res := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			res[rel] = "link " + target
		case d.IsDir():
			res[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			res[rel] = fmt.Sprintf("file %v %x", info.Mode(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func diffMaps(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "- "+k+" "+v)
		} else if v != w {
			out = append(out, "~ "+k+" "+v+" -> "+w)
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+ "+k+" "+v)
		}
	}
	sort.Strings(out)
	return out
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// lineWith returns the first line of out that contains every part.
func lineWith(out string, parts ...string) (string, bool) {
	for _, l := range lines(out) {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return l, true
		}
	}
	return "", false
}

// restoreCommands reads `--undo` output: path -> the command printed on the
// line after "to bring it back:".
func restoreCommands(out string) map[string]string {
	res := map[string]string{}
	ls := strings.Split(out, "\n")
	for i, l := range ls {
		if rest, ok := strings.CutPrefix(l, "saved worktree "); ok && strings.HasSuffix(l, "; to bring it back:") && i+1 < len(ls) {
			res[strings.TrimSuffix(rest, "; to bring it back:")] = strings.TrimSpace(ls[i+1])
		}
	}
	return res
}

// sh runs a printed command line through the shell, as a user would paste it.
func sh(t testing.TB, dir, cmdline string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
}

func lockFile(t testing.TB, s *scenario) string {
	t.Helper()
	return filepath.Join(s.root, ".git", "taskclean-"+run+".lock")
}
