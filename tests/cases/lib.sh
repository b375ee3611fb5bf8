#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/lib.sh: the shared setup and checks of every case script: run natively and audited, compare, grep the log.
# Sourced with the case name as $1. Environment (set by CTest): AUDIT (libcuaudit.so), MOCK_DIR, BIN (case programs), WORK.
CASES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
set -u
name=$1
dir="$WORK/$name"
rm -rf "$dir" && mkdir -p "$dir"
cd "$dir" || exit 1
export LD_LIBRARY_PATH="$MOCK_DIR:$BIN"
unset LD_AUDIT LD_BIND_NOW $(compgen -v CUAUDIT_)
# Exit converts the trace for at most CUAUDIT_TRACE_EXIT_TIME (5 s) and keeps the raw file
# past it: on a loaded 2-core machine a case's 16 MB trace took longer, and the cases read the
# JSON. The bound has its own case, which sets it.
export CUAUDIT_TRACE_EXIT_TIME=600

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# native PROG ARGS...: run without cuaudit; output in native.out/native.err, status in native.rc.
native() {
  "$@" >native.out 2>native.err
  echo $? >native.rc
}
# audited PROG ARGS...: the same under LD_AUDIT, log in log.txt (unless CUAUDIT_LOG_FILE is set).
# An empty CUAUDIT_LOG_FILE= in front means: log to stderr (audited.err).
audited() {
  local file=${CUAUDIT_LOG_FILE-$dir/log.txt}
  local -a vars=(LD_AUDIT="$AUDIT" CUAUDIT_LOG="${CUAUDIT_LOG-verbose}")
  [ -n "$file" ] && vars+=(CUAUDIT_LOG_FILE="$file")
  env -u CUAUDIT_LOG_FILE "${vars[@]}" "$@" >audited.out 2>audited.err
  echo $? >audited.rc
}
same_results() {
  if cmp -s native.out audited.out && cmp -s native.rc audited.rc; then
    pass "output and status identical with and without cuaudit"
  else
    fail "results differ with cuaudit"; diff native.out audited.out | head -20
    echo "native rc $(cat native.rc), audited rc $(cat audited.rc)"; head -5 audited.err
  fi
}
# expect_log COUNT REGEX [FILE]: the log has exactly COUNT lines matching REGEX (COUNT '+' = at least one).
expect_log() {
  local want=$1 re=$2 file=${3:-log.txt} got
  got=$(grep -cE -- "$re" "$file" 2>/dev/null)
  got=${got:-0}
  if [ "$want" = "+" ]; then
    [ "$got" -ge 1 ] && pass "log has '$re' ($got)" || fail "log lacks '$re'"
  elif [ "$got" -eq "$want" ]; then
    pass "log has '$re' $want time(s)"
  else
    fail "log has '$re' $got time(s), expected $want"
  fi
}
expect_out() {
  grep -qE -- "$1" "${2:-audited.out}" && pass "output has '$1'" || fail "output lacks '$1'"
}
call() { echo " $1\(.*\) -> [A-Za-z_0-9]+ [0-9]+ns $2\$"; }

driver_case() { # PROG KIND
  native "$BIN/$1"
  audited "$BIN/$1"
  same_results
  for f in cuInit cuDriverGetVersion cuDeviceGetCount cuDeviceGet cuDeviceGetName \
    cuDeviceGetAttribute cuDevicePrimaryCtxRetain cuCtxSetCurrent cuCtxGetCurrent \
    cuCtxGetDevice cuCtxGetDevice_v2 cuMemAlloc_v2 cuMemGetInfo_v2 cuStreamCreate \
    cuMemFree_v2 cuGetErrorName cuGetErrorString cuGetExportTable; do
    expect_log 1 "$(call "$f" "$2")"
  done
}

# finish: the closing line and status of a case script.
finish() {
  if [ $failures -eq 0 ]; then echo "$name: passed"; exit 0; fi
  echo "$name: $failures check(s) failed"; exit 1
}
