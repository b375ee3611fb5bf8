#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/demo.sh: builds cuaudit and runs the demo under it, on the real driver if there is one, else on the mock.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "demo: running on the real CUDA driver"
else
  echo "demo: no CUDA driver on this machine; running on the bundled mock driver"
  export LD_LIBRARY_PATH="$BUILD_DIR/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
echo "demo: LD_AUDIT=$BUILD_DIR/libcuaudit.so CUAUDIT_LOG=verbose $BUILD_DIR/examples/demo"
LD_AUDIT="$BUILD_DIR/libcuaudit.so" CUAUDIT_LOG=verbose "$BUILD_DIR/examples/demo"
