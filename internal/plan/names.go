package plan

// This file derives the branch names of a run's tasks from their ids and
// titles.

// Slug turns a task title into the branch-name suffix: ASCII-only lower-casing
// (A-Z -> a-z), every run of characters outside [a-z0-9] (including all
// non-ASCII) becomes one "-", and leading and trailing "-" are dropped.
// It is ASCII-only on purpose, so every implementation, shell script and
// locale derives the same branch name from the same title.
// "Create database schema" -> "create-database-schema"; "API: v2 (beta)!" ->
// "api-v2-beta"; an all-emoji or all-CJK title -> "".
func Slug(title string) string {
	b := make([]byte, 0, len(title))
	gap := false
	for i := 0; i < len(title); i++ {
		c := title[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if gap && len(b) > 0 {
				b = append(b, '-')
			}
			gap = false
			b = append(b, c)
			continue
		}
		gap = true
	}
	return string(b)
}

// BranchName is the branch of task t in run: "<run>-task-<dashed id>-<slug>",
// or "<run>-task-<dashed id>" when the title has no slug (an all-emoji title),
// so that no branch name ends in "-". t must not be nil.
func BranchName(run string, t *Task) string {
	name := run + "-task-" + DashedID(t.ID)
	if s := Slug(t.Title); s != "" {
		name += "-" + s
	}
	return name
}

// BranchPrefix is "<run>-task-<dashed id>-", the prefix a branch must start
// with to belong to task id when its name is not exactly BranchName: the
// title may have been edited since the branch was made, or the agent chose
// its own short name.
func BranchPrefix(run, id string) string { return run + "-task-" + DashedID(id) + "-" }
