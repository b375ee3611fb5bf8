#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-numba.sh: on a GPU machine, runs numba-cuda's own driver and IPC tests
# (pytest-xdist, 8 workers) natively and then RUNS times under every hook at once, and compares
# each test's outcome with the native run's. A test that passes natively must pass every time.
# Usage: scripts/gpu-check-numba.sh   (environment: RUNS=5, NATIVE_RUNS=1, WORKERS=8,
#        TESTS="numba.cuda.tests.cudadrv numba.cuda.tests.cudapy.test_ipc", BUDGET_S=480:
#        no hooked run starts after BUDGET_S seconds of runs, and the table says so;
#        OLD=path/to/tree.tgz: as many runs again of that tree under the same hooks, named
#        oldN, interleaved with this tree's; PARALLEL=1: runs at once, each on GPU k mod the
#        GPUs there are, the native runs first; KEEP_LOGS=failed: the logs of which runs go
#        into results.tgz, all or failed)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-numba
rm -rf "$R"
mkdir -p "$R"
AUDIT=$B/libcuaudit.so
RUNS=${RUNS:-5}
NATIVE_RUNS=${NATIVE_RUNS:-1}
WORKERS=${WORKERS:-8}
TESTS=${TESTS:-numba.cuda.tests.cudadrv numba.cuda.tests.cudapy.test_ipc}
BUDGET_S=${BUDGET_S:-480}
PARALLEL=${PARALLEL:-1}
KEEP_LOGS=${KEEP_LOGS:-failed}
rows=()
passed=0
failed=0

