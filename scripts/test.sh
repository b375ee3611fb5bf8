#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/test.sh: builds cuaudit and runs the whole test suite: ctest on the normal build, then the
# unit tests under ASan+UBSan and valgrind, the audited cases with a UBSan module, and the fuzzers.
# CUAUDIT_QUICK=1 runs the normal build's ctest only. Tests labelled gpu skip without a GPU.
set -uo pipefail
export CUAUDIT_SETUP_EXTRAS=1
export CUAUDIT_WERROR=1 # development and CI: warnings are errors
[ "${CUAUDIT_QUICK:-0}" = 1 ] && CUAUDIT_SETUP_EXTRAS=0
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" || exit 1
set +e
jobs=$(nproc)
total=0 failed=0 skipped=0 log=$(mktemp)

# stage NAME BUILD_DIR CTEST_ARGS...: runs ctest and adds up its counts.
stage() {
  local name=$1 dir=$2; shift 2
  echo "=== $name"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "$@") 2>&1 | tee "$log"
  local line n f s
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  n=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line"); f=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
  s=$(grep -c '(Skipped)' "$log")
  [ -n "$line" ] || { n=1; f=1; echo "$name: ctest printed no summary"; }
  total=$((total + n)); failed=$((failed + f)); skipped=$((skipped + s))
}

stage "tests (normal build)" "$BUILD_DIR"
# The README's first command, on the tree just built: it must run and show the log, the
# summary table and the trace.
echo "=== the quick-start demo (scripts/demo.sh)"
total=$((total + 1))
if BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/demo.sh" >"$log" 2>&1 &&
  grep -qE '\(([1-9][0-9]*) calls logged\)' "$log" && grep -q -- '--- the summary' "$log" &&
  grep -q 'Total' "$log" && [ -s "$BUILD_DIR/demo-out/trace.json" ]; then
  echo "demo: passed"
else
  echo "demo: FAILED"; tail -20 "$log"; failed=$((failed + 1))
fi
if [ "${CUAUDIT_QUICK:-0}" != 1 ]; then
  # Every unit test, named from tests/unit/test_*.c, so a new one cannot be left out.
  unit_targets=$(cd "$ROOT/tests/unit" && ls test_*.c | sed -E 's/^test_(.*)\.c$/unit_\1/' | tr '\n' ' ')
  # Unit tests with ASan and UBSan. ASan cannot run inside the audit namespace (its runtime
  # must come first in the program's own library list), so only the unit tests use it.
  cmake -S "$ROOT" -B "$BUILD_DIR-asan" -DCUAUDIT_SANITIZE=address,undefined -DCUAUDIT_BUILD_BENCH=OFF -DCUAUDIT_WERROR=ON >/dev/null &&
    cmake --build "$BUILD_DIR-asan" -j"$jobs" --target $unit_targets >/dev/null
  stage "unit tests under ASan+UBSan" "$BUILD_DIR-asan" -L unit
  # The audited cases with a UBSan-instrumented module: UBSan's runtime loads into the audit
  # namespace with the module and reports there.
  cmake -S "$ROOT" -B "$BUILD_DIR-ubsan" -DCUAUDIT_SANITIZE=undefined -DCUAUDIT_BUILD_BENCH=OFF -DCUAUDIT_WERROR=ON >/dev/null &&
    cmake --build "$BUILD_DIR-ubsan" -j"$jobs" >/dev/null
  # The trace engine the output cases load traces with was installed into the normal build.
  [ -d "$BUILD_DIR/node_modules" ] && ln -sfn "$BUILD_DIR/node_modules" "$BUILD_DIR-ubsan/node_modules"
  stage "audited cases under UBSan" "$BUILD_DIR-ubsan" -L cases
  # valgrind's malloc replacement collides with the audit namespace's own libc (a run under
  # LD_AUDIT aborts in free() at exit), so memcheck runs the unit tests of the code that runs there.
  echo "=== unit tests under valgrind memcheck"
  for t in "$BUILD_DIR"/tests/unit_*; do
    total=$((total + 1))
    if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$t" >/dev/null; then
      echo "memcheck ${t##*/}: clean"
    else
      echo "memcheck ${t##*/}: FAILED"; failed=$((failed + 1))
    fi
  done
  CC=clang cmake -S "$ROOT" -B "$BUILD_DIR-fuzz" -DCUAUDIT_FUZZ=ON -DCUAUDIT_BUILD_BENCH=OFF >/dev/null &&
    cmake --build "$BUILD_DIR-fuzz" -j"$jobs" --target fuzz_level fuzz_size fuzz_mem_limit fuzz_fault \
      fuzz_plugins fuzz_template fuzz_json fuzz_trace fuzz_demangle >/dev/null
  stage "fuzzing (libFuzzer, 12 s a target; longer runs: -DCUAUDIT_FUZZ_SECONDS=N)" "$BUILD_DIR-fuzz" -L fuzz
fi
rm -f "$log"
echo "$((total - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
