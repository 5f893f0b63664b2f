#!/usr/bin/env bash
# The performance benchmark of git-taskresume and git-taskclean.
#
#   bench/run.sh
#
# Builds (once; cached in $BENCH_DIR, default /tmp/taskresume-bench, and
# rebuilt when their generator changes):
#   - repo-20k and repo-100k (bench/mkrepo: 20k and 100k commits on main,
#     2,800 finished runs of the seven-task plan, each with its plan on its
#     <run>-main, packed refs, a commit-graph), each holding the measured
#     runs: layouts L1-L8 of the seven-task plan and two larger plans (50
#     and 500 tasks);
#   - repo-100k-bloom: a copy of repo-100k whose commit-graph has
#     changed-path Bloom filters (for L7 and L8; the copy keeps every
#     other layout's repository as it was, and costs a cp and one
#     commit-graph write, about 5 s, once);
#   - clone-100k: a git clone of repo-100k (every run only on origin), for
#     --list;
#   - repo-wt (bench/wtrepo.sh): a copy of repo-20k with 5,000 worktrees of
#     other runs and 3 live worktrees of m1b2c3;
#   - clean-repo (bench/cleanrepo.sh), for the clean;
# (the first run takes about a minute more to build them),
# builds both commands, checks that the report is right in every layout,
# then times, interleaved round by round (alternating which repository goes
# first, rotating the order of the cases):
#
#   (a) git taskresume <run> --json
#   (b) the earlier tools' pipeline: per task, git branch --list, then
#       git rev-list --count main..<branch> for the branch found
#   (c) the floor: the least a shell script must ask git for the same
#       answer in that layout (case_c below, one comment per command)
#
# for each layout (L1-L6), for 50 and 500 tasks, and with 5,000 worktrees
# ((a) and (c) only); for the old runs L7 and L8 (repo-100k with and without
# Bloom filters) (a), (c) and
#
#   (g) git log --format=%H%x00%s <run>-main main --not <start>: the one
#       walk from the fork that the search for landed work cannot avoid
#
# then the clean:
#
#   (d)  git taskclean --run w9x8y7 on 50 stale worktrees (25 dirty) against
#        git worktree remove --force of the same 50
#   (d2) the same, each worktree also holding an ignored node_modules/ of
#        2,000 files and an ignored .env
#
# the peak memory (/usr/bin/time) of (a) everywhere and of taskclean; then
#
#   --list: git taskresume --list --json over the 2,810 runs of repo-20k,
#        repo-100k and clone-100k, under a time limit, against its floor
#        (list_c below);
#   remote: the report of m1b2c3 in a clone of a bare copy of repo-20k
#        (22,000 refs) with a claim there, reading origin live (--remote
#        origin, protocol v2, and v0) against reading no remote.
#
# It
# prints medians, medians of per-round ratios and PASS/MISS per target, as
# Markdown tables (also in $BENCH_DIR/results/table.txt), then the profile
# of (a) in L1. It exits 1 when the report was wrong in a layout (after the
# tables, which say where).
#
# Environment: BENCH_DIR; ROUNDS (15); ROUNDS_BIG (9: rounds of the 500-task
# plan, whose (b) starts 700 git processes a round; a ratio is the median of
# per-round ratios, which 5 rounds leave to one noisy round); ROUNDS_OLD (9:
# rounds of L7 and L8, about 6 s a round, cut to keep the run under 15
# minutes); LIST_TIMEOUT (120 s: the limit of the first --list, in
# repo-100k; LIST_TIMEOUT_NEXT, 20 s, for the others once one did not
# finish); LIST_ROUNDS (5; none of (a) where its first run took over
# LIST_SLOW, 20 s: that run is its figure); REMOTE_ROUNDS (15); CLEAN_ROUNDS (5, for (d)
# and (d2); past 3 rounds each stops when the run has taken BUDGET seconds,
# 480, not counting the time of L7, L8, --list and the remote); LIMIT (870
# s: --list's time limits are cut so that the run ends by then, down to 20
# s); RUNS (2800 runs per large repository); WORKTREES (5000); PROFILE=0
# to skip the profiles at the end (PROFILE=full: the clean's profile even
# past BUDGET).
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME with a "." and awk with "." decimals

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
ROUNDS=${ROUNDS:-15}
ROUNDS_BIG=${ROUNDS_BIG:-9}
ROUNDS_OLD=${ROUNDS_OLD:-9}
LIST_TIMEOUT=${LIST_TIMEOUT:-120}
LIST_TIMEOUT_NEXT=${LIST_TIMEOUT_NEXT:-20}
LIST_ROUNDS=${LIST_ROUNDS:-5}
LIST_SLOW=${LIST_SLOW:-20}
REMOTE_ROUNDS=${REMOTE_ROUNDS:-15}
CLEAN_ROUNDS=${CLEAN_ROUNDS:-5}
BUDGET=${BUDGET:-480}
LIMIT=${LIMIT:-870}
RUNS=${RUNS:-2800}
WORKTREES=${WORKTREES:-5000}
crun=w9x8y7
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
res="$BENCH_DIR/results"
rm -rf "$res"
mkdir -p "$res"
# No user or system git config may change what is measured.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE GIT_TRACE2_EVENT GIT_TRACE2_PERF GIT_TRACE

