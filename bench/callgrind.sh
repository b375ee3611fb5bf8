#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/callgrind.sh: exact instructions per call on the mock driver, per configuration, under valgrind's callgrind: deterministic where timings on a shared machine are not.
# Usage: [OWN=1] bench/callgrind.sh BUILD_DIR [LIBCUAUDIT]   (LIBCUAUDIT: another build of the module; default BUILD_DIR's)
# OWN=1 counts only the instructions inside the module (see ir below).
# Each cell is (Ir of a run with 3N calls - Ir of a run with N calls) / 2N per pass: start-up and
# exit cancel, what is left is one call's instructions, the mock function's own included.
set -eu
B=$(cd "${1:?usage: bench/callgrind.sh BUILD_DIR [LIBCUAUDIT]}" && pwd)
LIB=${2:-$B/libcuaudit.so}
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH=$B/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
A="LD_AUDIT=$LIB CUAUDIT_LOG=warn"
declare -A env_of=(
  [native]=""
  [no_hook]="$A"
  [dispatch]="$A CUAUDIT_PLUGINS=$B/bench/breakdown_untimed.so"
  [dispatch_timed]="$A CUAUDIT_PLUGINS=$B/bench/breakdown_timed.so"
  [memlimit]="$A CUAUDIT_MEM_LIMIT=1TiB"
  [metrics]="$A CUAUDIT_METRICS=$W/metrics.%p.prom"
  [summary]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0"
  [sampled]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=64"
  [summary_metrics]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_METRICS=$W/metrics.%p.prom"
  [trace]="$A CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_TRACE_EXIT_TIME=3600"
  [live]="$A CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  [summary_live]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  [gpu_time]="$A CUAUDIT_GPU_TIME=1 CUAUDIT_SUMMARY=$W/summary.%p.json"
  [all]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_METRICS=$W/metrics.%p.prom CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live CUAUDIT_GPU_TIME=1 CUAUDIT_TRACE_EXIT_TIME=3600"
)
# The trace's conversion at exit always runs to its end: under valgrind on a loaded machine
# the default 5 s deadline can cut it partway, and the count then measures the deadline.
configs=${CONFIGS:-"native no_hook dispatch dispatch_timed memlimit metrics summary sampled summary_metrics trace live summary_live gpu_time all"}
N=${N:-1000}
ir() { # CONFIG MODE CALLS
  env ${env_of[$1]} valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" \
    "$B/tests/cases/mock_calls" "$2" "$3" >/dev/null 2>"$W/err" || { echo nan; return; }
  if [ -n "${OWN:-}" ]; then
    # Only the instructions of functions inside the module: the mock's own cost moves with
    # the order its name table was filled in (a linear search), which hooks change.
    callgrind_annotate --threshold=100 "$W/cg.out" 2>/dev/null |
      awk -v lib="$(basename "$LIB")" 'index($0, "[") && index($0, "/" lib "]") { gsub(",", "", $1); s += $1 } END { print s + 0 }'
  else
    awk '/Collected :/ {print $NF}' "$W/err"
  fi
  rm -rf "$W"/trace.* "$W"/summary.* "$W"/metrics.* "$W"/live
}
printf '%-16s %10s %16s %18s %10s\n' config "(a) PLT" "(b) procaddress" "(c) cudaGetDevice" "(d) launch"
for c in $configs; do
  row=$(printf '%-16s' "$c")
  for mode in plt procaddress cudart launch; do
    lo=$(ir "$c" $mode "$N"); hi=$(ir "$c" $mode $((3 * N)))
    # mock_calls runs 10 passes (one warm-up) of the count it is given.
    row+=$(awk -v lo="$lo" -v hi="$hi" -v n="$N" 'BEGIN {printf " %12.1f", (hi - lo) / (2 * n * 10)}')
  done
  echo "$row"
done
if [ -n "${OWN:-}" ]; then
  echo "instructions per call (callgrind Ir) inside $(basename "$LIB") only (OWN=1)"
else
  echo "instructions per call (callgrind Ir), the mock function included; subtract native for what cuaudit adds"
fi
