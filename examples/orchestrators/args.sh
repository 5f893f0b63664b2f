# Argument handling shared by the example scripts of this folder (sourced,
# not run): `SCRIPT [-n] RUN`. Sets $dry (--dry-run or empty) and $run;
# -h prints the script's header comment. $run_hint finishes the error for
# a missing run id.

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

dry=
run=
for arg in "$@"; do
  case $arg in
    -h | --help) usage; exit 0 ;;
    -n | --dry-run) dry=--dry-run ;;
    -*) echo "error: unknown option $arg; see $0 -h" >&2; exit 2 ;;
    *)
      if [ -n "$run" ]; then
        echo "error: one run id expected, got $run and $arg; see $0 -h" >&2
        exit 2
      fi
      run=$arg
      ;;
  esac
done
if [ -z "$run" ]; then
  echo "error: no run id given: pass the run's id ($run_hint); see $0 -h" >&2
  exit 2
fi
