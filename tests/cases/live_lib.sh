#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live_lib.sh: what the live view's case scripts share (sourced after lib.sh, with $dir, $AUDIT and $CLI set).
L="$dir/live"
BLOCK="$dir/block"

# live_env: the environment of an audited process with the live view in $L.
live_env() { echo LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" MOCK_BLOCK_FILE="$BLOCK"; }
# wait_out FILE TEXT: waits (10 s at most) until FILE has a line TEXT. Each case empties FILE
# itself before it starts a program in the background: the background shell truncates it only
# when it runs, and a wait could otherwise read the line an earlier program left there.
wait_out() { # at most 60 s: a loaded machine took more than 10
  for _ in $(seq 3000); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.02; done
  fail "no '$2' in $1: $(tail -3 "$1" 2>/dev/null)"; return 1
}
# exec_leaves_no_view NAME [VAR=VALUE...] PROGRAM ARGS...: PROGRAM (shown as NAME in `ps`)
# execs 'sleep 1': its file must not stay 'running' under the old command line while sleep
# runs, nor stay behind after sleep's normal exit.
exec_leaves_no_view() {
  local name=$1; shift
  env $(live_env) "$@" >out.txt 2>err.txt &
  pid=$!
  sleep 0.5
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +running .*$name execto" list.txt &&
    fail "the exec'd 'sleep' is listed as the old image: $(grep "^$pid" list.txt)" || pass "not listed as the old image"
  wait $pid
  [ -z "$(ls "$L" 2>/dev/null)" ] && pass "no file left after the normal exit" || fail "left behind: $(ls "$L")"
}
