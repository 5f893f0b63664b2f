# bash completion for `git taskresume` and `git taskclean`.
#
# git's own completion (/usr/share/bash-completion/completions/git) calls
# _git_<subcommand> when such a function exists, so sourcing this file after
# it is all that is needed; install.sh copies it where bash-completion finds
# it. zsh and fish have their own completion in this directory
# (_git-taskresume, _git-taskclean, git-taskresume.fish, git-taskclean.fish).

__git_taskresume_runs () {
	git taskresume --list --json 2>/dev/null | sed -n 's/^ *"run_id": "\(.*\)",$/\1/p'
}

__git_taskresume_tasks () {
	[ -n "$1" ] || return
	git taskresume "$1" --json 2>/dev/null | sed -n 's/^ *"id": "\(.*\)",$/\1/p'
}

# The stamps of the run's saved cleans, newest first: --undo's optional word
# and --from's value.
__git_taskclean_stamps () {
	[ -n "$1" ] || return
	git for-each-ref --format='%(refname)' "refs/taskclean/$1/" 2>/dev/null |
		sed -n 's|^refs/taskclean/[^/]*/\([^/]*\)/.*$|\1|p' | sort -ru
}

# __git_taskresume_run: the run named on the command line (the first word
# after "taskresume" that is neither an option nor an option's value).
__git_taskresume_run () {
	local i w
	for ((i = 2; i < cword; i++)); do
		w=${words[i]}
		case "$w" in
		--base|--plan|--plan-run-id|--remote|--from-phase|--as|--ttl|--renew|--release|--format|--schedule)
			((i++)) ;;
		-*) ;;
		*) echo "$w"; return ;;
		esac
	done
}

_git_taskresume () {
	local run
	run=$(__git_taskresume_run)
	case "$cur" in
	--format=*)
		__gitcomp_nl "markdown" "" "${cur#--format=}"
		return ;;
	--schedule=*)
		__gitcomp_nl "phases
deps" "" "${cur#--schedule=}"
		return ;;
	--plan=*|--base=*|--remote=*|--from-phase=*|--as=*|--ttl=*)
		return ;;
	--plan-run-id=*)
		__gitcomp_nl "$(__git_taskresume_runs)" "" "${cur#--plan-run-id=}"
		return ;;
	--renew=*|--release=*)
		__gitcomp_nl "$(__git_taskresume_tasks "$run")" "" "${cur#*=}"
		return ;;
	-*)
		__gitcomp "--json --quiet --next --short --format= --exit-code --sizes --list --check-plan --claim --as= --ttl= --renew= --release= --base= --plan= --plan-run-id= --from-phase= --schedule= --remote= --version --help"
		return ;;
	esac
	case "$prev" in
	--renew | --release) __gitcomp_nl "$(__git_taskresume_tasks "$run")"; return ;;
	--format) __gitcomp_nl "markdown"; return ;;
	--schedule) __gitcomp_nl "phases
deps"; return ;;
	--plan | --base | --remote | --from-phase | --as | --ttl) return ;;
	--plan-run-id) __gitcomp_nl "$(__git_taskresume_runs)"; return ;;
	esac
	case " ${words[*]} " in
	*" --check-plan "*)
		# The words of --check-plan are a run, a plan file, or both.
		compopt -o filenames 2>/dev/null
		__gitcomp_nl "$(__git_taskresume_runs; compgen -f -- "$cur")"
		return ;;
	esac
	[ -z "$run" ] && __gitcomp_nl "$(__git_taskresume_runs)"
}

_git_taskclean () {
	local run="" i
	for ((i = 1; i < ${#words[@]}; i++)); do
		case "${words[i]}" in
		--run=*) run="${words[i]#--run=}" ;;
		--run) run="${words[i+1]}" ;;
		esac
	done
	case "$cur" in
	--run=*)
		__gitcomp_nl "$(__git_taskresume_runs)" "" "${cur#--run=}"
		return ;;
	--plan-run-id=*)
		__gitcomp_nl "$(__git_taskresume_runs)" "" "${cur#--plan-run-id=}"
		return ;;
	--task=*|--restore=*)
		__gitcomp_nl "$(__git_taskresume_tasks "$run")" "" "${cur#*=}"
		return ;;
	--from=*)
		__gitcomp_nl "$(__git_taskclean_stamps "$run")" "" "${cur#--from=}"
		return ;;
	-*)
		local w
		for w in "${words[@]}"; do
			case "$w" in
			--restore | --restore=*)
				# --from names the clean whose save --restore brings back.
				__gitcomp "--run= --from= --dry-run --json --quiet --help"
				return ;;
			--undo | --backups | --expire-backups | --expire-backups=*)
				# These modes take none of the clean's own flags.
				__gitcomp "--run= --dry-run --json --quiet --help"
				return ;;
			esac
		done
		__gitcomp "--run= --task= --with-dependents --only --all --completed --older-than= --undo --restore= --backups --ignore-live --drop-ignored --dry-run --json --quiet --no-backup --expire-backups= --remote= --base= --plan= --plan-run-id= --version --help"
		return ;;
	esac
	case "$prev" in
	--run | --plan-run-id) __gitcomp_nl "$(__git_taskresume_runs)" ;;
	--task | --restore) __gitcomp_nl "$(__git_taskresume_tasks "$run")" ;;
	--undo | --from) __gitcomp_nl "$(__git_taskclean_stamps "$run")" ;;
	esac
}
