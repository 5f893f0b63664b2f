// Package plan reads the Markdown task plan of a run and derives the names
// that git-taskresume and git-taskclean give to its tasks. docs/PLAN-FORMAT.md
// lists every form it accepts; docs/DESIGN.md, "Where the plan format is
// silent", gives the reasons for each decision no source made for us (why
// a misspelt heading is an error, why a phase without a mode is
// sequential).
//
// The parser reads the plan one line at a time and never uses regular
// expressions or backtracking, so its cost stays linear in the size of the
// file: a plan is user input and may be huge or hostile.
package plan
