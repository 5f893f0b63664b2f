// Package noloss holds the end-to-end tests of git-taskclean's no-loss promise.
package noloss