log() { printf '== %s\n' "$*" >&2; }
started=$EPOCHREALTIME
elapsed() { local t=$EPOCHREALTIME; echo $(((10#${t/./} - 10#${started/./}) / 1000000)); }
# The layouts added after BUDGET was set (L7, L8, --list, the remote) keep
# their time out of it (new_us): they must not cut the clean's rounds or
# its profile. They have their own limit instead: --list's time limits are
# cut so that the whole run ends within LIMIT seconds.
new_us=0
old_elapsed() { echo $(($(elapsed) - new_us / 1000000)); }
# part NAME: ends the previous part (its duration goes to $res/parts).
part_t0=$started
part_name=""
part() {
  local t=$EPOCHREALTIME
  [ -z "$part_name" ] || printf '%s\t%d\n' "$part_name" $(((10#${t/./} - 10#${part_t0/./}) / 1000000)) >> "$res/parts"
  part_name=$1
  part_t0=$t
}
part "setup and repositories"

# GNU time for the peak memory, jq for the report's JSON; CI machines are
# fresh.
for tool in /usr/bin/time:time /usr/bin/jq:jq; do
  if [ ! -x "${tool%%:*}" ]; then
    log "installing ${tool#*:} (apt-get install -y ${tool#*:})"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq "${tool#*:}" >/dev/null 2>&1 ||
      { $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq "${tool#*:}" >/dev/null; }
  fi
done

# --- repositories (cached; rebuilt when their generator changes) -----------
gen_id() { cat "$@" | sha256sum | cut -c1-16; }
mkrepo_id=$(gen_id "$here"/bench/mkrepo/*.go)-$RUNS
wtrepo_id=$mkrepo_id-$(gen_id "$here/bench/wtrepo.sh")-$WORKTREES
cleanrepo_id=$(gen_id "$here/bench/cleanrepo.sh")
for n in 20000 100000; do
  dir="$BENCH_DIR/repo-$((n / 1000))k"
  if [ "$(cat "$dir/.git/bench-id" 2>/dev/null)" != "$mkrepo_id" ]; then
    log "building $dir ($n commits on main, $RUNS runs)"
    rm -rf "$dir"
    (cd "$here" && go run ./bench/mkrepo -dir "$dir" -commits "$n" -runs "$RUNS") | tee "$dir.build" >&2
    echo "$mkrepo_id" > "$dir/.git/bench-id"
  fi
done
r20="$BENCH_DIR/repo-20k"
r100="$BENCH_DIR/repo-100k"
rwt="$BENCH_DIR/repo-wt"
# L7 and L8 with and without changed-path Bloom filters: a copy of
# repo-100k with them (the other layouts keep their repository as it was;
# the copy costs a cp and one commit-graph write, about 5 s, once).
r100bf="$BENCH_DIR/repo-100k-bloom"
if [ "$(cat "$r100bf/.git/bench-id" 2>/dev/null)" != "$mkrepo_id-bloom" ]; then
  log "building $r100bf (repo-100k copied, its commit-graph written with changed-path Bloom filters)"
  rm -rf "$r100bf"
  t0=$EPOCHREALTIME
  cp -a "$r100" "$r100bf"
  git -C "$r100bf" commit-graph write --reachable --changed-paths
  t1=$EPOCHREALTIME
  echo "built in $(((10#${t1/./} - 10#${t0/./}) / 1000000))s: cp -a, then git commit-graph write --reachable --changed-paths" \
    > "$r100bf/.git/bench-build"
  echo "$mkrepo_id-bloom" > "$r100bf/.git/bench-id"
fi
# --list where every run is on a remote only: a clone of repo-100k (every
# branch becomes origin/...; local, so objects and the commit-graph are
# linked or copied, not fetched).
rclone="$BENCH_DIR/clone-100k"
if [ "$(cat "$rclone/.git/bench-id" 2>/dev/null)" != "$mkrepo_id" ]; then
  log "building $rclone (git clone of repo-100k)"
  rm -rf "$rclone"
  git clone -q "$r100" "$rclone"
  echo "$mkrepo_id" > "$rclone/.git/bench-id"
fi
if [ "$(cat "$rwt/.git/bench-id" 2>/dev/null)" != "$wtrepo_id" ]; then
  log "building $rwt (a copy of repo-20k with $WORKTREES worktrees; minutes for 5,000, once)"
  rm -rf "$rwt"
  "$here/bench/wtrepo.sh" "$r20" "$rwt" "$WORKTREES"
  echo "$wtrepo_id" > "$rwt/.git/bench-id"
fi
cdir="$BENCH_DIR/clean-repo"
if [ "$(cat "$cdir/.git/bench-id" 2>/dev/null)" != "$cleanrepo_id" ]; then
  log "building $cdir"
  rm -rf "$cdir"
  "$here/bench/cleanrepo.sh" init "$cdir"
  echo "$cleanrepo_id" > "$cdir/.git/bench-id"
fi

log "building git-taskresume and git-taskclean"
mkdir -p "$BENCH_DIR/bin"
(cd "$here" && go build -o "$BENCH_DIR/bin" ./cmd/... && go build -o "$BENCH_DIR/bin/trace2sum" ./bench/trace2sum)
export PATH="$BENCH_DIR/bin:$PATH"

size() { # repo: commits, refs, .git size
  printf '%s commits, %s refs, .git %s' "$(git -C "$1" rev-list --all --count)" \
    "$(git -C "$1" for-each-ref --format=x | wc -l)" "$(du -sh "$1/.git" | cut -f1)"
}
{
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, kernel $(uname -r); $(git version); $(go version | cut -d' ' -f3-4)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the $(nproc) cores)"
  echo
  for d in "$r20" "$r100"; do # with the build time mkrepo printed
    echo "- ${d##*/}: $(size "$d")$(grep -o ' (built in [^)]*)' "$d.build" 2>/dev/null || true)"
  done
  echo "- repo-100k-bloom: repo-100k's copy whose commit-graph has changed-path Bloom filters, .git $(du -sh "$r100bf/.git" | cut -f1) ($(cat "$r100bf/.git/bench-build"))"
  echo "- clone-100k: git clone of repo-100k: $(size "$rclone") (one local branch, main; every run's branches only on origin)"
  echo "- repo-wt: repo-20k copied (cp -a) with $(($(git -C "$rwt" worktree list --porcelain | grep -c '^worktree ') - 1)) worktrees; $(cat "$rwt/.git/bench-build")"
  echo "- clean-repo: $(git -C "$cdir" ls-files | wc -l) files, $(du -sh --exclude=.git --exclude=.worktrees "$cdir" | cut -f1) checked out; 50 worktrees of it per timed case"
} | tee "$res/sizes.txt" "$res/table.txt"

# --- what is measured ---------------------------------------------------------
# Sets: the layouts of the seven-task plan, the larger plans (laid out as
# L1), and L1's run in the repository with 5,000 worktrees. Run ids as in
# bench/mkrepo/layouts.go. L7 and L8 are measured in repo-100k only (main
# is too short in repo-20k, where mkrepo forks them at main~10000), with and
# without Bloom filters.
sets=(L1 L2 L3 L4 L5 L6 L7 L8 T50 T500 W5k)
declare -A run_of=([L1]=m1b2c3 [L2]=l2a1b1 [L3]=l3a1b1 [L4]=l4a1b1 [L5]=l5a1b1 [L6]=l6a1b1
  [L7]=l7a1b1 [L8]=l8a1b1 [T50]=n50a1b [T500]=n500ab [W5k]=m1b2c3)
declare -A title_of=(
  [L1]="plan in the base's history: main~100 adds it, <run>-main there"
  [L2]="plan committed elsewhere: <run>-main at main~100 without it, main~50 adds it"
  [L3]="plan only in the working tree: untracked in the main checkout"
  [L4]="plan only on <run>-main: added by its parent commit, not on main"
  [L5]="landed tasks: no <run>-main (base main); 1.1 fast-forwarded, 1.2 rebased, 2.1 squashed, 2.2 done on its branch"
  [L6]="forked far back: as L2, <run>-main at main~15000"
  [L7]="old run: <run>-main at main~25000 without the plan, main~45 adds it, 1.1, 1.2, 2.1 done, 2.1 also squash-merged at main~30"
  [L8]="old run: as L7, <run>-main at main~50000, 2.1 squash-merged at main~20"
  [T50]="50 tasks (5 parallel phases of 10, 20 done), laid out as L1"
  [T500]="500 tasks (10 parallel phases of 50, 200 done), laid out as L1"
  [W5k]="5,000 worktrees of other runs, and 3 live worktrees of the run's done tasks (repo-wt, a copy of repo-20k)")
# How the floor finds where the run started (see case_c).
declare -A start_of=([L1]=base [L2]=merge-base [L3]=merge-base [L4]=added [L5]=added [L6]=merge-base
  [L7]=merge-base [L8]=merge-base [T50]=base [T500]=base [W5k]=base)
declare -A done_of=([L1]=3 [L2]=3 [L3]=3 [L4]=3 [L5]=4 [L6]=3 [L7]=3 [L8]=3 [T50]=20 [T500]=200 [W5k]=3)
# The done tasks and how, where the layout lands some.
declare -A statuses_of=([L5]="1.1=landed 1.2=landed 2.1=landed 2.2=completed"
  [L7]="1.1=completed 1.2=completed 2.1=landed" [L8]="1.1=completed 1.2=completed 2.1=landed")
declare -A ids_of=([L1]=ids7 [L2]=ids7 [L3]=ids7 [L4]=ids7 [L5]=ids7 [L6]=ids7 [L7]=ids7 [L8]=ids7
  [T50]=ids50 [T500]=ids500 [W5k]=ids7)
declare -A repos_of=([W5k]="wt" [L7]="100k 100k-bloom" [L8]="100k 100k-bloom")
declare -A cases_of=([W5k]="a c" [L7]="a c g" [L8]="a c g")
for s in "${sets[@]}"; do
  : "${repos_of[$s]:=20k 100k}" "${cases_of[$s]:=a b c}"
done
declare -A dir_of=([20k]=$r20 [100k]=$r100 [wt]=$rwt [100k-bloom]=$r100bf)
ids7=(1.1 1.2 2.1 2.2 2.3 3.1 3.2)
ids50=()
ids500=()
for ((p = 1; p <= 10; p++)); do
  for ((k = 1; k <= 50; k++)); do
    ((p > 5 || k > 10)) || ids50+=("$p.$k")
    ids500+=("$p.$k")
  done
done

case_a() { git taskresume "${run_of[$1]}" --json >/dev/null; }

# The anchors' pipeline (spectacular and friends), with the parsing done in
# bash so that only git's share is paid: per task, list its branch, then
# count its commits against main.
case_b() {
  local run=${run_of[$1]} id out br
  local -n ids=${ids_of[$1]}
  for id in "${ids[@]}"; do
    out=$(git branch --list "$run-task-${id//./-}-*")
    br=${out#??}
    br=${br%%$'\n'*}
    if [ -n "$br" ]; then
      out=$(git rev-list --count "main..$br")
    fi
  done
}

# The floor: the least a shell script must ask git for the report's answer
# in the set's layout, one command after another (the report may overlap
# them). It reads no plan (the report must; a script given the plan's task
# list would not) and discards what only the report's verdict would parse.
# Outputs it parses go through a file: bash's read and mapfile take a pipe
# one byte at a time (8 ms for 200 refs), a regular file in blocks.
# floor_git counts its git processes, floor_live the run's worktrees.
floor_out="$res/floor.out"
case_c() {
  local set=$1 run=${run_of[$1]} l ref c p t tok prev wt base="" start lines=""
  local tips=() revs=(main) live=() out=()
  local -A parent=() istip=() paths=()
  floor_git=1
  # The run's task branches and its <run>-main, with their commits: what
  # the report is about, in one call for every ref of the run.
  git for-each-ref --format='%(objectname) %(refname)' "refs/heads/$run-*" > "$floor_out"
  mapfile -t out < "$floor_out"
  for l in ${out[@]+"${out[@]}"}; do
    ref=${l#* }
    case $ref in
      "refs/heads/$run-task-"*)
        tips+=("${l%% *}")
        istip[${l%% *}]=1
        ;;
      "refs/heads/$run-main") base=${l%% *} ;;
    esac
  done
  # Without <run>-main the base is main (L5).
  [ -n "$base" ] || base=main
  # The run's own commits (on its branches, not the base's) with their
  # parents: which commits each branch adds, and where they start.
  git rev-list --parents "${tips[@]}" --not "$base" > "$floor_out"
  floor_git=$((floor_git + 1))
  mapfile -t out < "$floor_out"
  for l in ${out[@]+"${out[@]}"}; do
    p=${l#* }
    [ "$p" != "$l" ] || p="" # a root commit
    parent[${l%% *}]=${p%% *}
  done
  # Every worktree: which tasks have one (a task's worktree is its state).
  git worktree list --porcelain -z > "$floor_out"
  floor_git=$((floor_git + 1))
  mapfile -d '' out < "$floor_out"
  if ((${#out[@]} < 200)); then
    for tok in "${out[@]}"; do
      case $tok in
        "worktree "*) wt=${tok#worktree } ;;
        "branch refs/heads/$run-task-"*) live+=("$wt") ;;
      esac
    done
  else
    # Thousands of worktrees: bash's loop takes 300 ms for 5,000, one awk
    # 10 ms (its start included).
    mapfile -t live < <(awk -v RS='\0' -v pre="branch refs/heads/$run-task-" \
      '/^worktree / {wt = substr($0, 10)} index($0, pre) == 1 {print wt}' "$floor_out")
  fi
  # Where the run started: the search for landed work starts there.
  case ${start_of[$set]} in
    base) # the base's tip added the plan: the run started there (no call)
      start=$base ;;
    merge-base) # the base does not hold the plan: the oldest common
      # ancestor of the run's branches with the base
      start=$(git merge-base --octopus "$base" "${tips[@]}")
      floor_git=$((floor_git + 1)) ;;
    added) # the base holds the plan below its tip: the commit that added it
      start=$(git log -1 --format=%H --diff-filter=A "$base" -- "specs/$run/plan.md")
      floor_git=$((floor_git + 1)) ;;
  esac
  # Landed work since the start, in one walk: main (the default branch
  # moved since the run started), and the base when it has commits past
  # the start (L4's <run>-main). Subjects, bodies (trailers) and parents
  # (merges) are the evidence.
  [ "$base" = main ] || [ "$base" = "$start" ] || revs+=("$base")
  git log --format='%H%x00%P%x00%s%x00%b' "${revs[@]}" --not "$start^@" >/dev/null
  floor_git=$((floor_git + 1))
  # The squash evidence: each done task's combined change (its tip against
  # the parent of its own first commit: its stack parent's tip, or where it
  # left the base), in one diff-tree ...
  for t in "${tips[@]}"; do
    [[ -n ${parent[$t]+x} ]] || continue # the base holds it: no commits of its own
    c=$t
    while p=${parent[$c]} && [[ -n $p && -n ${parent[$p]+x} && -z ${istip[$p]+x} ]]; do c=$p; done
    lines+="${lines:+$'\n'}$t $p"
  done
  if [ -n "$lines" ]; then
    git diff-tree -r -z --stdin <<<"$lines" > "$floor_out"
    floor_git=$((floor_git + 1))
    mapfile -d '' out < "$floor_out"
    prev=""
    for tok in "${out[@]}"; do
      [[ $prev != :* ]] || paths[$tok]=1
      prev=$tok
    done
    # ... then the landed commits that touch the same paths, with their
    # changes, in one path-limited log.
    git log --raw --no-merges -z "${revs[@]}" --not "$start^@" -- "${!paths[@]}" >/dev/null
    floor_git=$((floor_git + 1))
  fi
  # The state of each worktree of the run (clean, dirty): one status each.
  for wt in ${live[@]+"${live[@]}"}; do
    git -C "$wt" status --porcelain=v2 -z >/dev/null
    floor_git=$((floor_git + 1))
  done
  floor_live=${#live[@]}
}

# (g), for the old runs: the one walk that the search for landed work
# cannot do without, from main's tip and the base back to where the run
# started (gstart: case_c's merge-base, found once in the sanity checks),
# with subjects.
declare -A gstart=()
case_g() { git log --format=%H%x00%s "${run_of[$1]}-main" main --not "${gstart[$1]}" >/dev/null; }

# --- --list: every run of the repository ------------------------------------
# The floor of --list: the least a shell script must ask git for every
# row's answer (status, done/total, plan, resume phase):
#   - one for-each-ref of every ref: the runs (task branches
#     <run>-task-<digit>..., <hex6>-main, local or any remote's), their
#     bases and their task branches' tips;
#   - one log --all with parents and subjects: the evidence of landings
#     (subjects, merges) of every run at once;
#   - one cat-file --batch of the plans on the runs' <run>-main
#     (<run>-main:specs/<run>/plan.md), beside the plans of the checkout
#     (read as files: the report looks there first);
#   - one path-limited log --raw per row whose squash check is needed,
#     counted (for now: a row with a task not done on its branch), over
#     what main added since the run's base (or its task tips, without a
#     <run>-main), limited to the files its done tasks change (the plan's
#     "Files:"; the report reads their diffs, the floor trusts the plan).
# Two awk programs do the parsing (mawk: no {n} intervals).
# list_runs_awk: for-each-ref lines in; "run <id>" per run out, and the
# cat-file input of the plans on <run>-main (to the file catin).
list_runs_awk='
function last(ref,   n, p) { n = split(ref, p, "/"); return p[n] }
BEGIN { n = split(specs, sp, " "); for (i = 1; i <= n; i++) run[sp[i]] = 1 }
{
  ref = $2; local = (substr(ref, 1, 11) == "refs/heads/")
  if (!local && substr(ref, 1, 13) != "refs/remotes/") next
  name = last(ref)
  i = index(name, "-task-")
  if (i > 1 && substr(name, i + 6, 1) ~ /^[0-9]$/) { run[substr(name, 1, i - 1)] = 1; next }
  if (name ~ /-main$/) {
    r = substr(name, 1, length(name) - 5)
    if (r ~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/) run[r] = 1
    if (local || !(r in base)) base[r] = ref # a local <run>-main wins
  }
}
END {
  for (r in run) {
    print "run " r
    if (r in base) print base[r] ":specs/" r "/plan.md" > catin
  }
}'
# list_rows_awk: the refs, the cat-file input and output, then the
# checkout plans in; per row whose squash check is needed, one line
# "<run> TAB <what the search excludes> TAB <paths of its done tasks>" out.
list_rows_awk='
function last(ref,   n, p) { n = split(ref, p, "/"); return p[n] }
function plan_line(r, line,   w) {
  if (line ~ /^### Task [0-9]/) { split(substr(line, 10), w, ":"); cur = w[1]; ids[r] = ids[r] " " cur; return }
  if (line ~ /^- Files: `/) { f = substr(line, 11); sub(/`.*/, "", f); file[r, cur] = f }
}
FILENAME == refsf {
  ref = $2; local = (substr(ref, 1, 11) == "refs/heads/")
  if (!local && substr(ref, 1, 13) != "refs/remotes/") next
  name = last(ref)
  i = index(name, "-task-")
  if (i > 1 && substr(name, i + 6, 1) ~ /^[0-9]$/) {
    # <run>-task-2-1-slug: task 2.1
    r = substr(name, 1, i - 1); n = split(substr(name, i + 6), w, "-"); id = ""
    for (k = 1; k <= n && w[k] ~ /^[0-9]+$/; k++) id = id (id == "" ? "" : ".") w[k]
    if (local || !((r, id) in tip)) tip[r, id] = $1
    next
  }
  if (name ~ /-main$/) {
    r = substr(name, 1, length(name) - 5)
    if (local || !(r in base)) { base[r] = ref; baseoid[r] = $1 }
  }
  next
}
FILENAME == catin { r = substr($0, index($0, ":specs/") + 7); sub(/\/plan\.md$/, "", r); order[++nin] = r; next }
FILENAME == catout {
  # "<oid> blob <size>", the content, an empty line; or "<input> missing"
  r = order[++nth]
  if ($2 != "blob") next
  left = $3
  while (left > 0 && (getline line) > 0) { left -= length(line) + 1; plan_line(r, line) }
  getline line
  haveplan[r] = 1
  next
}
{
  # A plan of the checkout: it wins over <run>-main (read first).
  r = FILENAME; sub(/\/plan\.md$/, "", r); sub(/.*\//, "", r)
  if (FNR == 1) { n = split(ids[r], t, " "); for (k = 1; k <= n; k++) delete file[r, t[k]]; ids[r] = ""; haveplan[r] = 1 }
  plan_line(r, $0)
}
END {
  for (r in haveplan) {
    n = split(ids[r], t, " "); paths = ""; tips = ""; undone = 0
    for (k = 1; k <= n; k++) {
      if ((r, t[k]) in tip && tip[r, t[k]] != baseoid[r]) { paths = paths " " file[r, t[k]]; tips = tips " " tip[r, t[k]] }
      else undone = 1
    }
    if (undone && paths != "") print r "\t" ((r in base) ? base[r] : substr(tips, 2)) "\t" substr(paths, 2)
  }
}'
# list_c: the floor of --list, in the current directory; list_found is the
# runs it found, list_squash the rows whose squash check it ran.
list_c() {
  local f specs="" plans=() run excl paths rows=0
  git for-each-ref --format='%(objectname) %(refname)' > "$res/list-refs"
  git log --all --format=%H%x00%P%x00%s > /dev/null
  for f in specs/*/plan.md; do
    [ -f "$f" ] || continue
    plans+=("$f")
    f=${f#specs/}
    specs+=" ${f%/plan.md}"
  done
  awk -v specs="$specs" -v catin="$res/list-catin" "$list_runs_awk" "$res/list-refs" > "$res/list-runs"
  git cat-file --batch < "$res/list-catin" > "$res/list-plans"
  awk -v refsf="$res/list-refs" -v catin="$res/list-catin" -v catout="$res/list-plans" "$list_rows_awk" \
    "$res/list-refs" "$res/list-catin" "$res/list-plans" ${plans[@]+"${plans[@]}"} > "$res/list-rows"
  while IFS=$'\t' read -r run excl paths; do
    # shellcheck disable=SC2086 # several tips, several paths
    git log --raw --no-merges -z main --not $excl -- $paths > /dev/null
    rows=$((rows + 1))
  done < "$res/list-rows"
  list_found=$(wc -l < "$res/list-runs")
  list_squash=$rows
}
list_a() { git taskresume --list --json >/dev/null; }

# --- sanity: each repository holds its layouts, and the report is right ----
part "sanity checks"
bad() { echo "bench: $*" >&2; exit 1; }
# wrong: the report is wrong in a layout. Said now, measured anyway, and
# the run exits 1 at the end.
wrong() {
  printf 'bench: WRONG REPORT: %s\n' "$*" | tee -a "$res/wrong.txt" >&2
}
layout_check() { # dir: the history each layout needs (the generator's job)
  local d=$1
  git -C "$d" cat-file -e "m1b2c3-main:specs/m1b2c3/plan.md" && ! git -C "$d" cat-file -e "m1b2c3-main^:specs/m1b2c3/plan.md" 2>/dev/null ||
    bad "$d: L1's <run>-main does not add its plan"
  [ "$(git -C "$d" rev-list --count m1b2c3-task-2-1-user-service --not m1b2c3-main)" = 3 ] || bad "$d: unexpected history for m1b2c3"
  ! git -C "$d" cat-file -e "l2a1b1-main:specs/l2a1b1/plan.md" 2>/dev/null && git -C "$d" cat-file -e "main~50:specs/l2a1b1/plan.md" &&
    ! git -C "$d" cat-file -e "main~51:specs/l2a1b1/plan.md" 2>/dev/null || bad "$d: L2's plan is not where L2 wants it"
  [ -f "$d/specs/l3a1b1/plan.md" ] && ! git -C "$d" cat-file -e "HEAD:specs/l3a1b1/plan.md" 2>/dev/null &&
    [ -n "$(git -C "$d" status --porcelain --untracked-files=all -- specs/l3a1b1)" ] || bad "$d: L3's plan is not an untracked file of the checkout"
  git -C "$d" cat-file -e "l4a1b1-main^:specs/l4a1b1/plan.md" && ! git -C "$d" cat-file -e "l4a1b1-main^^:specs/l4a1b1/plan.md" 2>/dev/null &&
    ! git -C "$d" cat-file -e "main:specs/l4a1b1/plan.md" 2>/dev/null || bad "$d: L4's plan is not on l4a1b1-main only"
  ! git -C "$d" rev-parse -q --verify l5a1b1-main >/dev/null && [ -z "$(git -C "$d" branch --list 'l5a1b1-task-1-2-*')" ] &&
    [ "$(git -C "$d" rev-parse l5a1b1-task-1-1-create-database-schema)" = "$(git -C "$d" rev-parse main~95)" ] &&
    [ "$(git -C "$d" log -1 --format=%s main~80)" = "[Task 1.2] Install dependencies" ] &&
    [ "$(git -C "$d" diff main~61 main~60 | git patch-id --stable | cut -c1-40)" = \
      "$(git -C "$d" diff l5a1b1-task-2-1-user-service^ l5a1b1-task-2-1-user-service | git patch-id --stable | cut -c1-40)" ] ||
    bad "$d: L5's landings are not as L5 wants them"
  [ "$(git -C "$d" rev-list --count main --not l6a1b1-main)" = 15000 ] || bad "$d: L6 is not forked 15,000 commits back"
}
old_check() { # dir: L7 and L8 (repo-100k and its copy)
  local d=$1 r back sq
  for r in l7a1b1:25000:30 l8a1b1:50000:20; do
    IFS=: read -r r back sq <<<"$r"
    [ "$(git -C "$d" rev-list --count main --not "$r-main")" = "$back" ] || bad "$d: $r is not forked $back commits back"
    ! git -C "$d" cat-file -e "$r-main:specs/$r/plan.md" 2>/dev/null && git -C "$d" cat-file -e "main~45:specs/$r/plan.md" &&
      ! git -C "$d" cat-file -e "main~46:specs/$r/plan.md" 2>/dev/null || bad "$d: $r's plan is not added by main~45"
    [ "$(git -C "$d" log -1 --format=%s "main~$sq")" = "Add user service (#$((sq == 30 ? 43 : 44)))" ] &&
      [ "$(git -C "$d" diff "main~$((sq + 1))" "main~$sq" | git patch-id --stable | cut -c1-40)" = \
        "$(git -C "$d" diff "$r-task-2-1-user-service^" "$r-task-2-1-user-service" | git patch-id --stable | cut -c1-40)" ] ||
      bad "$d: $r's task 2.1 is not squash-merged at main~$sq"
  done
}
layout_check "$r20"
layout_check "$r100"
old_check "$r100"
old_check "$r100bf"
# The copy has the Bloom filters' chunks (BIDX, BDAT), repo-100k not.
grep -q BDAT "$r100bf/.git/objects/info/commit-graph" || bad "$r100bf: no changed-path Bloom filters in its commit-graph"
! grep -q BDAT "$r100/.git/objects/info/commit-graph" || bad "$r100: its commit-graph has Bloom filters"
[ "$(git -C "$rwt" worktree list --porcelain | grep -c '^worktree ')" = $((WORKTREES + 4)) ] || bad "$rwt: not $WORKTREES + 3 worktrees"

declare -A gitp=()
for s in "${sets[@]}"; do
  for name in ${repos_of[$s]}; do
    json="$res/json-$s-$name.json"
    (cd "${dir_of[$name]}" && git taskresume "${run_of[$s]}" --json) > "$json" ||
      bad "$s repo-$name: git taskresume ${run_of[$s]} --json failed"
    got=$(jq -r .completed_tasks "$json")
    [ "$got" = "${done_of[$s]}" ] || wrong "$s repo-$name: completed_tasks is $got, not ${done_of[$s]} ($json)"
    gitp[$s-$name]=$(jq -r .git_processes "$json")
    if [ -n "${statuses_of[$s]:-}" ]; then
      got=$(jq -r '[.phases[].tasks[] | select(.status == "completed" or .status == "landed") | "\(.id)=\(.status)"] | join(" ")' "$json")
      want=${statuses_of[$s]}
      [ "$got" = "$want" ] || wrong "$s repo-$name: done tasks are \"$got\", not \"$want\"; $(
        jq -c '[.phases[].tasks[] | select(.id == "2.1" or .id == "2.2") | {id, status, branch, own_commits, landed}]' "$json")"
    fi
    if [ "$s" = W5k ]; then
      got=$(jq '[.worktrees[] | select((.task // "") != "")] | length' "$json")
      [ "$got" = 3 ] || wrong "$s: $got worktrees of the run's tasks reported, not 3"
    fi
    # The floor sees the same run: its branches, and (W5k) the 3 live
    # worktrees.
    (cd "${dir_of[$name]}" && case_c "$s" && echo "$floor_git $floor_live") > "$res/floor-$s-$name"
    read -r fgit flive < "$res/floor-$s-$name"
    [ "$flive" = "$([ "$s" = W5k ] && echo 3 || echo 0)" ] || bad "$s repo-$name: the floor found $flive live worktrees"
    echo "$fgit" > "$res/floor-git-$s"
    if [[ " ${cases_of[$s]} " == *" g "* ]]; then
      # (g) walks every commit of main since the fork, and no other.
      d=${dir_of[$name]}
      gstart[$s]=$(git -C "$d" merge-base --octopus "${run_of[$s]}-main" \
        $(git -C "$d" for-each-ref --format='%(refname)' "refs/heads/${run_of[$s]}-task-*"))
      got=$(cd "$d" && git log --format=%H%x00%s "${run_of[$s]}-main" main --not "${gstart[$s]}" | wc -l)
      want=$(git -C "$d" rev-list --count main --not "${run_of[$s]}-main")
      [ "$got" = "$want" ] || bad "$s repo-$name: (g) lists $got commits, not the $want since the fork"
    fi
  done
done

# --- (a) (b) (c), interleaved -------------------------------------------------
part "(a) (b) (c): layouts, old runs, 50/500 tasks, 5,000 worktrees"
log "(a) (b) (c): $ROUNDS rounds ($ROUNDS_BIG for 500 tasks, $ROUNDS_OLD for L7 and L8), interleaved; a dot per round"
for s in "${sets[@]}"; do # warm the page cache ((b) of 500 tasks is warmed by its (a))
  for name in ${repos_of[$s]}; do
    for c in ${cases_of[$s]}; do
      [ "$s-$c" = T500-b ] || (cd "${dir_of[$name]}" && "case_$c" "$s")
    done
  done
done
for ((round = 1; round <= ROUNDS; round++)); do
  for si in "${!sets[@]}"; do
    s=${sets[$si]}
    [ "$s" != T500 ] || ((round <= ROUNDS_BIG)) || continue
    [[ $s != L[78] ]] || ((round <= ROUNDS_OLD)) || continue
    read -r -a names <<<"${repos_of[$s]}"
    ((round % 2)) || ((${#names[@]} < 2)) || names=("${names[1]}" "${names[0]}")
    read -r -a cs <<<"${cases_of[$s]}"
    # Rotate the order so that no case always runs first.
    k=$(((round + si) % ${#cs[@]}))
    order=("${cs[@]:k}" "${cs[@]:0:k}")
    for name in "${names[@]}"; do
      cd "${dir_of[$name]}"
      for c in "${order[@]}"; do
        time_us us "case_$c" "$s"
        echo "$us" >> "$res/$s-$c-$name"
        [[ $s != L[78] ]] || new_us=$((new_us + us))
      done
    done
  done
  printf '.' >&2
done
echo >&2
cd "$here"

# --- (d) (d2): the clean ------------------------------------------------------
# taskclean runs under /usr/bin/time for its peak RSS (about 1 ms of a
# clean that takes seconds).
clean_taskclean() { /usr/bin/time -f %M -a -o "$res/rss-$1-taskclean" git taskclean --run "$crun" >/dev/null; }
clean_plain() {
  local wt
  for wt in $("$here/bench/cleanrepo.sh" list); do git worktree remove --force "$wt"; done
}
check_cleaned() { # all 50 gone; after taskclean, each saved (25 with work)
  local left saved
  left=$(git -C "$cdir" worktree list --porcelain | grep -c "^worktree .*/$crun-task-" || true)
  saved=$(git -C "$cdir" for-each-ref --format='%(refname)' "refs/taskclean/$crun/" | grep -c '/worktree/' || true)
  [ "$left" = 0 ] || bad "$left worktrees left after $1"
  [ "$1" != taskclean ] || [ "$saved" = 50 ] || bad "taskclean saved $saved worktrees, not 50"
}
clean_rounds() { # d|d2, populate's mode ("" or ignored)
  local v=$1 mode=$2 round c order
  for ((round = 1; round <= CLEAN_ROUNDS; round++)); do
    # Past 3 rounds, stop when the whole run nears its budget (a slow VM).
    if ((round > 3 && $(old_elapsed) > BUDGET)); then
      log "($v): stopping after $((round - 1)) rounds (BUDGET=${BUDGET}s reached)"
      break
    fi
    if ((round % 2)); then order=(taskclean plain); else order=(plain taskclean); fi
    for c in "${order[@]}"; do
      "$here/bench/cleanrepo.sh" populate "$cdir" "$mode"
      cd "$cdir"
      time_us us "clean_$c" "$v"
      cd "$here"
      check_cleaned "$c"
      echo "$us" >> "$res/$v-$c"
      printf '.' >&2
    done
  done
  echo >&2
}
part "(d) clean of 50 worktrees"
log "(d) clean of 50 worktrees: up to $CLEAN_ROUNDS rounds (each: rebuild the 50, time one; rebuild, time the other)"
clean_rounds d ""
part "(d2) clean of 50 worktrees with ignored files"
log "(d2) the same with node_modules/ (2,000 files) and .env in each: up to $CLEAN_ROUNDS rounds"
clean_rounds d2 ignored

# --- peak memory of (a) -----------------------------------------------------
part "peak memory of (a)"
log "peak memory of (a): /usr/bin/time -v, 3 runs per set and repository"
for s in "${sets[@]}"; do
  for name in ${repos_of[$s]}; do
    for ((i = 0; i < 3; i++)); do
      (cd "${dir_of[$name]}" && /usr/bin/time -v git taskresume "${run_of[$s]}" --json 2>&1 >/dev/null) |
        awk -F': ' '/Maximum resident set size/ {print $2}' >> "$res/rss-a-$s-$name"
    done
    # And of (g), for the old runs: git's own log over the fork's distance.
    if [[ " ${cases_of[$s]} " == *" g "* ]]; then
      for ((i = 0; i < 3; i++)); do
        (cd "${dir_of[$name]}" && /usr/bin/time -f %M git log --format=%H%x00%s "${run_of[$s]}-main" main --not "${gstart[$s]}" 2>&1 >/dev/null) >> "$res/rss-g-$s-$name"
      done
    fi
  done
done

# --- --list over every run -----------------------------------------------------
# In repo-100k, repo-20k and clone-100k (where every run is on origin only):
# the floor once (it must find the runs --list lists), then (a) once under
# a time limit, traced, with its peak memory: a --list that reads each run
# as a whole report takes hours here, and the benchmark must stay usable.
# When (a) finishes, its rows are checked against the per-run reports
# (every 100th row, and the measured runs, among them every run with a
# landed task: L5, L7, L8), then (a) and (c) are timed, interleaved; when
# it does not, (c) alone is, and the table says how far (a) got.
part "--list over every run"
new_t0=$EPOCHREALTIME
dir_of[clone-100k]=$rclone
list_names=(100k 20k clone-100k)
declare -A list_ok=() list_note=() list_rows=() list_checked=() list_sq=() list_runs=()
limit=$LIST_TIMEOUT
list_cut=""
for name in "${list_names[@]}"; do
  # Within LIMIT: about 40 s are left for the floor's rounds, the remote,
  # the tables and the profile, and 20 s for each --list after this one.
  left=$((LIMIT - $(elapsed) - 40 - 20 * (${#list_names[@]} - 1)))
  if ((left < limit)); then
    limit=$((left > 20 ? left : 20))
    list_cut="time limits cut to end the run within LIMIT=${LIMIT} s"
  fi
  d=${dir_of[$name]}
  (cd "$d" && list_c && echo "$list_found $list_squash") > "$res/list-floor-$name"
  read -r "list_runs[$name]" "list_sq[$name]" < "$res/list-floor-$name"
  log "--list in ${d##*/} (${list_runs[$name]} runs): once under a ${limit} s limit"
  rm -f "$res/list-trace-$name" "$res/list-timing-$name"
  rc=0
  t0=$EPOCHREALTIME
  (cd "$d" && GIT_TASKRESUME_TRACE="$res/list-trace-$name" GIT_TASKRESUME_TIMING="$res/list-timing-$name" \
    /usr/bin/time -f %M -o "$res/rss-list-$name" \
    timeout -k 5 "$limit" git taskresume --list --json > "$res/list-$name.json") || rc=$?
  t1=$EPOCHREALTIME
  if ((rc == 124 || rc == 137)); then
    # How far: the runs it had read. A --list that reads each run as a
    # report names each run's refs/.../<run>-task-* in its trace; one that
    # reads them from shared reads marks each run "gathered" in its timing.
    n=$({ grep -o 'refs/[^ ]*-task-\*' "$res/list-trace-$name" 2>/dev/null || true; } | sed 's|.*/||; s|-task-\*$||' | sort -u | wc -l)
    m=$(grep -c -- '-- gathered$' "$res/list-timing-$name" 2>/dev/null || true)
    ((${m:-0} <= n)) || n=$m
    if ((n > 0)); then
      list_note[$name]="did not finish in $limit s (had read about $n of ${list_runs[$name]} runs)"
    else
      list_note[$name]="did not finish in $limit s"
    fi
    log "  ${list_note[$name]}"
    ((limit < LIST_TIMEOUT_NEXT)) || limit=$LIST_TIMEOUT_NEXT
    continue
  fi
  ((rc == 0)) || { wrong "--list ${d##*/}: exit $rc"; continue; }
  # Over LIST_SLOW seconds, this run is (a)'s one figure: rounds of it
  # would take the benchmark past its 15 minutes.
  list_ok[$name]=timed
  if (((10#${t1/./} - 10#${t0/./}) > LIST_SLOW * 1000000)); then
    list_ok[$name]=slow
    echo $((10#${t1/./} - 10#${t0/./})) > "$res/list-a-$name"
  fi
  rowf="$res/list-rows-$name.tsv"
  jq -r '.runs[] | [.run_id, .status, .completed_tasks, .total_tasks, (.plan // "null"), (.resume_phase // "null")] | @tsv' \
    "$res/list-$name.json" > "$rowf"
  list_rows[$name]=$(wc -l < "$rowf")
  [ "${list_rows[$name]}" = "${list_runs[$name]}" ] ||
    wrong "--list ${d##*/}: ${list_rows[$name]} rows, the floor found ${list_runs[$name]} runs"
  checked=0
  while IFS=$'\t' read -r id rest; do
    got=$(cd "$d" && git taskresume "$id" --json |
      jq -r '[.status, .completed_tasks, .total_tasks, (.plan // "null"), (.resume.phase // "null")] | @tsv') ||
      got="(git taskresume $id --json failed)"
    [ "$got" = "$rest" ] || wrong "--list ${d##*/}: the row of $id is \"$rest\", its report says \"$got\""
    checked=$((checked + 1))
  done < <(awk -F'\t' -v m=" ${run_of[*]} " 'NR % 100 == 1 || index(m, " " $1 " ")' "$rowf")
  list_checked[$name]=$checked
done
log "--list: $LIST_ROUNDS rounds of (a) (where it finished) and (c), interleaved"
for ((round = 1; round <= LIST_ROUNDS; round++)); do
  for name in "${list_names[@]}"; do
    # Where (a) did not finish, (c) alone needs no more than 3 rounds.
    cs=(c)
    [ "${list_ok[$name]:-}" = timed ] || ((round <= 3)) || continue
    [ "${list_ok[$name]:-}" != timed ] || { cs=(a c); ((round % 2)) || cs=(c a); }
    cd "${dir_of[$name]}"
    for c in "${cs[@]}"; do
      time_us us "list_$c"
      echo "$us" >> "$res/list-$c-$name"
    done
  done
  printf '.' >&2
done
echo >&2
cd "$here"
t=$EPOCHREALTIME
new_us=$((new_us + 10#${t/./} - 10#${new_t0/./}))

# --- a remote of 22,000 refs ---------------------------------------------------
# A bare copy of repo-20k (git clone --bare: its 22,000 branches) as origin
# of a clone of it, at a local path (git starts upload-pack, as over ssh),
# with a claim on m1b2c3 taken through it. Built anew each time (a second:
# local clones link the objects), so that the claim is fresh.
part "remote of 22,000 refs"
new_t0=$EPOCHREALTIME
rbare="$BENCH_DIR/remote-20k.git"
rcl="$BENCH_DIR/remote-clone"
rm -rf "$rbare" "$rcl"
git clone -q --bare "$r20" "$rbare"
git clone -q "$rbare" "$rcl"
(cd "$rcl" && git taskresume m1b2c3 --remote origin --claim --as bench-remote --ttl 2h >/dev/null)
remote_n() { git taskresume m1b2c3 --json >/dev/null; }
remote_r() { git taskresume m1b2c3 --json --remote origin >/dev/null; }
remote_r0() { git -c protocol.version=0 taskresume m1b2c3 --json --remote origin >/dev/null; }
cd "$rcl"
# The answers: the same tasks; the claim read live from origin by (r) and
# (r0), from the cache by (n).
git taskresume m1b2c3 --json > "$res/remote-n.json"
git taskresume m1b2c3 --json --remote origin > "$res/remote-r.json"
git -c protocol.version=0 taskresume m1b2c3 --json --remote origin > "$res/remote-r0.json"
tasks_of() { jq -c '[.completed_tasks, [.phases[].tasks[] | [.id, .status, .commit]]]' "$1"; }
claim_of() { jq -c '[.remote_read.live, [.phases[].tasks[] | select(.claim) | [.claim.holder, (.claim.cached // false)]]]' "$1"; }
[ "$(jq .completed_tasks "$res/remote-n.json")" = 3 ] || wrong "remote: m1b2c3's completed_tasks is not 3 ($res/remote-n.json)"
for v in r r0; do
  [ "$(tasks_of "$res/remote-$v.json")" = "$(tasks_of "$res/remote-n.json")" ] || wrong "remote: ($v) differs from (n) ($res/remote-$v.json)"
  got=$(claim_of "$res/remote-$v.json")
  [ "$got" = '[true,[["bench-remote",false]]]' ] || wrong "remote: ($v) does not read the claim live: $got"
done
got=$(claim_of "$res/remote-n.json")
[ "$got" = '[false,[["bench-remote",true]]]' ] || wrong "remote: (n) is not the report reading no remote: $got"
log "remote of $(git -C "$rbare" for-each-ref --format=x | wc -l) refs: $REMOTE_ROUNDS rounds of (n) (r) (r0), interleaved"
rcs=(n r r0)
for ((round = 1; round <= REMOTE_ROUNDS; round++)); do
  k=$((round % 3))
  for c in "${rcs[@]:k}" "${rcs[@]:0:k}"; do
    time_us us "remote_$c"
    echo "$us" >> "$res/remote-$c"
  done
  printf '.' >&2
done
echo >&2
cd "$here"
t=$EPOCHREALTIME
new_us=$((new_us + 10#${t/./} - 10#${new_t0/./}))

# --- figures ----------------------------------------------------------------
part "tables"
ms() { median < "$1" | awk '{printf "%.1f", $1 / 1000}'; }
ratios() { paste "$1" "$2" | awk '{printf "%.4f\n", $1 / $2}' | median | awk '{printf "%.2f", $1}'; }
diffs() { paste "$1" "$2" | awk '{printf "%.1f\n", ($1 - $2) / 1000}' | median | awk '{printf "%.1f", $1}'; }
rounds() { wc -l < "$1" | tr -d ' '; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "PASS" : "MISS"}'; }
maxrss() { sort -n "$@" | tail -1; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
# worst FILE: the largest "value where" line of FILE.
worst() { sort -g -k1,1 "$1" | tail -1; }
: > "$res/t-ac"
: > "$res/t-ab"
: > "$res/t-grow"
: > "$res/t-ac-more"
: > "$res/t-ag"
: > "$res/t-ag-nobloom"
: > "$res/t-rss-old"
: > "$res/t-list"
{
  echo
  echo "rounds: $ROUNDS for (a)-(c), $ROUNDS_BIG for 500 tasks, $ROUNDS_OLD for L7 and L8; times are medians in ms; ratios and (a) − (c) are medians of per-round values."
  echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (above $(nproc), other processes were competing: figures are noisier)."
  for s in "${sets[@]}"; do
    run=${run_of[$s]}
    read -r -a names <<<"${repos_of[$s]}"
    nr=$(rounds "$res/$s-a-${names[0]}")
    echo
    echo "### $s: ${title_of[$s]}"
    echo
    echo "run $run, $nr rounds; (c) starts $(cat "$res/floor-git-$s") git processes."
    echo
    hdr="| case |"
    sep="|---|"
    for name in "${names[@]}"; do hdr+=" repo-$name |"; sep+="---:|"; done
    echo "$hdr"
    echo "$sep"
    row() { # label, then a command printing the cell, given the repository name
      local line="| $1 |" name
      shift
      for name in "${names[@]}"; do line+=" $("$@" "$name") |"; done
      echo "$line"
    }
    cell_ms() { ms "$res/$s-$1-$2"; }
    cell_ratio() { ratios "$res/$s-$1-$3" "$res/$s-$2-$3"; }
    cell_diff() { diffs "$res/$s-a-$1" "$res/$s-c-$1"; }
    cell_gitp() { echo "${gitp[$s-$1]}"; }
    cell_rss() { mib "$(maxrss "$res/rss-a-$s-$1")"; }
    local_ids="${ids_of[$s]}[@]"
    ntasks=$(set -- "${!local_ids}"; echo $#)
    nbranches=$(git -C "${dir_of[${names[0]}]}" for-each-ref --format=x "refs/heads/$run-task-*" | wc -l)
    row "(a) git taskresume $run --json, ms" cell_ms a
    [[ " ${cases_of[$s]} " != *" b "* ]] ||
      row "(b) earlier tools: ${ntasks}× branch --list + ${nbranches}× rev-list --count, ms" cell_ms b
    row "(c) floor, ms" cell_ms c
    [[ " ${cases_of[$s]} " != *" g "* ]] ||
      row "(g) git log --format=%H%x00%s $run-main main --not <start>, ms" cell_ms g
    row "(a)/(c)" cell_ratio a c
    [[ " ${cases_of[$s]} " != *" b "* ]] || row "(a)/(b)" cell_ratio a b
    [[ " ${cases_of[$s]} " != *" g "* ]] || row "(a)/(g)" cell_ratio a g
    row "(a) − (c), ms: the wall time left between the report and the floor" cell_diff
    row "git processes (a) starts (\`git_processes\`)" cell_gitp
    row "peak RSS of (a), MiB (max of 3 runs)" cell_rss
    cell_rss_g() { mib "$(maxrss "$res/rss-g-$s-$1")"; }
    [[ " ${cases_of[$s]} " != *" g "* ]] || row "peak RSS of (g), MiB (max of 3 runs)" cell_rss_g
    for name in "${names[@]}"; do
      echo "$(ratios "$res/$s-a-$name" "$res/$s-c-$name") $s repo-$name" >> "$res/t-ac"
      if [ "$s" = T50 ] || [ "$s" = T500 ] || [ "$s" = W5k ]; then
        echo "$(ratios "$res/$s-a-$name" "$res/$s-c-$name") $s repo-$name" >> "$res/t-ac-more"
      fi
      if [[ $s == L* && " ${cases_of[$s]} " == *" b "* ]]; then
        echo "$(ratios "$res/$s-a-$name" "$res/$s-b-$name") $s repo-$name" >> "$res/t-ab"
      fi
      if [[ " ${cases_of[$s]} " == *" g "* ]]; then
        t=t-ag
        [ "$name" = 100k-bloom ] || t=t-ag-nobloom
        echo "$(ratios "$res/$s-a-$name" "$res/$s-g-$name") $s repo-$name" >> "$res/$t"
        echo "$(maxrss "$res/rss-a-$s-$name") (a) $s repo-$name" >> "$res/t-rss-old"
      fi
    done
    if [[ " ${cases_of[$s]} " == *" g "* ]]; then
      # Per round, in the same round: with Bloom filters over without.
      echo
      echo "(a with Bloom filters)/(a without): $(ratios "$res/$s-a-100k-bloom" "$res/$s-a-100k"); (c): $(ratios "$res/$s-c-100k-bloom" "$res/$s-c-100k"); (g): $(ratios "$res/$s-g-100k-bloom" "$res/$s-g-100k")"
    fi
    if [ "${repos_of[$s]}" = "20k 100k" ]; then
      # Per round, in the same round: a on repo-100k over a on repo-20k.
      r=$(ratios "$res/$s-a-100k" "$res/$s-a-20k")
      echo
      if [ "$s" = L6 ]; then
        echo "(a on 100k)/(a on 20k): $r — grows with the fork's distance (15,000 commits in both), not the history"
      else
        echo "(a on 100k)/(a on 20k): $r"
        echo "$r $s" >> "$res/t-grow"
      fi
    fi
  done
  echo
  echo "(a)/(b) as tasks grow (layout L1; it must fall):"
  echo
  echo "| tasks | repo-20k | repo-100k |"
  echo "|---:|---:|---:|"
  for s in L1 T50 T500; do
    printf '| %s | %s | %s |\n' "$(case $s in L1) echo 7 ;; T50) echo 50 ;; *) echo 500 ;; esac)" \
      "$(ratios "$res/$s-a-20k" "$res/$s-b-20k")" "$(ratios "$res/$s-a-100k" "$res/$s-b-100k")"
  done
  falls=yes
  for name in 20k 100k; do
    awk -v a="$(ratios "$res/L1-a-$name" "$res/L1-b-$name")" -v b="$(ratios "$res/T50-a-$name" "$res/T50-b-$name")" \
      -v c="$(ratios "$res/T500-a-$name" "$res/T500-b-$name")" 'BEGIN {exit !(a > b && b > c)}' || falls=no
  done
  echo
  echo "falls as tasks grow: $falls (500 tasks: $ROUNDS_BIG rounds, ROUNDS_BIG, since its (b) starts 700 git processes a round)"

  echo
  echo "### The clean: 50 stale worktrees (25 dirty) of clean-repo"
  echo
  echo "| case | (d) nothing ignored | (d2) + ignored node_modules/ (2,000 files) and .env |"
  echo "|---|---:|---:|"
  echo "| git taskclean --run $crun, ms | $(ms "$res/d-taskclean") | $(ms "$res/d2-taskclean") |"
  echo "| 50× git worktree remove --force, ms | $(ms "$res/d-plain") | $(ms "$res/d2-plain") |"
  echo "| taskclean / plain | $(ratios "$res/d-taskclean" "$res/d-plain") | $(ratios "$res/d2-taskclean" "$res/d2-plain") |"
  echo "| rounds | $(rounds "$res/d-plain") | $(rounds "$res/d2-plain") |"

  echo
  echo "### LIST: git taskresume --list --json over every run"
  echo
  echo "${list_runs[100k]} runs in repo-100k: the $RUNS finished runs (each with its plan on its <run>-main) and the measured ones;" \
    "(a) once under a time limit, checked, then $LIST_ROUNDS rounds of (a) and (c) where it finished (that first run alone where it took over $LIST_SLOW s), $((LIST_ROUNDS < 3 ? LIST_ROUNDS : 3)) of (c) alone where not." \
    "(c), the floor: one for-each-ref, one log --all, one cat-file --batch of the plans, one path-limited log --raw per row whose squash check is needed.${list_cut:+ ($list_cut.)}"
  echo
  echo "| case | repo-20k | repo-100k | clone-100k (every run on origin only) |"
  echo "|---|---:|---:|---:|"
  lrow() { # label, then a command printing the cell, given the repository name
    local line="| $1 |" name
    shift
    for name in 20k 100k clone-100k; do line+=" $("$@" "$name") |"; done
    echo "$line"
  }
  lcell_c() { ms "$res/list-c-$1"; }
  list_label() { case $1 in clone-*) echo "$1" ;; *) echo "repo-$1" ;; esac; }
  lcell_ratio() {
    case ${list_ok[$1]:-} in
      timed) ratios "$res/list-a-$1" "$res/list-c-$1" ;;
      slow) awk -v a="$(median < "$res/list-a-$1")" -v c="$(median < "$res/list-c-$1")" 'BEGIN {printf "%.2f", a / c}' ;;
      *) echo — ;;
    esac
  }
  lcell_rows() { echo "${list_rows[$1]:-—} / ${list_runs[$1]}"; }
  lcell_sq() { echo "${list_sq[$1]}"; }
  lcell_checked() { echo "${list_checked[$1]:-—}"; }
  lcell_rss() {
    local k
    k=$(tail -1 "$res/rss-list-$1" 2>/dev/null)
    if [ -n "${list_ok[$1]:-}" ]; then mib "$k"; elif [[ $k =~ ^[0-9]+$ ]]; then echo "$(mib "$k") until stopped"; else echo —; fi
  }
  lcell_rounds() { rounds "$res/list-c-$1"; }
  lcell_a() {
    case ${list_ok[$1]:-} in
      timed) ms "$res/list-a-$1" ;;
      slow) echo "$(ms "$res/list-a-$1") (1 run: over ${LIST_SLOW} s)" ;;
      *) echo "${list_note[$1]:-failed}" ;;
    esac
  }
  lrow "(a) git taskresume --list --json, ms" lcell_a
  lrow "(c) floor, ms" lcell_c
  lrow "(a)/(c)" lcell_ratio
  lrow "rows of (a) / runs the floor found" lcell_rows
  lrow "rows whose squash check is needed (a task not done on its branch; the floor's count)" lcell_sq
  lrow "rows checked against the run's own report (every 100th, and the measured runs)" lcell_checked
  lrow "peak RSS of (a), MiB" lcell_rss
  lrow "rounds of (c)" lcell_rounds

  echo
  echo "### R22k: a remote of $(git -C "$rbare" for-each-ref --format=x | wc -l) refs"
  echo
  echo "origin: a bare clone of repo-20k at a local path; the report of m1b2c3 in a clone of it, with one claim on origin; $(rounds "$res/remote-n") rounds, each case's order rotated."
  echo
  echo "| case | ms |"
  echo "|---|---:|"
  echo "| (n) git taskresume m1b2c3 --json: no remote read live (origin's branches as last fetched, the claim cached) | $(ms "$res/remote-n") |"
  echo "| (r) git taskresume m1b2c3 --json --remote origin: origin read live | $(ms "$res/remote-r") |"
  echo "| (r0) git -c protocol.version=0 taskresume m1b2c3 --json --remote origin: the same over protocol v0 | $(ms "$res/remote-r0") |"
  echo "| (r) − (n), ms: median of per-round differences | $(diffs "$res/remote-r" "$res/remote-n") |"
  echo "| (r0) − (n), ms | $(diffs "$res/remote-r0" "$res/remote-n") |"
  echo "| git processes (n), (r) start (\`git_processes\`) | $(jq .git_processes "$res/remote-n.json"), $(jq .git_processes "$res/remote-r.json") |"

  echo
  echo "### Peak memory (/usr/bin/time: the largest process of the tree, max of 3 runs; taskclean: of every timed run)"
  echo
  echo "| command | repo-20k | repo-100k |"
  echo "|---|---:|---:|"
  : > "$res/t-rss"
  for s in "${sets[@]}"; do
    if [ "$s" = W5k ]; then
      printf '| (a) %s, %s | %s MiB (repo-wt) | |\n' "$s" "${run_of[$s]}" "$(mib "$(maxrss "$res/rss-a-$s-wt")")"
      echo "$(maxrss "$res/rss-a-$s-wt") (a) $s" >> "$res/t-rss"
    elif [[ $s == L[78] ]]; then
      # Their own target (below), not in the table's.
      printf '| (a) %s, %s | — | %s MiB; with Bloom filters %s MiB |\n' "$s" "${run_of[$s]}" "$(mib "$(maxrss "$res/rss-a-$s-100k")")" \
        "$(mib "$(maxrss "$res/rss-a-$s-100k-bloom")")"
    else
      printf '| (a) %s, %s | %s MiB | %s MiB |\n' "$s" "${run_of[$s]}" "$(mib "$(maxrss "$res/rss-a-$s-20k")")" \
        "$(mib "$(maxrss "$res/rss-a-$s-100k")")"
      echo "$(maxrss "$res/rss-a-$s-20k" "$res/rss-a-$s-100k") (a) $s" >> "$res/t-rss"
    fi
  done
  for v in d d2; do
    printf '| git taskclean, (%s) | %s MiB (clean-repo) | |\n' "$v" "$(mib "$(maxrss "$res/rss-$v-taskclean")")"
    echo "$(maxrss "$res/rss-$v-taskclean") taskclean ($v)" >> "$res/t-rss"
  done

  echo
  echo "### Targets"
  echo
  echo "| target | result | worst | where |"
  echo "|---|---|---:|---|"
  target() { # label, limit, file of "value where" lines
    local w
    w=$(worst "$3")
    printf '| %s | %s | %s | %s |\n' "$1" "$(verdict "${w%% *}" "$2")" "${w%% *}" "${w#* }"
  }
  target "(a)/(c) ≤ 1.5, every layout" 1.5 <(grep ' L[1-6] ' "$res/t-ac")
  target "(a)/(c) ≤ 1.5, 50 and 500 tasks, 5,000 worktrees" 1.5 "$res/t-ac-more"
  target "(a)/(c) ≤ 1.5, old runs (L7, L8; with and without Bloom filters)" 1.5 <(grep ' L[78] ' "$res/t-ac")
  target "(a)/(g) ≤ 1.5, old runs, with Bloom filters" 1.5 "$res/t-ag"
  w=$(worst "$res/t-ag-nobloom")
  printf '| (a)/(g) without Bloom filters, for information | — | %s | %s |\n' "${w%% *}" "${w#* }"
  target "(a)/(b) ≤ 0.25 at 7 tasks, every layout" 0.25 "$res/t-ab"
  target "(a 100k)/(a 20k) ≤ 1.2, every layout but L6 (and 50, 500 tasks)" 1.2 "$res/t-grow"
  printf '| (a 100k)/(a 20k) in L6, for information | — | %s | grows with the fork'"'"'s distance, not the history |\n' \
    "$(ratios "$res/L6-a-100k" "$res/L6-a-20k")"
  printf '| (a)/(b) falls as tasks grow (7, 50, 500) | %s | | L1 layout |\n' "$([ $falls = yes ] && echo PASS || echo MISS)"
  # A --list that did not finish misses both: its time, and its memory
  # (what it had reached when stopped is shown when over the target).
  w=""
  : > "$res/t-rss-list"
  for name in "${list_names[@]}"; do
    k=$(tail -1 "$res/rss-list-$name" 2>/dev/null)
    if [ -z "${list_ok[$name]:-}" ]; then
      w=${w:-"$(list_label "$name"): ${list_note[$name]:-failed}"}
      [[ ! $k =~ ^[0-9]+$ ]] || echo "$k $(list_label "$name") (until stopped)" >> "$res/t-rss-list"
    else
      echo "$(lcell_ratio "$name") $(list_label "$name")" >> "$res/t-list"
      echo "$k $(list_label "$name")" >> "$res/t-rss-list"
    fi
  done
  if [ -n "$w" ]; then
    printf '| --list: (a)/(c) ≤ 2 | MISS | | %s |\n' "$w"
  else
    target "--list: (a)/(c) ≤ 2" 2 "$res/t-list"
  fi
  w=$(sort -n "$res/t-rss-list" | tail -1)
  if [ -z "$w" ]; then
    printf '| --list: peak RSS < 100 MiB | MISS | | not measured |\n'
  elif grep -q 'until stopped' "$res/t-rss-list" && ((${w%% *} < 100 * 1024)); then
    printf '| --list: peak RSS < 100 MiB | MISS | %s MiB | %s; not measured to the end |\n' "$(mib "${w%% *}")" "${w#* }"
  else
    printf '| --list: peak RSS < 100 MiB | %s | %s MiB | %s |\n' "$(awk -v k="${w%% *}" 'BEGIN {print (k < 100 * 1024) ? "PASS" : "MISS"}')" \
      "$(mib "${w%% *}")" "${w#* }"
  fi
  d=$(diffs "$res/remote-r" "$res/remote-n")
  printf '| remote of 22,000 refs: (r) − (n) ≤ +20 ms | %s | %s ms | m1b2c3, clone of a bare copy of repo-20k |\n' "$(verdict "$d" 20)" "$d"
  printf '| remote over protocol v0: (r0) − (n), for information | — | %s ms | |\n' "$(diffs "$res/remote-r0" "$res/remote-n")"
  r=$(ratios "$res/d-taskclean" "$res/d-plain")
  printf '| taskclean/plain ≤ 1.5, (d) | %s | %s | |\n' "$(verdict "$r" 1.5)" "$r"
  r=$(ratios "$res/d2-taskclean" "$res/d2-plain")
  printf '| taskclean/plain ≤ 1.3, (d2) | %s | %s | |\n' "$(verdict "$r" 1.3)" "$r"
  w=$(worst "$res/t-rss")
  printf '| peak RSS ≤ 50 MiB | %s | %s MiB | %s |\n' "$(awk -v k="${w%% *}" 'BEGIN {print (k <= 50 * 1024) ? "PASS" : "MISS"}')" \
    "$(mib "${w%% *}")" "${w#* }"
  w=$(sort -n "$res/t-rss-old" | tail -1)
  printf '| peak RSS < 50 MiB, old runs (L7, L8; with and without Bloom filters) | %s | %s MiB | %s |\n' \
    "$(awk -v k="${w%% *}" 'BEGIN {print (k < 50 * 1024) ? "PASS" : "MISS"}')" "$(mib "${w%% *}")" "${w#* }"
  if [ -s "$res/wrong.txt" ]; then
    echo
    echo "### The report was wrong"
    echo
    sed 's/^bench: WRONG REPORT: /- /' "$res/wrong.txt"
  fi
} | tee -a "$res/table.txt"

if [ "${PROFILE:-1}" != 0 ]; then
  part "profiles"
  echo
  "$here/bench/profile.sh" "$r100" m1b2c3 | tee "$res/profile.txt"
  if [ "${PROFILE:-1}" = full ] || (($(old_elapsed) < BUDGET)); then
    {
      echo
      echo "## profile of git taskclean --run $crun (50 stale worktrees, 25 dirty; one run, GIT_TRACE2_EVENT)"
      "$here/bench/cleanrepo.sh" populate "$cdir"
      (cd "$cdir" && GIT_TRACE2_EVENT="$res/clean-trace2" git taskclean --run "$crun" >/dev/null)
      trace2sum -group "$res/clean-trace2" | sed 's/^/    /'
    } | tee "$res/profile-clean.txt"
  else
    printf '\n(profile of git taskclean skipped: past BUDGET=%ss; PROFILE=full runs it)\n' "$BUDGET"
  fi
fi
part ""
{
  echo
  echo "time per part (s):"
  echo
  echo "| part | s |"
  echo "|---|---:|"
  awk -F'\t' '{printf "| %s | %s |\n", $1, $2}' "$res/parts"
  echo
  echo "(bench/run.sh took $(elapsed)s; raw figures in $res)"
} | tee -a "$res/table.txt"
[ ! -s "$res/wrong.txt" ] || { echo "bench: the report was wrong in a layout (above): failing" >&2; exit 1; }
