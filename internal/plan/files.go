package plan

import (
	"strings"
)

// This file reads which files a task says it works on: its Files line, or
// the list under an empty one, or a checklist task's "files:" field. The
// completion rule asks one thing of them: whether a task names a path
// (NamesFile), so that a task whose work is to edit the plan itself keeps
// its plan-only commits (docs/DESIGN.md, "Step 4: whose work each commit
// is").

// taskFiles reads the Files of a line under a task heading (item is the
// line's list item, isItem whether it is one): "Files: `a`, `b`" (any
// label form, as a list item or not), or an empty "**Files**:" followed by
// a list of paths, which ends at the first line that is neither blank nor
// a list item.
func (p *parser) taskFiles(l, item string, isItem bool) {
	if v, ok := labelValue(l, "files"); ok {
		if v == "" {
			p.fileList = p.task
		} else {
			p.fileList = nil
			p.task.Files = append(p.task.Files, fileEntries(v)...)
		}
		return
	}
	if p.fileList == nil {
		return
	}
	switch {
	case isItem:
		p.task.Files = append(p.task.Files, fileEntries(item)...)
	case trimBlank(l) != "":
		p.fileList = nil
	}
}

// checklistFiles are the paths of a checklist task's "files:" field
// ("- [ ] **Task 1.1**: Title | files: src/a.ts, src/b.ts").
func checklistFiles(meta []string) []string {
	var out []string
	for _, f := range meta {
		if v, ok := labelValue(f, "files"); ok {
			out = append(out, fileEntries(v)...)
		}
	}
	return out
}

// fileEntries reads the paths of one Files value or list item, in the
// forms plans write: "`a`, `b`", "a, b", "Create: `src/x.ts`",
// "Modify: `src/x.ts:12-20`", "`src/x.ts` (new)", "src/x.ts - the
// service". Each comma-separated part gives one path: its first word
// (after a "Create:"-like label), backticks dropped; a path with a blank
// in it is not read whole.
func fileEntries(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = trimBlank(part)
		// The label reader took one layer of backticks off the whole
		// value ("`a`, `b`" reads "a`, `b"): the backticks say nothing.
		part = strings.ReplaceAll(part, "`", "")
		if label, rest, ok := strings.Cut(part, ": "); ok && !strings.ContainsAny(label, " /.") {
			part = rest // "Create: src/x.ts"
		}
		path := ""
		if f := strings.Fields(part); len(f) > 0 {
			path = f[0]
		}
		if path = cleanFilePath(path); path != "" {
			out = append(out, path)
		}
	}
	return out
}

// cleanFilePath drops what is not the path: quotes and bold, a line range
// ("x.ts:12-20"), a leading "./" or "/", a trailing "/" of a directory.
func cleanFilePath(s string) string {
	s = strings.Trim(trimBlank(s), "\"'*_")
	if i := strings.LastIndexByte(s, ':'); i >= 0 && i+1 < len(s) && strings.Trim(s[i+1:], "0123456789-") == "" {
		s = s[:i]
	}
	s = strings.TrimPrefix(s, "./")
	s = strings.Trim(s, "/")
	return s
}

// NamesFile says whether the task's Files name path (a path inside the
// repository, "/"-separated): the path itself, or the folder a plan split
// by phase keeps its files in (".../plan/plan-phase1.md": ".../plan"). A
// wider directory ("specs/", "docs/") holds other files too: a task that
// writes its docs there does not make the orchestrator's edits of the plan
// its work. Paths are compared exactly, case and all; a glob
// ("tests/*.ts") names no file: a task's Files are read to keep work that
// is the plan's own, and an exact name is the only one that says so.
func (t *Task) NamesFile(path string) bool {
	folder := ""
	if i := strings.LastIndexByte(path, '/'); i >= 0 && strings.HasSuffix(path[:i], "/plan") && strings.HasPrefix(path[i+1:], "plan-phase") {
		folder = path[:i]
	}
	for _, f := range t.Files {
		if f == path || folder != "" && f == folder {
			return true
		}
	}
	return false
}
