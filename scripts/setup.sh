#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/setup.sh: installs what the build needs (Debian/Ubuntu), then configures and builds into build/.
# Sourced by scripts/demo.sh and scripts/test.sh; BUILD_DIR overrides the build folder.
# SETUP_LOG=FILE: one line per stage on the terminal, everything else into FILE, and its
# end shown if a stage fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}

need_pkgs=()
command -v cmake >/dev/null || need_pkgs+=(cmake)
command -v cc >/dev/null || need_pkgs+=(gcc)
command -v make >/dev/null || need_pkgs+=(make)
command -v python3 >/dev/null || need_pkgs+=(python3)
command -v pkg-config >/dev/null || need_pkgs+=(pkg-config)
command -v nm >/dev/null || need_pkgs+=(binutils)
pkg-config --exists cmocka 2>/dev/null || need_pkgs+=(libcmocka-dev)
[ -f /usr/include/sqlite3.h ] || need_pkgs+=(libsqlite3-dev)
# The x86-64 decoder of CUAUDIT_STATIC_RUNTIME (the build turns the feature off without it).
[ -f /usr/include/Zydis/Zydis.h ] || [ "$(uname -m)" != x86_64 ] || need_pkgs+=(libzydis-dev)
# For scripts/test.sh's extra stages: libFuzzer comes with clang, memcheck with valgrind.
if [ "${CUAUDIT_SETUP_EXTRAS:-0}" = 1 ]; then
  command -v clang >/dev/null || need_pkgs+=(clang)
  command -v valgrind >/dev/null || need_pkgs+=(valgrind)
  command -v systemd-analyze >/dev/null || need_pkgs+=(systemd)
  command -v dpkg-deb >/dev/null || need_pkgs+=(dpkg)
  command -v lintian >/dev/null || need_pkgs+=(lintian)
  # The Chrome DevTools trace engine (npm) loads cuaudit's traces in tests/cases/output.sh.
  command -v node >/dev/null || need_pkgs+=(nodejs)
  command -v npm >/dev/null || need_pkgs+=(npm)
  # promtool checks CUAUDIT_METRICS files.
  command -v promtool >/dev/null || need_pkgs+=(prometheus)
fi
# step TITLE CMD...: runs CMD, quietly into $SETUP_LOG when set.
step() {
  local title=$1; shift
  if [ -z "${SETUP_LOG:-}" ]; then "$@"; return; fi
  echo "setup: $title"
  echo "=== $title: $*" >>"$SETUP_LOG"
  "$@" >>"$SETUP_LOG" 2>&1 && return 0
  echo "setup: $title failed; the end of $SETUP_LOG:" >&2
  tail -25 "$SETUP_LOG" >&2
  return 1
}
[ -n "${SETUP_LOG:-}" ] && : >"$SETUP_LOG"

if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${need_pkgs[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! command -v apt-get >/dev/null; then
    echo "setup: please install ${need_pkgs[*]} with your package manager" >&2
    exit 1
  fi
  step "updating the package lists" $sudo apt-get update -qq
  step "installing ${need_pkgs[*]}" env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_pkgs[@]}"
fi

# The CUDA Toolkit is not in Debian's default repositories at the version cuaudit needs;
# CMake's find_package(CUDAToolkit) stops with install instructions when it is missing.
# CUAUDIT_WERROR=1 (scripts/test.sh, CI): warnings as errors.
step "configuring into $BUILD_DIR" cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUAUDIT_WERROR="$([ "${CUAUDIT_WERROR:-0}" = 1 ] && echo ON || echo OFF)"
step "building (log: ${SETUP_LOG:-the terminal})" cmake --build "$BUILD_DIR" -j"$(nproc)"
if [ "${CUAUDIT_SETUP_EXTRAS:-0}" = 1 ] && [ ! -d "$BUILD_DIR/node_modules/@paulirish/trace_engine" ]; then
  step "installing the Chrome DevTools trace engine (npm) into $BUILD_DIR" \
    npm install --prefix "$BUILD_DIR" --no-audit --no-fund --silent @paulirish/trace_engine@0.0.65
fi
