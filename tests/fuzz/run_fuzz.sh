#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/fuzz/run_fuzz.sh: runs one libFuzzer target for a bounded time on a copy of its seed corpus.
# Usage: run_fuzz.sh FUZZER SEED_DIR SECONDS WORK_DIR
set -eu
fuzzer=$1 seeds=$2 seconds=$3 work=$4
rm -rf "$work" && mkdir -p "$work/corpus" && cp "$seeds"/* "$work/corpus/"
cd "$work"
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 corpus 2>&1 | tail -12
