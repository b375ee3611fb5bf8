#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/nvtx.sh: what an NVTX push/pop pair costs: NVTX with no tool, with cuaudit's injection library under the module, and (valgrind) its exact instructions.
# Usage: bench/nvtx.sh BUILD_DIR [N]   (LD_LIBRARY_PATH need not name the mock: no CUDA call is made)
set -eu
B=$(cd "${1:?usage: bench/nvtx.sh BUILD_DIR [N]}" && pwd)
N=${2:-2000000}
P=$B/tests/cases/nvtx_pairs
LIB=$B/libcuaudit-nvtx.so
[ -x "$P" ] || { echo "build $P first (cmake --build $B --target nvtx_pairs)"; exit 1; }
printf '%-34s %s\n' "configuration" "time per pair"
printf '%-34s %s\n' "no tool (NVTX a no-op)" "$("$P" "$N")"
printf '%-34s %s\n' "libcuaudit-nvtx.so, no module" "$(NVTX_INJECTION64_PATH=$LIB "$P" "$N")"
printf '%-34s %s\n' "cuaudit: ranges kept" "$(LD_AUDIT=$B/libcuaudit.so CUAUDIT_LOG=warn NVTX_INJECTION64_PATH=$LIB "$P" "$N")"
printf '%-34s %s\n' "cuaudit: ranges + live view" "$(LD_AUDIT=$B/libcuaudit.so CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$(mktemp -d) NVTX_INJECTION64_PATH=$LIB "$P" "$N")"
printf '%-34s %s\n' "cuaudit: ranges + trace" "$(LD_AUDIT=$B/libcuaudit.so CUAUDIT_LOG=warn CUAUDIT_TRACE=/dev/null NVTX_INJECTION64_PATH=$LIB "$P" "$((N / 10))")"
# Instructions per pair: (Ir of 3M pairs - Ir of M pairs) / 2M, start-up and exit cancel.
if command -v valgrind >/dev/null; then
  W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
  ir() {
    env "$@" valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$P" "$M" 1 >/dev/null 2>"$W/err"
    callgrind_annotate "$W/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
  }
  M=20000
  for cfg in "none:" "cuaudit:LD_AUDIT=$B/libcuaudit.so CUAUDIT_LOG=warn NVTX_INJECTION64_PATH=$LIB"; do
    name=${cfg%%:*}; vars=${cfg#*:}
    a=$(M=$M ir $vars); M=$((3 * 20000)); b=$(ir $vars); M=20000
    printf '%-34s %s instructions per pair (callgrind)\n' "$name" "$(( (b - a) / (2 * M) ))"
  done
fi
