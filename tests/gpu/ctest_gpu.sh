#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/ctest_gpu.sh: the ctest entry for scripts/gpu-check.sh; exits 77 (skipped) where there is no GPU.
set -u
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU on this machine: the GPU checks are skipped"
  exit 77
fi
exec bash "$(dirname "$0")/../../scripts/gpu-check.sh"
