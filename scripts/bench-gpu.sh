#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/bench-gpu.sh: builds an optimised tree with the benchmark programs and runs bench/run.sh on the GPU machine, in one call.
# Usage: bash scripts/bench-gpu.sh [BUILD_DIR]   (default build-bench; about 6 minutes)
# Environment: bench/run.sh's, and BUILD_ONLY=1 to build the tree (and the baseline) and stop.
# With baseline-src.tar.gz in the root, a baseline that does not build stops the run (exit 1).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-$ROOT/build-bench}
cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$B.log" 2>&1 && cmake --build "$B" -j"$(nproc)" >>"$B.log" 2>&1 || { tail -30 "$B.log"; exit 1; }
[ -x "$B/bench/calls" ] || { echo "bench/calls was not built (no nvcc?)"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" 2>/dev/null
# A baseline module to compare with, built from a source archive carried along
# (git archive OLD_COMMIT | gzip > baseline-src.tar.gz); same programs, same rounds.
# A second call on a machine still warm finds the same archive unpacked and built: kept.
if [ -f "$ROOT/baseline-src.tar.gz" ] && [ -z "${BASELINE:-}" ]; then
  if ! [ -f "$B-baseline/libcuaudit.so" ] || ! cmp -s "$ROOT/baseline-src.tar.gz" "$B-baseline/src.tar.gz"; then
    rm -rf "$B-baseline-src" "$B-baseline" && mkdir -p "$B-baseline-src" &&
      tar xzf "$ROOT/baseline-src.tar.gz" -C "$B-baseline-src" &&
      cmake -S "$B-baseline-src" -B "$B-baseline" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release >>"$B.log" 2>&1 &&
      cmake --build "$B-baseline" -j"$(nproc)" --target cuaudit >>"$B.log" 2>&1 &&
      cp "$ROOT/baseline-src.tar.gz" "$B-baseline/src.tar.gz" || { tail -30 "$B.log"; exit 1; }
  fi
  export BASELINE=$B-baseline/libcuaudit.so
  echo "baseline: $(cat "$B-baseline-src/BASELINE" 2>/dev/null || echo archive)"
fi
# BUILD_ONLY=1: build both and stop (a first device call that also runs other checks).
[ "${BUILD_ONLY:-0}" = 1 ] && { echo "built: $B${BASELINE:+ and $BASELINE}"; exit 0; }
exec bash "$ROOT/bench/run.sh" "$B"
