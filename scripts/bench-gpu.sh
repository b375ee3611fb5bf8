#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/bench-gpu.sh: builds an optimised tree with the benchmark programs and runs bench/run.sh on the GPU machine, in one call.
# Usage: bash scripts/bench-gpu.sh [BUILD_DIR]   (default build-bench; about 6 minutes)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-$ROOT/build-bench}
cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$B.log" 2>&1 && cmake --build "$B" -j"$(nproc)" >>"$B.log" 2>&1 || { tail -30 "$B.log"; exit 1; }
[ -x "$B/bench/calls" ] || { echo "bench/calls was not built (no nvcc?)"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" 2>/dev/null
exec bash "$ROOT/bench/run.sh" "$B"
