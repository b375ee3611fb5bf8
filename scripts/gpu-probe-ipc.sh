#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-probe-ipc.sh: numba-cuda's test_ipc_handle (the test that lost its result under
# every hook on tree e32ec71) as tests/gpu/ipc_race.py, PARENTS at once, TRIALS each (a fresh
# child a trial), natively and under each hook alone and all together; with
# OLD=path/to/tree.tgz, the same for that tree too, to tell which hook a wrong result needs.
# Exits 1 if any run of this tree read a wrong result or ended other than with status 0.
# A trial costs a process start, numba's import and a CUDA context: on an H200 host, 8
# parents on 8 cores, a configuration of TRIALS=12 took 49-57 s, the two builds (-j8) about
# 80 s. Run 2026-11-27 (docs/gpu-validation.md): no wrong result on either tree.
# Usage: scripts/gpu-probe-ipc.sh   (environment: PARENTS=8, TRIALS=20, OLD=, CONFIGS="all gpu
#        live static outputs log")
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
W=${GPU_BUILD_DIR:-$ROOT/build-probe}
PARENTS=${PARENTS:-8}
TRIALS=${TRIALS:-20}
CONFIGS=${CONFIGS:-all gpu live static outputs log}
R=$W/out
rm -rf "$R"
mkdir -p "$R"

build() { # SRC DIR
  local zargs=()
  mkdir -p "$2"
  if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$ROOT"/zydis-debs/*.deb >/dev/null 2>&1; then
    for d in "$ROOT"/zydis-debs/*.deb; do dpkg -x "$d" "$2/zydis"; done
    zargs=(-DZYDIS_INCLUDE_DIR="$2/zydis/usr/include"
      -DZYDIS_LIBRARY="$(ls "$2"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
  fi
  cmake -S "$1" -B "$2" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo "${zargs[@]}" >"$2.log" 2>&1 &&
    cmake --build "$2" -j"$(nproc)" --target cuaudit >>"$2.log" 2>&1
}

trees=(new)
build "$ROOT" "$W/new" || { tail -20 "$W/new.log"; echo "build of this tree failed"; exit 1; }
if [ -n "${OLD:-}" ]; then
  mkdir -p "$W/old-src" && tar xzf "$OLD" -C "$W/old-src" &&
    build "$W/old-src" "$W/old" && trees+=(old) || { tail -20 "$W/old.log"; echo "build of OLD failed"; }
fi

env_of() { # CONFIG AUDIT DIR: the hooks' variables, one per line
  local inc="CUAUDIT_INCLUDE=cuIpc*,cuMemcpy*,cuMemAlloc*,cuMemFree*,cuCtx*,cuDevicePrimaryCtx*,cuMemGetAddressRange*"
  echo "LD_AUDIT=$2"
  case $1 in
    native) echo "LD_AUDIT=" ;;
    all) printf '%s\n' CUAUDIT_GPU_TIME=on CUAUDIT_LIVE=1 "CUAUDIT_LIVE_DIR=$3/live" CUAUDIT_STATIC_RUNTIME=1 \
      "CUAUDIT_SUMMARY=$3/summary.%p.json" "CUAUDIT_TRACE=$3/trace.%p.json" "CUAUDIT_METRICS=$3/metrics.%p.prom" \
      CUAUDIT_LOG=verbose "$inc" "CUAUDIT_LOG_FILE=$3/log.%p" ;;
    gpu) printf '%s\n' CUAUDIT_GPU_TIME=on "CUAUDIT_SUMMARY=$3/summary.%p.json" ;;
    live) printf '%s\n' CUAUDIT_LIVE=1 "CUAUDIT_LIVE_DIR=$3/live" ;;
    static) printf '%s\n' CUAUDIT_STATIC_RUNTIME=1 ;;
    outputs) printf '%s\n' "CUAUDIT_SUMMARY=$3/summary.%p.json" "CUAUDIT_TRACE=$3/trace.%p.json" "CUAUDIT_METRICS=$3/metrics.%p.prom" ;;
    log) printf '%s\n' CUAUDIT_LOG=verbose "$inc" "CUAUDIT_LOG_FILE=$3/log.%p" ;;
  esac
}

rows=()
failed=0
for t in "${trees[@]}"; do
  for c in native $CONFIGS; do
    [ "$c" = native ] && [ "$t" = old ] && continue
    d=$R/$t-$c
    mkdir -p "$d/live"
    mapfile -t vars < <(env_of "$c" "$W/$t/libcuaudit.so" "$d")
    t0=$(date +%s)
    for p in $(seq "$PARENTS"); do
      (cd "$d" && env "${vars[@]}" timeout 300 python3 "$ROOT/tests/gpu/ipc_race.py" "$TRIALS" >"$d/p$p.out" 2>"$d/p$p.err"; echo $? >"$d/p$p.rc") &
    done
    wait
    trials=$(cat "$d"/p*.out | awk '/^trials/ { n += $2; b += $4 } END { print n + 0, b + 0 }')
    rcs=$(cat "$d"/p*.rc | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    [ "$t" = new ] && { [ "${trials#* }" = 0 ] && [ "$rcs" = " $PARENTS 0;" ] || failed=1; }
    rows+=("$(printf '%-4s %-8s trials/bad %-10s rc %-14s %ss' "$t" "$c" "$trials" "$rcs" $(($(date +%s) - t0)))")
    grep -h MISMATCH "$d"/p*.out | head -3
  done
done
(cd "$R" && tar czf "${OUT:-$R}/probe.tgz" . 2>/dev/null)
printf '%s\n' "${rows[@]}"
[ "$failed" = 0 ]
