#!/usr/bin/env bash
# What reading a remote with many refs live costs the report:
#
#   bench/remote.sh            (after bench/run.sh has built repo-20k)
#
# The remote is a bare clone of repo-20k (22,646 branches) on a local path,
# so git starts upload-pack for it as it does over ssh; the repository
# measured is a clone of it, with every runnable task of run m1b2c3 claimed
# on the remote. Timed, interleaved round by round:
#   (a) git taskresume m1b2c3 --json                  (the remote as fetched)
#   (p) the same with --remote origin: its refs asked for by prefix
#       (protocol v2 ls-refs, ref-prefix)
#   (l) the same, read through git ls-remote (the whole ref list: what
#       every remote was read with before, and what every transport but a
#       local path still is): GIT_PROTOCOL_FROM_USER=1 is set, which makes
#       the report leave the file transport to git
#   (z) the same against a server that answers in protocol v0 (whole ref
#       list): remote.origin.uploadpack is a wrapper that drops GIT_PROTOCOL
#   (s) the same over ssh: url.host:<path>.insteadOf makes the URL
#       host:<path>, and GIT_SSH is a stand-in ssh that runs the command
#       here (what a real ssh adds, its connection, is not measured)
#   (o) with OLD=<dir of an earlier git-taskresume build>: that binary's
#       --remote origin
# Each answer is checked before the rounds: the JSON of (p), (l), (z), (s)
# and (o) is the same but for git_processes, and names the claims. It prints
# the medians and the median of the per-round differences to (a).
# Environment: BENCH_DIR (/tmp/taskresume-bench), ROUNDS (15), OLD.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
ROUNDS=${ROUNDS:-15}
OLD=${OLD:-}
run=m1b2c3
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE GIT_PROTOCOL_FROM_USER GIT_ALLOW_PROTOCOL

src="$BENCH_DIR/repo-20k"
[ -d "$src" ] || { echo "no $src: run bench/run.sh first" >&2; exit 2; }
origin="$BENCH_DIR/remote-origin.git" clone="$BENCH_DIR/remote-clone"
# Built once per repo-20k: the stamp is its refs' hash.
stamp=$(git -C "$src" for-each-ref --format='%(objectname) %(refname)' | git hash-object --stdin)
if [ "$(cat "$origin/bench-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$clone" ]; then
  rm -rf "$origin" "$clone"
  git clone -q --bare "$src" "$origin"
  git clone -q "$origin" "$clone"
  echo "$stamp" > "$origin/bench-stamp"
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/" ./cmd/git-taskresume ./cmd/git-taskclean)
export PATH="$bin:$PATH"
v0wrap="env -u GIT_PROTOCOL git-upload-pack"
printf '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n' > "$bin/ssh"
chmod +x "$bin/ssh"

cd "$clone"
# Fresh claims: every runnable task of the run, claimed on the origin.
git -C "$origin" for-each-ref --format='delete %(refname)' "refs/taskclaims/$run/" | git -C "$origin" update-ref --stdin
git for-each-ref --format='delete %(refname)' "refs/taskclaims/$run/" | git update-ref --stdin
n=0
while git taskresume "$run" --remote origin --claim --as "bench-$n" >/dev/null 2>&1; do
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no task of $run could be claimed on $origin" >&2; exit 1; }

a() { git taskresume "$run" --json; }
p() { git taskresume "$run" --json --remote origin; }
l() { GIT_PROTOCOL_FROM_USER=1 git taskresume "$run" --json --remote origin; }
z() { git -c remote.origin.uploadpack="$v0wrap" taskresume "$run" --json --remote origin; }
s() { GIT_SSH="$bin/ssh" git -c url."host:$origin".insteadOf="$origin" taskresume "$run" --json --remote origin; }
o() { PATH="$OLD:$PATH" git taskresume "$run" --json --remote origin; }
cases="p l z s"
[ -z "$OLD" ] || cases="$cases o"

# The answers, checked before they are timed.
strip() { grep -v '"git_processes"'; }
want=$(p | strip)
[ "$(printf '%s\n' "$want" | grep -c '"holder": "bench-')" -eq "$n" ] ||
  { echo "the report with --remote does not show the $n claims" >&2; exit 1; }
for c in $cases; do
  [ "$($c | strip)" = "$want" ] || { echo "case ($c) answers differently from (p)" >&2; exit 1; }
done

time_us() { local s=$EPOCHREALTIME; "$@" >/dev/null; local e=$EPOCHREALTIME; echo $(( (${e/./} - ${s/./}) )); }

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
load0=$(load)
declare -A t
for ((i = 0; i < ROUNDS; i++)); do
  for c in a $cases; do
    t[$c,$i]=$(time_us $c)
  done
done
refs=$(git -C "$origin" for-each-ref | wc -l)
printf 'remote %s: %d refs (%d claims); %d rounds, interleaved; load %s, then %s\n' "$origin" "$refs" "$n" "$ROUNDS" "$load0" "$(load)"
ma=$(for ((i = 0; i < ROUNDS; i++)); do echo "${t[a,$i]}"; done | median)
printf '  (a) no remote read:          %7.1f ms\n' "$(echo "$ma / 1000" | bc -l)"
for c in $cases; do
  case $c in
    p) what="(p) --remote, v2 ref-prefix" ;;
    l) what="(l) --remote, ls-remote    " ;;
    z) what="(z) --remote, a v0 server  " ;;
    s) what="(s) --remote, over ssh     " ;;
    o) what="(o) --remote, OLD binary   " ;;
  esac
  m=$(for ((i = 0; i < ROUNDS; i++)); do echo "${t[$c,$i]}"; done | median)
  d=$(for ((i = 0; i < ROUNDS; i++)); do echo $(( t[$c,$i] - t[a,$i] )); done | median)
  printf '  %s: %7.1f ms  (%+.1f ms, median of per-round differences)\n' "$what" "$(echo "$m / 1000" | bc -l)" "$(echo "$d / 1000" | bc -l)"
done
