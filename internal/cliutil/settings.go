package cliutil

import "github.com/taskresume/git-taskresume/internal/manpage"

// ConfigDuration is how the pages say what a duration key takes: git
// config values go to time.ParseDuration, which knows no days or weeks
// (the flags' durations do).
const ConfigDuration = "a duration with a unit, `ms`, `s`, `m` or `h`, combined as in `1m30s` (no `d` or `w`)"

// SharedSettings are the CONFIGURATION entries both commands' pages share:
// the command's colour key (color.taskresume or color.taskclean, named
// whole), color.ui, and git's checkout.defaultRemote. output names what the
// colour applies to.
func SharedSettings(colorKey, output string) []manpage.Block {
	key := "`" + colorKey + "`"
	return []manpage.Block{
		manpage.Item{Tag: key, Text: "Whether " + output + " is coloured, as git's own " +
			"`color.<command>` keys: `always` (a pipe too, even with `NO_COLOR` set), `never` or `false` " +
			"(not even a terminal), `auto`, `true` or set with no value (a terminal only, unless " +
			"`NO_COLOR` is set or `TERM` is `dumb`). Unset: `color.ui`. JSON is never coloured."},
		manpage.Item{Tag: "`color.ui`", Text: "The colour setting for every command that has no " +
			"`color.<command>` of its own (see git-config(1)): read when " + key + " is unset, " +
			"with the same values. Neither set: `auto`."},
		manpage.Item{Tag: "`checkout.defaultRemote`", Text: "git's own key (see git-config(1)): when " +
			"several remotes hold the run's branches, their copies differ and neither `--remote` nor " +
			"`taskresume.remote` is given, the run is read from this remote."},
	}
}