record() { # NAME DETAIL VERDICT
  rows+=("$(printf '%-12s %-8s %s' "$1" "$3" "$2")")
  if [ "$3" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
finish() {
  echo
  printf '%-12s %-8s %s\n' run verdict detail
  for r in "${rows[@]}"; do echo "$r"; done
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit $?
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/gpu, driver: /'
  python3 -c 'import sys, numba, numba.cuda, numpy; print("python", sys.version.split()[0], "numba", numba.__version__, "numpy", numpy.__version__)' 2>&1 | tail -1
  python3 -c 'import importlib.metadata as m; print("numba-cuda", m.version("numba-cuda"))' 2>&1 | tail -1
} | tee "$R/versions.txt"

# ---------------------------------------------------------------- build (reused when there)
# Zydis (for CUAUDIT_STATIC_RUNTIME) comes from the carried .deb files, as in gpu-check.sh.
zydis_args=()
if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$ROOT"/zydis-debs/*.deb >/dev/null 2>&1; then
  for d in "$ROOT"/zydis-debs/*.deb; do dpkg -x "$d" "$B/zydis"; done
  zydis_args=(-DZYDIS_INCLUDE_DIR="$B/zydis/usr/include"
    -DZYDIS_LIBRARY="$(ls "$B"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
fi
cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 "${zydis_args[@]}" >"$R/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; record build "see $R/build.log" FAIL; finish; }
nm -D --undefined-only "$AUDIT" | grep -q Zydis || record build "no Zydis: CUAUDIT_STATIC_RUNTIME is off in the hooked runs" FAIL
# The older tree, built the same way in its own directory, for a run of both side by side.
OLD_AUDIT=
if [ -n "${OLD:-}" ]; then
  rm -rf "$B/old-src" && mkdir -p "$B/old-src" && tar xzf "$OLD" -C "$B/old-src" &&
    cp -r "$ROOT/zydis-debs" "$B/old-src/" 2>/dev/null
  ob=$B/old-build
  oz=()
  if [ -d "$B/zydis" ]; then
    oz=(-DZYDIS_INCLUDE_DIR="$B/zydis/usr/include" -DZYDIS_LIBRARY="$(ls "$B"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
  fi
  if cmake -S "$B/old-src" -B "$ob" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 "${oz[@]}" >"$R/old-build.log" 2>&1 &&
    cmake --build "$ob" -j"$(nproc)" --target cuaudit >>"$R/old-build.log" 2>&1; then
    OLD_AUDIT=$ob/libcuaudit.so
    nm -D --undefined-only "$OLD_AUDIT" | grep -q Zydis || record old-build "no Zydis in the old tree's build" FAIL
  else
    tail -20 "$R/old-build.log"
    record old-build "see $R/old-build.log" FAIL
  fi
fi

# numba's suite on this image: numpy 2.5 removed np.row_stack, which numba still names (the
# alias is restored in every Python process, the spawned IPC children included, by a
# sitecustomize); numba.cuda is a namespace package to pytest.
mkdir -p "$R/site"
cat >"$R/site/sitecustomize.py" <<'PY'
import numpy
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack
PY
# numba.cuda.testing imports the `filecheck` package (used by PTX-matching tests, none of the
# ones run here); the image lacks it and has no network, so a stand-in whose names fail on use
# is put first on the path only where the real one is missing.
if ! python3 -c 'import filecheck' 2>/dev/null; then
  mkdir -p "$R/site/filecheck"
  for m in __init__ matcher options parser finput preprocess; do
    cat >"$R/site/filecheck/$m.py" <<'PY'
def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    class Missing:
        def __init__(self, *a, **k):
            raise RuntimeError("filecheck is not installed (stand-in from gpu-check-numba.sh)")
    Missing.__name__ = name
    return Missing
PY
  done
  echo "filecheck: stand-in (package missing)" >>"$R/versions.txt"
fi
# The installed tests name a class fixture, initialize_from_pytest_config, that numba-cuda's
# source tree defines in its top conftest.py (not installed); this plugin gives it: the one
# setting it carries, the dump of failed FileCheck reproducers, off.
cat >"$R/site/cuaudit_numba_fixtures.py" <<'PY'
import pytest

@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = False
PY
xdist=(-n "$WORKERS")
python3 -c 'import xdist' 2>/dev/null || { xdist=(); record xdist "pytest-xdist missing: one worker" FAIL; }

# suite NAME ENV...: one run of the tests with ENV; junit XML in $R/NAME.
suite() {
  local name=$1; shift
  local d=$R/$name t0
  mkdir -p "$d"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  (cd "$d" && env PYTHONPATH="$R/site" "$@" timeout 900 python3 -m pytest -q -p no:cacheprovider \
    -o consider_namespace_packages=true -p cuaudit_numba_fixtures "${xdist[@]}" --junitxml="$d/junit.xml" --pyargs $TESTS \
    >"$d/pytest.out" 2>&1)
  echo $? >"$d/rc"
  echo $(($(date +%s) - t0)) >"$d/seconds"
}
# The outputs' paths are absolute (cuaudit refuses a relative one and leaves that output off)
# and the live view's directory is the user's own with mode 0700: set per run in hooked().
hooks=(CUAUDIT_GPU_TIME=on CUAUDIT_LIVE=1 CUAUDIT_STATIC_RUNTIME=1
  CUAUDIT_LOG=verbose "CUAUDIT_INCLUDE=cuIpc*,cuMemcpy*,cuMemAlloc*,cuMemFree*,cuCtx*,cuDevicePrimaryCtx*,cuMemGetAddressRange*")

start=$(date +%s)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] || ngpu=1
# visible SLOT: with runs at once, each sees one GPU, the slot's; one at a time, every GPU (the
# native runs as the hooked ones: some tests need two GPUs and are skipped with one).
visible() { [ "$PARALLEL" -gt 1 ] && echo "CUDA_VISIBLE_DEVICES=$(($1 % ngpu))"; }
# hooked NAME SLOT: one run under every hook, with this tree's module or (oldN) the old one's.
hooked() {
  local audit=$AUDIT
  case $1 in old*) audit=$OLD_AUDIT ;; esac
  if [ $(($(date +%s) - start)) -ge "$BUDGET_S" ]; then
    echo "not run: BUDGET_S=$BUDGET_S spent" >"$R/$1.skipped"
    return
  fi
  local d=$R/$1
  mkdir -p "$d/live" && chmod 700 "$d/live"
  # shellcheck disable=SC2046
  suite "$1" "${hooks[@]}" $(visible "$2") LD_AUDIT="$audit" CUAUDIT_LIVE_DIR="$d/live" \
    CUAUDIT_SUMMARY="$d/summary.%p.json" CUAUDIT_TRACE="$d/trace.%p.json" \
    CUAUDIT_METRICS="$d/metrics.%p.prom" CUAUDIT_LOG_FILE="$d/log.%p"
}
for i in $(seq 1 "$NATIVE_RUNS"); do
  # shellcheck disable=SC2046
  if [ "$PARALLEL" -gt 1 ]; then suite "native$i" $(visible $((i - 1))) & else suite "native$i"; fi
done
wait
names=()
for i in $(seq 1 "$RUNS"); do
  names+=("hooks$i")
  [ -n "$OLD_AUDIT" ] && names+=("old$i")
done
# PARALLEL slots, slot k taking every PARALLEL-th name from k on.
for k in $(seq 0 $((PARALLEL - 1))); do
  (for ((j = k; j < ${#names[@]}; j += PARALLEL)); do hooked "${names[$j]}" "$k"; done) &
done
wait
for n in "${names[@]}"; do
  [ -f "$R/$n.skipped" ] && record "$n" "$(cat "$R/$n.skipped")" FAIL
done

# Each test's outcome in each run; a hooked run passes when every test that passed in every
# native run passed in it too.
ran=()
for n in "${names[@]}"; do [ -f "$R/$n.skipped" ] || ran+=("$n"); done
python3 - "$R" "$NATIVE_RUNS" "${ran[@]}" >"$R/compare.txt" 2>&1 <<'PY'
import os, sys, xml.etree.ElementTree as ET
r, nn, hooked = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def outcomes(name):
    p = os.path.join(r, name, "junit.xml")
    if not os.path.exists(p):
        return None
    out = {}
    for tc in ET.parse(p).iter("testcase"):
        key = tc.get("classname", "") + "::" + tc.get("name", "")
        kinds = [c.tag for c in tc]
        out[key] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                    else "skipped" if "skipped" in kinds else "passed")
    return out
native = [outcomes(f"native{i}") for i in range(1, nn + 1)]
if any(n is None for n in native):
    print("native FAIL no junit.xml from a native run")
    sys.exit(0)
good = set.intersection(*[{k for k, v in n.items() if v == "passed"} for n in native])
if not good:
    print("native FAIL no test passed natively: nothing to compare")
for i in range(1, nn + 1):
    n = native[i - 1]
    c = {v: sum(1 for x in n.values() if x == v) for v in ("passed", "failed", "error", "skipped")}
    print(f"native{i} info {c['passed']} passed {c['failed']} failed {c['error']} errors {c['skipped']} skipped")
for name in hooked:
    h = outcomes(name)
    if h is None:
        print(f"{name} FAIL no junit.xml")
        continue
    lost = sorted(k for k in good if h.get(k) != "passed")
    missing = [g for g in ("summary.", "trace.", "metrics.", "log.")
               if not any(f.startswith(g) for f in os.listdir(os.path.join(r, name)))]
    if missing:
        print(f"{name} FAIL no {' '.join(missing)}* file: not every hook was on")
        continue
    c = {v: sum(1 for x in h.values() if x == v) for v in ("passed", "failed", "error", "skipped")}
    verdict = "pass" if not lost else "FAIL"
    print(f"{name} {verdict} {c['passed']} passed {c['failed']} failed {c['error']} errors; "
          f"{len(lost)} of {len(good)} native passes lost {' '.join(lost[:4])}")
PY
[ "$(grep -c . "$R/compare.txt")" = $((NATIVE_RUNS + ${#ran[@]})) ] ||
  record compare "$(tail -1 "$R/compare.txt")" FAIL
while read -r name verdict detail; do
  s=$(cat "$R/$name/seconds" 2>/dev/null)
  if [ "$verdict" = info ]; then verdict=pass; fi
  record "$name" "$detail (${s:-?} s)" "$verdict"
done <"$R/compare.txt"
# The first lost test's failure text, for the record.
for n in "${ran[@]}"; do
  grep -m1 -B2 -A12 -E '^(FAILED|_____)' "$R/$n/pytest.out" >"$R/$n/first-failure.txt" 2>/dev/null
done
# One archive of what a reader needs (the comparison, each run's pytest tail, the logs of the
# runs KEEP_LOGS names).
keep=()
for n in "${ran[@]}"; do
  if [ "$KEEP_LOGS" = all ] || grep -q "^$n FAIL" "$R/compare.txt"; then keep+=("$n"); fi
done
(cd "$R" && logs=() && for n in "${keep[@]}"; do logs+=("./$n"/log.*); done &&
  tar czf results.tgz compare.txt versions.txt ./*/pytest.out ./*/first-failure.txt "${logs[@]}" 2>/dev/null)
finish
