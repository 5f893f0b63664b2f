// Package installtest holds the tests of the ways to install the commands:
// install.sh on a release archive laid out as .goreleaser.yaml lays one out,
// with a PATH that has no Go; install.sh in a source checkout; and go
// install at a release tag, from a local module proxy; each checked for the
// version the installed commands say. It has no code of its own.
package installtest
