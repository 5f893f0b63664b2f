#!/usr/bin/env bash
# The repository of the worktree benchmark: a copy of repo-20k with 5,000
# worktrees of other runs' task branches, plus 3 live worktrees of the
# measured run m1b2c3 (real checkouts of its done tasks' branches).
#
#   bench/wtrepo.sh SRC DIR [N]     copy SRC (repo-20k) to DIR, add N (5000)
#                                   worktrees and the 3 of m1b2c3
#
# The copy is `cp -a`, a real copy. A hard-link copy (`cp -al`) would share
# every file's inode with repo-20k: git replaces most files by renaming a
# lock file over them, but what is written in place would change repo-20k
# too (this script appends to .git/info/exclude, bench/run.sh rewrites
# .git/bench-id, reflogs are appended). `git clone --no-local` would repack
# all objects (slow), keep only main as a local branch, and leave out
# the commit-graph and L3's untracked plan. The copy takes about a second.
#
# The N worktrees: the first 20 are made by `git worktree add --no-checkout
# --detach`, one at a time; the rest are written as those are, file for file
# (the admin entry's gitdir, commondir, HEAD and HEAD reflog, and the
# worktree's .git file), because each `git worktree add` reads every
# existing entry and 5,000 of them took 11 minutes. The script then checks
# that a written entry holds the same files as a git-made one and that git
# lists all of them, none prunable. Its time is printed and kept in
# DIR/.git/bench-build. WT_BY_GIT=1 makes every one with git.
set -euo pipefail
export LC_ALL=C
src=${1:?usage: wtrepo.sh SRC DIR [N]}
dir=${2:?usage: wtrepo.sh SRC DIR [N]}
n=${3:-5000}
run=${WT_RUN:-m1b2c3}
t0=$EPOCHREALTIME

[ ! -e "$dir" ] || { echo "wtrepo: $dir exists" >&2; exit 1; }
cp -a "$src" "$dir"
rm -f "$dir/.git/bench-id"
cd "$dir"
# Agents keep their worktrees under .worktrees/, which the main checkout
# ignores.
echo ".worktrees/" >> .git/info/exclude

# Other runs' task branches: the finished runs' ids are six hex digits
# (bench/mkrepo), so the measured runs' are never among them.
# (awk reads all its input: a head would leave git a broken pipe.)
git for-each-ref --format='%(refname:short) %(objectname)' 'refs/heads/*-task-*' |
  awk -v n="$n" '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-task-/ && c < n {print; c++}' > .git/bench-wt-list
[ "$(wc -l < .git/bench-wt-list)" -eq "$n" ] || { echo "wtrepo: fewer than $n task branches in $src" >&2; exit 1; }
i=0
common=$(cd .git && pwd)
top=$(pwd)
by_git=${WT_BY_GIT:-0}
while read -r name oid; do
  if ((i < 20)) || [ "$by_git" = 1 ]; then
    git worktree add -q --no-checkout --detach ".worktrees/$name" "$oid"
  else
    # What git writes for such a worktree (compared with a git-made entry
    # below). Bash builtins only: no process per worktree.
    adm="$common/worktrees/$name"
    mkdir -p "$top/.worktrees/$name"
    if [ -n "$ident" ]; then mkdir -p "$adm/logs"; else mkdir -p "$adm"; fi
    printf '%s\n' "$top/.worktrees/$name/.git" > "$adm/gitdir"
    printf '../..\n' > "$adm/commondir"
    printf '%s\n' "$oid" > "$adm/HEAD"
    [ -z "$ident" ] || printf '%s %s %s\n' "$zero" "$oid" "$ident" > "$adm/logs/HEAD"
    printf 'gitdir: %s\n' "$adm" > "$top/.worktrees/$name/.git"
    last=$name
  fi
  if ((i == 0)); then
    # The reflog line git wrote, reused for the written entries.
    zero=0000000000000000000000000000000000000000
    ident="" # git writes the HEAD reflog only where reflogs are kept
    [ ! -f "$common/worktrees/$name/logs/HEAD" ] || ident=$(cut -d' ' -f3- "$common/worktrees/$name/logs/HEAD")
    first=$name
  fi
  i=$((i + 1))
  if ((i % 500 == 0)); then
    t=$EPOCHREALTIME
    printf 'wtrepo: %d worktrees, %ds\n' "$i" $(((10#${t/./} - 10#${t0/./}) / 1000000)) >&2
  fi
done < .git/bench-wt-list
rm .git/bench-wt-list
# A written entry holds what a git-made one does: the same files, the same
# forms.
if [ "$by_git" != 1 ] && ((n > 20)); then
  a=$(cd ".git/worktrees/$first" && find . -type f | sort | tr '\n' ' ')
  b=$(cd ".git/worktrees/$last" && find . -type f | sort | tr '\n' ' ')
  [ "$a" = "$b" ] || { echo "wtrepo: written entry $last holds $b, git's $first holds $a" >&2; exit 1; }
  [ "$(cat ".git/worktrees/$last/commondir")" = "$(cat ".git/worktrees/$first/commondir")" ] ||
    { echo "wtrepo: commondir differs from git's" >&2; exit 1; }
fi

# The measured run's live worktrees: its three done tasks, checked out.
live=0
while read -r b; do
  git worktree add -q ".worktrees/$b" "$b"
  live=$((live + 1))
done < <(git for-each-ref --format='%(refname:short)' "refs/heads/$run-task-*")
# As in bench/cleanrepo.sh: an agent's worktree is older than its last
# index write; fresh from checkout every entry would be racily clean and
# each status would re-read every file.
sleep 1
for wt in .worktrees/"$run"-task-*; do git -C "$wt" update-index -q --refresh; done

total=$(git worktree list --porcelain | grep -c '^worktree ')
[ "$total" -eq $((n + live + 1)) ] || { echo "wtrepo: $total worktrees, not $((n + live + 1))" >&2; exit 1; }
prunable=$(git worktree list --porcelain | grep -c '^prunable' || true)
[ "$prunable" -eq 0 ] || { echo "wtrepo: git calls $prunable worktrees prunable" >&2; exit 1; }
t=$EPOCHREALTIME
secs=$(((10#${t/./} - 10#${t0/./}) / 1000000))
how="the first 20 by git worktree add --no-checkout --detach, the rest written as git writes them"
[ "$by_git" = 1 ] && how="git worktree add --no-checkout --detach, one at a time"
echo "built in ${secs}s: $n worktrees ($how) + $live live of $run" |
  tee .git/bench-build >&2
