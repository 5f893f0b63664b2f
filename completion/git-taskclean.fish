# fish completion for `git taskclean` and `git-taskclean`: see
# git-taskresume.fish, which must sit beside this file (its run and task
# helpers are used here) and says how fish hands `git taskclean` to these.

if not functions -q __git_taskresume_tasks
    set -l here (string replace -r '[^/]*$' '' -- (status filename))
    test -f $here/git-taskresume.fish; and source $here/git-taskresume.fish
end

# The run given with --run ID or --run=ID (the last one).
function __git_taskclean_run
    set -l words (commandline -opc)
    set -l run
    set -l next
    for w in $words
        if test -n "$next"
            set run $w
            set next
        else if test "$w" = --run
            set next 1
        else if string match -q -- '--run=*' $w
            set run (string replace -- '--run=' '' $w)
        end
    end
    echo $run
end

# The stamps of the run's saved cleans, newest first (--undo's optional word,
# --from's value).
function __git_taskclean_stamps
    set -l run (__git_taskclean_run)
    test -n "$run"; or return
    command git for-each-ref --sort=-refname --format='%(refname)' refs/taskclean/$run/ 2>/dev/null |
        string replace -r '^refs/taskclean/[^/]*/([^/]*)/.*$' '$1' | uniq
end

complete -c git-taskclean -f
# --undo, --restore, --backups and --expire-backups refuse the flags that
# shape a clean: those are offered only until one of them is given.
complete -c git-taskclean -l run -x -a '(__git_taskresume_runs)' -d 'The run ID to clean (required)'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l task -x -a '(__git_taskresume_tasks (__git_taskclean_run))' -d 'Force re-execution of task ID: delete its branch and worktree'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l all -d 'The whole run: every task branch, <run>-main, every worktree'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l completed -d 'Also remove the worktrees of complete tasks'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l older-than -x -d 'Only worktrees with no change for DURATION (30m, 24h)'
complete -c git-taskclean -l undo -d 'Put back what the last clean (or the clean STAMP) deleted'
complete -c git-taskclean -n '__git_taskresume_prev_is --undo' -a '(__git_taskclean_stamps)' -d 'Stamp of the clean to undo'
complete -c git-taskclean -l restore -x -a '(__git_taskresume_tasks (__git_taskclean_run))' -d 'Bring back the saved worktree of task ID or PATH'
complete -c git-taskclean -n '__fish_seen_argument -l restore' -l from -x -a '(__git_taskclean_stamps)' -d 'With --restore: the save the clean STAMP made'
complete -c git-taskclean -l backups -d 'List every saved clean of the run and what it holds'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l ignore-live -d 'Also save and remove worktrees in which a live process works'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l drop-ignored -d 'Let ignored files past the save budget go unsaved'
complete -c git-taskclean -s n -l dry-run -d 'Print every action and change nothing'
complete -c git-taskclean -l json -d 'Write one JSON document instead of the action lines'
complete -c git-taskclean -s q -l quiet -d 'No progress lines on stderr'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l no-backup -d 'Do not save worktrees before removing them'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups -l only' -l with-dependents -d 'With --task: run its dependents again too'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups -l with-dependents' -l only -d 'With --task: that task alone (dependents go stale)'
complete -c git-taskclean -l expire-backups -x -d "Only delete the run's saved states older than DURATION"
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l base -x -a '(__git_taskresume_refs)' -d 'Count own commits against REF'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l plan -r -F -d 'Read the plan from PATH or REV:PATH'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l plan-run-id -x -a '(__git_taskresume_runs)' -d 'Read the --plan plan for this run although it names run ID'
complete -c git-taskclean -n 'not __fish_seen_argument -l undo -l restore -l backups -l expire-backups' -l remote -x -a '(__git_taskresume_remotes)' -d "Read the run from remote NAME, drop claims there"
complete -c git-taskclean -s h -l help -d 'Show help'
complete -c git-taskclean -l version -d 'Print the version'

# The command itself after `git` (fish 3.6.0 lists no git-* command).
complete -c git -f -n 'functions -q __fish_git_needs_command; and __fish_git_needs_command' -a taskclean -d "Remove a plan run's stale worktrees and branches, saving everything first"
complete -c git -f -n 'functions -q __fish_git_using_command; and __fish_git_using_command taskclean' -a '(__git_taskresume_from_git taskclean)'
