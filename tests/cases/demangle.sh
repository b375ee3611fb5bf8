#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/demangle.sh: the module's demangler prints what __cxa_demangle prints, on real kernel names and on libstdc++'s own exports.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
DATA="$CASES_DIR/../data"

# differ FLOOR FILE: runs the differential program; its report in diff.txt.
differ() {
  "$BIN/demangle_differential" "$1" "$2" >diff.txt 2>&1
  local rc=$?
  cat diff.txt
  [ $rc = 77 ] && { echo "SKIP: no libstdc++"; exit 77; }
  [ $rc = 0 ] && pass "$(tail -1 diff.txt)" || fail "$(grep -c DIFFERS diff.txt) differ, or below the floor: $(tail -1 diff.txt)"
}

case $name in
demangler_reads_real_kernel_names_as_cxa_demangle_does)
  # NVIDIA libraries' kernel names (tests/data/kernel_names.txt): templates, lambdas, literals,
  # packs, function addresses as template arguments.
  differ 97 "$DATA/kernel_names.txt"
  ;;
demangler_reads_libstdcxx_exports_as_cxa_demangle_does)
  # Every C++ name libstdc++ itself exports: what any Debian machine with g++ has.
  lib=$(cc -print-file-name=libstdc++.so.6)
  [ -f "$lib" ] || lib=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 .*x86-64|libstdc\+\+\.so\.6 \(libc6\)/ { print $NF; exit }')
  [ -f "$lib" ] || { echo "SKIP: no libstdc++.so.6"; exit 77; }
  nm -D --defined-only "$lib" | awk '$3 ~ /^_Z/ { sub(/@.*/, "", $3); print $3 }' | sort -u >names.txt
  [ "$(wc -l <names.txt)" -gt 1000 ] && pass "$(wc -l <names.txt) names from $lib" || fail "few names from $lib"
  differ 95 names.txt
  ;;
kernel_names_nested_deep_keep_a_32KiB_thread_running)
  # Before: the module's demangler overflowed a 32 KiB thread stack on a name nested 20
  # levels (SIGSEGV). The program registers and launches kernels named 20, 100 and 1000
  # levels deep, and names whose substitutions triple, from a thread with a 32 KiB stack that
  # then calls exit: the verbose log demangles each name at its launch, the summary at exit,
  # both on that stack.
  native "$BIN/small_stack_names"
  CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/small_stack_names"
  same_results
  [ "$(cat audited.rc)" = 0 ] && pass "exit status 0" || fail "exit status $(cat audited.rc)"
  grep -q '^launched 14 kernels, 14 ran$' audited.out && pass "every kernel ran" || fail "$(cat audited.out)"
  expect_log 14 ' cudaLaunchKernel\(.*\) -> cudaSuccess '
  # Past the depth limits a name stays mangled; the controls read.
  expect_log 1 'kernel_name="_Z1f1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AI1AIiEEEEEEEEEEEEEEEEEEEE"'
  expect_log 1 'kernel_name="vecAdd\(float const\*, float const\*, float\*, int\)"'
  expect_log 1 'kernel_name="f\(A<A<A<A<A<int> > > > >\)"'
  "$PYTHON" - s.json <<'PY' && pass "the summary names all 14 kernels" || fail "summary"
import json, sys
doc = json.load(open(sys.argv[1]))
names = {k["name"]: k.get("demangled") for k in doc["kernels"]}
assert len(names) == 14, len(names)
assert names["_Z6vecAddPKfS0_Pfi"] == "vecAdd(float const*, float const*, float*, int)", names
PY
  "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' t.json && pass "the trace is JSON" || fail "trace"
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
