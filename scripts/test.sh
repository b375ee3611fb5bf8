#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/test.sh: builds cuaudit and runs the whole test suite (tests labelled gpu skip without a GPU).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)"
