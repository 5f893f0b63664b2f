// Package clitest holds what the tests of both commands' command lines
// share: a refusal checked the way users see it, and a command line parsed
// the way cliutil.Run parses it.
package clitest

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cliutil"
)

// Refused runs a command's Main with args (split on spaces) and requires
// exit 2, nothing on stdout and one error line on stderr holding want.
func Refused(t *testing.T, main func([]string, io.Writer, io.Writer) int, prog, args, want string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := main(append([]string{prog}, strings.Fields(args)...), &out, &errb)
	if code != 2 || out.Len() != 0 {
		t.Fatalf("%s %s: exit %d, stdout %q; want exit 2 and nothing", prog, args, code, out.String())
	}
	if got := errb.String(); !strings.HasPrefix(got, "error: ") || strings.Count(got, "\n") != 1 || !strings.Contains(got, want) {
		t.Fatalf("%s %s: stderr %q; want one error line with %q", prog, args, got, want)
	}
}

// Parse runs app on args (split on spaces, flags moved first as
// cliutil.Run moves them) with read as its action, failing the test when
// the command line or read is refused.
func Parse(t *testing.T, app *cli.App, args string, read func(*cli.Context) error) {
	t.Helper()
	app.HideHelp, app.HideHelpCommand, app.HideVersion = true, true, true
	app.Action = read
	argv, err := cliutil.Permute(strings.Fields(args), app.Flags)
	if err == nil {
		err = app.Run(append([]string{app.Name}, argv...))
	}
	if err != nil {
		t.Fatalf("%s %s: %v", app.Name, args, err)
	}
}
