#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-numba.sh: on a GPU machine, runs numba-cuda's own driver and IPC tests
# (pytest-xdist, 8 workers) natively and then RUNS times under every hook at once, and compares
# each test's outcome with the native run's. A test that passes natively must pass every time.
# Usage: scripts/gpu-check-numba.sh   (environment: RUNS=5, NATIVE_RUNS=1, WORKERS=8,
#        TESTS="numba.cuda.tests.cudadrv numba.cuda.tests.cudapy.test_ipc", BUDGET_S=480:
#        no hooked run starts after BUDGET_S seconds of runs, and the table says so)
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
hooks=(LD_AUDIT="$AUDIT" CUAUDIT_GPU_TIME=on CUAUDIT_LIVE=1 CUAUDIT_STATIC_RUNTIME=1
  CUAUDIT_SUMMARY=summary.%p.json CUAUDIT_TRACE=trace.%p.json CUAUDIT_METRICS=metrics.%p.prom
  CUAUDIT_LOG=verbose "CUAUDIT_INCLUDE=cuIpc*,cuMemcpy*,cuMemAlloc*,cuMemFree*,cuCtx*,cuDevicePrimaryCtx*,cuMemGetAddressRange*"
  CUAUDIT_LOG_FILE=log.%p)

start=$(date +%s)
for i in $(seq 1 "$NATIVE_RUNS"); do suite "native$i"; done
for i in $(seq 1 "$RUNS"); do
  if [ $(($(date +%s) - start)) -ge "$BUDGET_S" ]; then
    record "hooks$i" "not run: BUDGET_S=$BUDGET_S spent" FAIL
    continue
  fi
  (cd "$R" && mkdir -p "hooks$i/live") && suite "hooks$i" "${hooks[@]}" CUAUDIT_LIVE_DIR="$R/hooks$i/live"
done

# Each test's outcome in each run; a hooked run passes when every test that passed in every
# native run passed in it too.
python3 - "$R" "$NATIVE_RUNS" "$RUNS" >"$R/compare.txt" 2>&1 <<'PY'
import os, sys, xml.etree.ElementTree as ET
r, nn, nh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
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
for i in range(1, nh + 1):
    h = outcomes(f"hooks{i}")
    if h is None:
        print(f"hooks{i} FAIL no junit.xml")
        continue
    lost = sorted(k for k in good if h.get(k) != "passed")
    c = {v: sum(1 for x in h.values() if x == v) for v in ("passed", "failed", "error", "skipped")}
    verdict = "pass" if not lost else "FAIL"
    print(f"hooks{i} {verdict} {c['passed']} passed {c['failed']} failed {c['error']} errors; "
          f"{len(lost)} of {len(good)} native passes lost {' '.join(lost[:4])}")
PY
[ "$(grep -c . "$R/compare.txt")" = $((NATIVE_RUNS + RUNS)) ] ||
  record compare "$(tail -1 "$R/compare.txt")" FAIL
while read -r name verdict detail; do
  s=$(cat "$R/$name/seconds" 2>/dev/null)
  if [ "$verdict" = info ]; then verdict=pass; fi
  record "$name" "$detail (${s:-?} s)" "$verdict"
done <"$R/compare.txt"
# The first lost test's failure text, for the record.
for d in "$R"/hooks*; do
  grep -m1 -B2 -A12 -E '^(FAILED|_____)' "$d/pytest.out" >"$d/first-failure.txt" 2>/dev/null
done
# One archive of what a reader needs (the comparison, each run's pytest tail, the logs).
(cd "$R" && tar czf results.tgz compare.txt versions.txt ./*/pytest.out ./*/first-failure.txt ./hooks*/log.* 2>/dev/null)
finish
