// Package formatcmp measures the hand-written readers of git formats in
// this module beside the go-git package that reads the same format, on the
// same inputs: first whether each gives what git itself reads from the file
// (git is the judge), then how fast. docs/DESIGN.md, "What each dependency
// does" holds the figures and the decisions taken from them.
//
// It is a module of its own (go.mod here, the main module replaced by
// ../..): go-git's object and storage packages it compares pull a dozen
// modules (OpenPGP, go-billy...) the commands do not link, and they stay out
// of the main module's go.mod and out of its `go test ./...`. The
// comparisons build git repositories (a 100,000-entry index among them) and
// are skipped unless FORMATCMP is set. From this directory:
//
//	FORMATCMP=1 go test -count=1 -v -run . .                          # correctness tables
//	FORMATCMP=1 go test -count=3 -run '^$' -bench . -benchmem .       # speed
//	FORMATCMP=1 go test -tags sha256 -count=1 -v -run . .             # go-git built for SHA-256
//
// The index comparison also reads the fuzz corpus of the index reader:
// FuzzReadIndex's seeds (real indexes, rebuilt here) and the inputs `go test
// -fuzz FuzzReadIndex ./internal/worktree` left in the build cache
// ($GOCACHE/fuzz/.../FuzzReadIndex), or those of FORMATCMP_CORPUS.
package formatcmp
