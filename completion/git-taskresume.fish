# fish completion for `git taskresume` and `git-taskresume`.
#
# The completions are written for the command git-taskresume; fish loads
# this file from a completions directory (e.g.
# ~/.local/share/fish/vendor_completions.d/) when git-taskresume is on PATH.
# Fish's own git completion hands `git taskresume ...` to them in releases
# 3.2 to 3.5 and from 3.6.1 on; 3.6.0 (Debian 12's) and older do not, so the
# `complete -c git` lines at the end do it too. They only take effect once
# this file is loaded, which for `git taskresume` means from a conf.d
# directory (e.g. ~/.local/share/fish/vendor_conf.d/), read at start. Loaded
# both ways, each match is still shown once.
#
# Runs and tasks are read from `git taskresume --json`, as the bash
# completion does. git-taskclean.fish uses the helpers defined here.

# The run or task id fields of the JSON, one object at a time: "id" (or
# "run_id"), then "title" for a task, then "status". Phases have no "id", so
# a status belongs to a task only right after an id.
function __git_taskresume_json_ids --argument-names key
    set -l id
    set -l title
    set -l m
    while read -l line
        if set m (string match -r '^\s*"'$key'": "(.*)",$' -- $line)
            set id $m[2]
            set title
        else if not set -q id[1]
            continue
        else if set m (string match -r '^\s*"title": "(.*)",$' -- $line)
            set title "$m[2] "
        else if set m (string match -r '^\s*"status": "(.*)",$' -- $line)
            if test -n "$title"
                printf '%s\t%s(%s)\n' $id $title $m[2]
            else
                printf '%s\t%s\n' $id $m[2]
            end
            set id
        end
    end
end

function __git_taskresume_runs
    command git taskresume --list --json 2>/dev/null | __git_taskresume_json_ids run_id
end

# __git_taskresume_tasks RUN: the task ids of RUN's plan, with their titles.
function __git_taskresume_tasks --argument-names run
    test -n "$run"; or return
    command git taskresume --json $run 2>/dev/null | __git_taskresume_json_ids id
end

function __git_taskresume_remotes
    command git remote 2>/dev/null
end

function __git_taskresume_refs
    command git for-each-ref --format='%(refname:short)' refs/heads refs/remotes refs/tags 2>/dev/null
end

# __git_taskresume_args OPT...: the words of the command line after the
# command, up to the cursor, without the values of the options OPT... that
# take one (given as a separate word) and without options.
function __git_taskresume_args
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip
    for w in $words
        if test -n "$skip"
            set skip
        else if contains -- $w $argv
            set skip 1
        else if not string match -q -- '-*' $w
            echo $w
        end
    end
end

function __git_taskresume_run
    set -l args (__git_taskresume_args --base --plan --plan-run-id --from-phase --remote --as --ttl --renew --release --format --schedule)
    echo $args[1]
end

# A run id comes first, unless one is there already or --list needs none;
# with --check-plan, a run and a plan's path in either order.
function __git_taskresume_needs_run
    set -l words (commandline -opc)
    contains -- --list $words; and return 1
    set -l args (__git_taskresume_args --base --plan --plan-run-id --from-phase --remote --as --ttl --renew --release --format --schedule)
    if contains -- --check-plan $words
        test (count $args) -lt 2
    else
        test (count $args) -eq 0
    end
end

function __git_taskresume_needs_plan_path
    set -l words (commandline -opc)
    contains -- --check-plan $words; or return 1
    __git_taskresume_needs_run
end

function __git_taskresume_prev_is --argument-names opt
    set -l words (commandline -opc)
    test "$words[-1]" = "$opt"
end

complete -c git-taskresume -f
complete -c git-taskresume -n __git_taskresume_needs_run -a '(__git_taskresume_runs)'
complete -c git-taskresume -l json -d 'Write one JSON document (schema_version 2) instead of the report'
complete -c git-taskresume -s q -l quiet -d 'No progress lines on stderr'
complete -c git-taskresume -l exit-code -d 'Exit 1 when the run is not complete (a CI gate)'
complete -c git-taskresume -l sizes -d 'Also show what each worktree of the run takes on disk'
complete -c git-taskresume -l next -d 'Print the runnable task ids, one per line, and nothing else'
complete -c git-taskresume -l short -d 'The run at a glance: a line a phase, then where it resumes'
complete -c git-taskresume -l format -x -a markdown -d 'Write the report as Markdown, with a Mermaid graph'
complete -c git-taskresume -l list -d 'List every run found with its progress'
complete -c git-taskresume -l base -x -a '(__git_taskresume_refs)' -d 'Count own commits against REF'
complete -c git-taskresume -l plan -r -F -d 'Read the plan from PATH, or from a commit as REV:PATH'
complete -c git-taskresume -l plan-run-id -x -a '(__git_taskresume_runs)' -d 'Read the --plan plan for this run although it names run ID'
complete -c git-taskresume -l from-phase -x -d 'Put phases before N out of scope'
complete -c git-taskresume -l schedule -x -a 'phases deps' -d 'Choose what runs next by phases or by dependencies'
complete -c git-taskresume -l remote -x -a '(__git_taskresume_remotes)' -d "Read the run's branches and claims from remote NAME"
complete -c git-taskresume -l claim -d 'Take the first runnable task nobody holds, print its id'
complete -c git-taskresume -l as -x -d "The claim holder's name"
complete -c git-taskresume -l ttl -x -d 'A claim expires after DURATION unless renewed'
complete -c git-taskresume -l renew -x -a '(__git_taskresume_tasks (__git_taskresume_run))' -d "Extend the holder's claim of task ID by --ttl"
complete -c git-taskresume -l release -x -a '(__git_taskresume_tasks (__git_taskresume_run))' -d "Drop the holder's claim of task ID"
complete -c git-taskresume -l check-plan -d 'Print the plan as read: phases, tasks, branches, warnings'
complete -c git-taskresume -n __git_taskresume_needs_plan_path -F
complete -c git-taskresume -s h -l help -d 'Show help'
complete -c git-taskresume -l version -d 'Print the version'

# `git taskresume ...`: the same completions, asked of git-taskresume with
# the words after `taskresume`.
function __git_taskresume_from_git --argument-names cmd
    set -l words (commandline -opc)
    set -l i (contains -i -- $cmd $words)
    or return
    set -e words[1..$i]
    set -l args
    for w in $words
        set -a args (string escape -- $w)
    end
    complete -C "git-$cmd $args "(commandline -ct)
end

# The command itself after `git` (fish 3.6.0 lists no git-* command).
complete -c git -f -n 'functions -q __fish_git_needs_command; and __fish_git_needs_command' -a taskresume -d 'Show where a crashed plan run stopped and what can run next'
complete -c git -f -n 'functions -q __fish_git_using_command; and __fish_git_using_command taskresume' -a '(__git_taskresume_from_git taskresume)'
