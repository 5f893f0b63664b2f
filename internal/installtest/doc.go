// Package installtest holds the test of install.sh on a release archive: it
// builds an archive laid out as .goreleaser.yaml lays one out and installs
// it with a PATH that has no Go. It has no code of its own.
package installtest
