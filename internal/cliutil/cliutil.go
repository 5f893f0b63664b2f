// Package cliutil holds what both commands share about their command line:
// argument order, flags, durations, suggestions for a mistyped flag, help
// and man pages, and Run, which prints an error as one line and exits with
// the code internal/exit chooses for it.
package cliutil

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/manpage"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
)

// Permute moves flags before positional arguments, so that
// `git taskresume x1y2z3 --json` works: urfave/cli v2, like Go's flag
// package, stops at the first argument. Flags that take a value keep it;
// everything after "--" stays positional.
func Permute(args []string, flags []cli.Flag) ([]string, error) {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var opts, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			opts = append(opts, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				if i+1 >= len(args) || args[i+1] == "--" {
					return nil, exit.BadInput("flag %s needs a value", a)
				}
				opts = append(opts, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return opts, nil
	}
	return append(append(opts, "--"), pos...), nil
}

// Command is one program: its flags and action, and its manual.
type Command struct {
	App  *cli.App
	Page *manpage.Page
	// Hints finish the message for an unknown flag that the user may have
	// meant for the other command, by flag name.
	Hints map[string]string
}

// Run runs the command and maps the outcome to an exit code, printing
// errors as one `error:` line on stderr. It answers -h (the summary),
// --help and a lone "help" argument (the manual as text: git hands --help
// to man, and only `git-x --help` run directly reaches here), --man (roff)
// and --version itself, before urfave/cli parses anything.
func Run(cmd Command, args []string, stdout, stderr io.Writer) int {
	app := cmd.App
	app.HideHelp, app.HideHelpCommand, app.HideVersion = true, true, true
	app.Writer, app.ErrWriter = stdout, stderr
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return valueError(err, app.Flags)
	}
	rest, err := Permute(args[1:], app.Flags)
	if err == nil {
		var done bool
		done, err = cmd.early(args[1:], rest, stdout)
		if done && err == nil {
			return exit.OK
		}
	}
	if err == nil {
		err = app.RunContext(context.Background(), append([]string{args[0]}, rest...))
	}
	if exit.Printed(err) {
		fmt.Fprintf(stderr, "error: %s\n", strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", " "))
	}
	return exit.Code(err)
}

// early answers the help and version flags, and refuses an unknown flag
// with the nearest known one, before the command does anything.
func (cmd Command) early(args, permuted []string, stdout io.Writer) (bool, error) {
	if len(args) == 1 && args[0] == "help" && cmd.Page != nil {
		return true, cmd.Page.Text(stdout, 80)
	}
	known := map[string]cli.Flag{}
	for _, f := range cmd.App.Flags {
		for _, n := range f.Names() {
			known[n] = f
		}
	}
	var unknown error
	for i := 0; i < len(permuted); i++ {
		a := permuted[i]
		if a == "--" {
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "h":
			if cmd.Page != nil {
				return true, cmd.Page.Usage(stdout)
			}
		case "help":
			if cmd.Page != nil {
				return true, cmd.Page.Text(stdout, 80)
			}
		}
		f, ok := known[name]
		if !ok {
			if unknown == nil {
				unknown = cmd.unknownFlag(a)
			}
			continue
		}
		if _, isBool := f.(*cli.BoolFlag); !isBool && !hasValue {
			i++ // its value, which may start with a dash
		}
	}
	if unknown != nil {
		return false, unknown
	}
	for _, a := range permuted {
		switch a {
		case "--":
			return false, nil
		case "--man", "-man":
			if cmd.Page != nil {
				return true, cmd.Page.Roff(stdout)
			}
		case "--version", "-version":
			if _, ok := known["version"]; ok {
				return true, cmd.printVersion(permuted, stdout)
			}
		}
	}
	return false, nil
}

// printVersion answers --version: "<name> <version>", one line that a
// script can cut, or with --json the version.Info object and the name. The
// other known flags beside --version are ignored rather than refused:
// nothing runs, so they cannot change what is printed, and a wrapper or
// alias that always adds flags (--json, --remote) still gets the version.
// An unknown flag was refused before this.
func (cmd Command) printVersion(permuted []string, stdout io.Writer) error {
	asJSON, err := boolFlag(permuted, "json")
	if err != nil {
		return err
	}
	info := version.Get()
	if !asJSON {
		_, err := fmt.Fprintf(stdout, "%s %s\n", cmd.App.Name, info.Version)
		return err
	}
	doc, err := info.JSON(cmd.App.Name)
	if err != nil {
		return err
	}
	_, err = stdout.Write(append(doc, '\n'))
	return err
}

// boolFlag is the value of boolean flag name among the flags (up to "--"),
// as the flag package reads it: the last occurrence wins, "--name" alone
// is true, "--name=false" false.
func boolFlag(permuted []string, name string) (bool, error) {
	on := false
	for _, a := range permuted {
		if a == "--" {
			break
		}
		n, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n != name || !strings.HasPrefix(a, "-") {
			continue
		}
		if !hasValue {
			on = true
			continue
		}
		b, err := strconv.ParseBool(value)
		if err != nil {
			dashes := "--"
			if len(name) == 1 {
				dashes = "-"
			}
			return false, exit.BadInput("%s%s %q: want true or false (or the flag alone)", dashes, name, value)
		}
		on = b
	}
	return on, nil
}

// unknownFlag is the error for flag a as the user typed it, naming the
// flag meant when one is close.
func (cmd Command) unknownFlag(a string) error {
	typed, _, _ := strings.Cut(a, "=")
	name := strings.TrimLeft(typed, "-")
	msg := "unknown flag " + typed
	if hint, ok := cmd.Hints[name]; ok {
		return &exit.BadInputError{Msg: msg + ": " + hint}
	}
	var names []string
	for _, f := range cmd.App.Flags {
		if hidden, ok := f.(interface{ IsVisible() bool }); ok && !hidden.IsVisible() {
			continue
		}
		names = append(names, f.Names()...)
	}
	if s := Suggest(name, names); s != "" {
		dashes := "--"
		if len(s) == 1 {
			dashes = "-"
		}
		msg += "; did you mean " + dashes + s + "?"
	}
	return &exit.BadInputError{Msg: msg + " (see -h)"}
}

// Suggest is the one name among names close enough to typed to be what
// was meant: within one edit for short names, two for longer ones, or
// the only name typed starts (from three letters on); "" when none is,
// or when two are equally close.
func Suggest(typed string, names []string) string {
	typed = strings.ToLower(typed)
	best, bestD, tie := "", 1<<30, false
	for _, n := range names {
		if len(n) < 2 {
			continue
		}
		d := ui.EditDistance(typed, n)
		switch {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD && n != best:
			tie = true
		}
	}
	limit := 1
	if len(typed) > 4 {
		limit = 2
	}
	if bestD <= limit && !tie && bestD < len(typed) {
		return best
	}
	if len(typed) >= 3 {
		match := ""
		for _, n := range names {
			if strings.HasPrefix(n, typed) {
				if match != "" && match != n {
					return ""
				}
				match = n
			}
		}
		return match
	}
	return ""
}

// flagError is how the flag package reports a value it could not read.
var flagError = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)

