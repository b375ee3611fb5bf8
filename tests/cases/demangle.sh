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
*)
  fail "unknown case $name"
  ;;
esac
finish
