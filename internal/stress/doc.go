// Package stress holds only tests: two randomised loops that try to break
// git-taskclean's no-loss promise through its real binaries.
//
// The random-kill loop starts a clean, SIGKILLs its whole process group at a
// random moment, reruns the same command to completion, and then checks that
// every file byte and commit that existed before is still in a kept worktree
// or reachable from a ref, and that no git lock file or temporary folder of
// the clean is left behind. The late-writer loop writes a new file into a
// stale worktree while a clean removes it, by absolute path and from a
// process working inside it, and checks that every write that reported
// success survived.
//
// `go test ./internal/stress` runs short versions; STRESS_KILLS and
// STRESS_WRITERS raise the number of tries, and bench/stress.sh runs the long
// ones.
package stress