// valueError turns the flag package's message for a bad value into one
// that names the flag as typed and says what is wanted.
func valueError(err error, flags []cli.Flag) error {
	m := flagError.FindStringSubmatch(err.Error())
	if m == nil {
		return &exit.BadInputError{Msg: err.Error() + " (see -h)"}
	}
	value, name, why := m[1], m[2], m[3]
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.IntFlag:
			why = "want a whole number, e.g. 2"
		case *cli.BoolFlag:
			why = "want true or false (or the flag alone)"
		}
	}
	dashes := "--"
	if len(name) == 1 {
		dashes = "-"
	}
	return exit.BadInput("%s%s %s: %s", dashes, name, value, why)
}

// Bools are boolean flags, by name.
func Bools(names ...string) []cli.Flag {
	flags := make([]cli.Flag, len(names))
	for i, n := range names {
		flags[i] = &cli.BoolFlag{Name: n}
	}
	return flags
}

// Strings are flags that take one string each, by name.
func Strings(names ...string) []cli.Flag {
	flags := make([]cli.Flag, len(names))
	for i, n := range names {
		flags[i] = &cli.StringFlag{Name: n}
	}
	return flags
}

// Common are the flags of both commands that Run answers itself: --man
// (the roff page, hidden) and --version.
func Common() []cli.Flag {
	return []cli.Flag{&cli.BoolFlag{Name: "man", Hidden: true}, &cli.BoolFlag{Name: "version"}}
}

// NewApp is a command's definition for urfave/cli: its name, summary and
// version from its manual page (so that they are written once), its flags
// and its action.
func NewApp(page *manpage.Page, stdout io.Writer, flags []cli.Flag, action cli.ActionFunc) *cli.App {
	return &cli.App{Name: page.Name, Usage: page.Summary, Version: page.Version, Writer: stdout, Flags: flags, Action: action}
}
