#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fuzz/run_fuzz.sh: runs one libFuzzer target for a bounded time on a copy of its seed corpus.
# Usage: run_fuzz.sh FUZZER SEED_DIR SECONDS WORK_DIR. Exits with the fuzzer's status: a crash,
# a failed check or a leak fails the test.
set -euo pipefail
fuzzer=$1 seeds=$2 seconds=$3 work=$4
rm -rf "$work" && mkdir -p "$work/corpus"
shopt -s nullglob
seed_files=("$seeds"/*)
[ ${#seed_files[@]} -gt 0 ] || { echo "run_fuzz: no seeds in $seeds" >&2; exit 1; }
cp "${seed_files[@]}" "$work/corpus/"
cd "$work"
rc=0
# -timeout: an input that runs 10 s (a reader that loops on a damaged file) fails the run;
# max_total_time alone never interrupts one input.
"$fuzzer" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 corpus >fuzz.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
  # The crash report and the reproducer's name are near the end; show enough to act on.
  tail -60 fuzz.log
  echo "run_fuzz: ${fuzzer##*/} failed with status $rc (full log: $work/fuzz.log)" >&2
  exit 1 # not the fuzzer's own code: libFuzzer fails with 77, which reads as "skipped" elsewhere
fi
tail -12 fuzz.log
