#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-all.sh: on a GPU machine, runs GPU check scripts one after another in one call, each under its own time limit, keeps each one's output, and prints a table of their verdicts last.
# Usage: scripts/gpu-check-all.sh <<'EOF'     (one check a line, read from standard input:
#        tracering 150                           NAME LIMIT [VAR=VALUE...] [-- ARG...]: NAME is
#        share 240 PHASES="solo pairs" -- 30     the script's name after gpu-check- ("main" for
#        EOF                                     gpu-check.sh), LIMIT its seconds; shell quoting)
#        LOGS=DIR: where each check's output goes, NAME.log (default: $OUT where set, else out-all).
# Exits 0 when every check exited 0. A check cut by its limit is "timed out", never a pass.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=${LOGS:-${OUT:-$ROOT/out-all}}
mkdir -p "$LOGS"
rows=()
bad=0
while IFS= read -r line; do
  [ -n "${line//[[:space:]]/}" ] || continue
  [ "${line#\#}" = "$line" ] || continue
  eval "set -- $line"
  name=$1 limit=${2:-}
  shift 2 || { echo "a line needs a NAME and a LIMIT: $line"; exit 2; }
  case $limit in '' | *[!0-9]*) echo "LIMIT is a number of seconds: $line"; exit 2 ;; esac
  vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  script=$ROOT/scripts/gpu-check-$name.sh
  [ "$name" = main ] && script=$ROOT/scripts/gpu-check.sh
  [ -f "$script" ] || { echo "no script $script"; exit 2; }
  log=$LOGS/$name.log
  # The same check twice keeps both logs.
  k=2; while [ -e "$log" ]; do log=$LOGS/$name.$k.log; k=$((k + 1)); done
  t0=$SECONDS
  timeout -k 10 "$limit" env "${vars[@]}" bash "$script" "$@" >"$log" 2>&1 </dev/null
  rc=$?
  verdict=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  case $rc in
    0) ;;
    124 | 137) verdict="timed out at ${limit} s${verdict:+ (last: $verdict)}"; bad=1 ;;
    *) verdict="status $rc${verdict:+: $verdict}"; bad=1 ;;
  esac
  [ -n "$verdict" ] || { verdict="no verdict line"; bad=1; }
  echo "== $name ($((SECONDS - t0)) s): $verdict"
  rows+=("$(printf '%-12s %6s %s' "$name" "$((SECONDS - t0))s" "$verdict")")
done
echo
printf '%-12s %6s %s\n' check time verdict
printf '%s\n' "${rows[@]}"
exit $bad
