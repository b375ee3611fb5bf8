#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/callgrind-wrapper.sh: instructions per call of one wrapper, inclusive (the dispatch, the hooks and the mock function it calls), under valgrind's callgrind: exact where timings are noisy.
# Usage: bench/callgrind-wrapper.sh BUILD_DIR MODE [VAR=VALUE ...]
#   MODE: plt or procaddress (cuCtxGetCurrent), cudart (cudaGetDevice), launch (cuLaunchKernel),
#   sync (cuCtxSynchronize, each after a launch whose work ends at once on the mock);
#   the variables configure cuaudit, e.g. CUAUDIT_SUMMARY=/tmp/s.json CUAUDIT_SUMMARY_SAMPLE=0.
# mock_calls makes 10 passes of 1000 calls: the wrapper's inclusive count over 10,000 calls.
set -eu
B=$(cd "${1:?usage: bench/callgrind-wrapper.sh BUILD_DIR MODE [VAR=VALUE ...]}" && pwd)
mode=${2:?mode: plt, procaddress, cudart, launch or sync}
shift 2
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
case $mode in
  plt | procaddress) fn=cua_w_cuCtxGetCurrent ;;
  cudart) fn=cua_w_cudaGetDevice ;;
  launch) fn=cua_w_cuLaunchKernel ;;
  sync) fn=cua_w_cuCtxSynchronize ;;
  *) echo "unknown mode $mode"; exit 1 ;;
esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
env LD_LIBRARY_PATH="$B/mock" LD_AUDIT="$B/libcuaudit.so" CUAUDIT_LOG=warn "$@" \
  valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$B/tests/cases/mock_calls" "$mode" 1000 >/dev/null 2>"$W/err" ||
  { echo "the run failed: $(tail -3 "$W/err")"; exit 1; }
n=$(callgrind_annotate --inclusive=yes "$W/cg" 2>/dev/null | grep -E "^ *[0-9,]+ .*:$fn \[" | head -1 | awk '{gsub(",", "", $1); print $1}')
[ -n "$n" ] || { echo "no line for $fn in callgrind's output"; exit 1; }
awk -v n="$n" 'BEGIN {printf "%.1f\n", n / 10000}'
