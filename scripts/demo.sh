#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/demo.sh: builds cuaudit quietly, runs the demo under it (real driver if any, else the mock) and shows the log, the summary and the trace.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
mkdir -p "$BUILD_DIR"
export SETUP_LOG=$BUILD_DIR/demo-build.log
source "$ROOT/scripts/setup.sh"

OUT=$BUILD_DIR/demo-out
rm -rf "$OUT" && mkdir -p "$OUT"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "demo: running on the real CUDA driver"
else
  echo "demo: no CUDA driver on this machine; running on the bundled mock driver (tests/mock)"
  export LD_LIBRARY_PATH="$BUILD_DIR/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

cmd=("$BUILD_DIR/cuaudit" run --log verbose --log-file "$OUT/cuaudit.log"
  --summary="$OUT/summary.json" --trace "$OUT/trace.json" -- "$BUILD_DIR/examples/demo")
echo "demo: ${cmd[*]#$BUILD_DIR/}"
echo
echo "--- the program's own output"
"${cmd[@]}"

echo
echo "--- the log: every CUDA call with its arguments, result and time ($OUT/cuaudit.log)"
grep -v ' info: ' "$OUT/cuaudit.log" | sed -E 's/^cuaudit: [0-9.]+ pid=[0-9]+ tid=[0-9]+ /  /' | head -25
n=$(grep -c ' -> ' "$OUT/cuaudit.log" || true)
echo "  ($n calls logged)"

echo
echo "--- the summary: per-API statistics ($OUT/summary.json)"
"$BUILD_DIR/cuaudit" report "$OUT/summary.json"

echo
echo "--- the trace: $OUT/trace.json"
echo "  Open it in the Perfetto UI (https://ui.perfetto.dev, 'Open trace file') or in"
echo "  chrome://tracing ('Load'). Each CUDA call is a slice on its thread's track."
echo
echo "demo: done. Try 'cuaudit run --help' ($BUILD_DIR/cuaudit), and 'bash scripts/test.sh'."
