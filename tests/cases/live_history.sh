#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live_history.sh: the live view read like the log and like top (issue 39): `run` refusing an unusable directory.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh"
TRUTH_PROG="$BIN/truth_prog"
# The mock waits 300 us in each stream synchronisation and 200 us in each launch (MOCK_SPIN)
# and writes its own measure at exit (MOCK_TRUTH).
SPIN="cuStreamSynchronize:300000,cuLaunchKernel:200000"

# start_hang [VAR=VALUE...]: truth_prog hang 20 30 under the live view alone ($pid), back once
# it waits in its last call (cuMemsetD32Async, while $BLOCK, which it makes, exists).
start_hang() {
  rm -f "$dir/ready" "$BLOCK"
  env $(live_env) MOCK_SPIN="$SPIN" MOCK_TRUTH="$dir/truth.txt" "$@" \
    "$TRUTH_PROG" hang 20 30 "$dir/ready" "$BLOCK" >out.txt 2>err.txt &
  pid=$!
  for _ in $(seq 500); do [ -e "$dir/ready" ] && break; sleep 0.02; done
  [ -e "$dir/ready" ] || fail "the program did not reach its last call: $(cat err.txt)"
  # The last call in flight (it starts after the file is made).
  for _ in $(seq 100); do
    timeout 20 "$CLI" ps --dir "$L" --json "$pid" 2>/dev/null | grep -q '"name":"cuMemsetD32Async","level"' && break
    sleep 0.05
  done
}

case $name in
run_refuses_an_unusable_live_dir_before_the_program_starts)
  # Issue 39: `run --live on --live-dir DIR` with a DIR the module refuses started the
  # program, whose view then turned itself off. `run` checks every value first.
  refused_run() { # TEXT ARGS...: refused with status 2, TEXT in the message, the program not started
    local text=$1; shift
    rm -f "$dir/started"
    timeout 20 "$CLI" run "$@" touch "$dir/started" >r.out 2>r.err; local rc=$?
    [ $rc = 2 ] && grep -q -- "$text" r.err && [ ! -e "$dir/started" ] &&
      pass "refused before the start: $(head -1 r.err)" || fail "$*: status $rc, started: $([ -e "$dir/started" ] && echo yes), $(cat r.err)"
  }
  : >"$dir/afile"
  mkdir -m 755 "$dir/open"
  mkdir -m 700 "$dir/real"
  ln -s "$dir/real" "$dir/link"
  refused_run "--live-dir (CUAUDIT_LIVE_DIR): '$dir/afile' cannot hold the live view: its directory is not a directory" --live on --live-dir "$dir/afile"
  refused_run "--live-dir (CUAUDIT_LIVE_DIR): '$dir/open' cannot hold the live view: its directory must be the user's own with mode 0700" --live on --live-dir "$dir/open"
  refused_run "its directory is a symbolic link (refused)" --live on --live-dir "$dir/link"
  refused_run "cannot create its directory" --live on --live-dir "$dir/afile/sub"
  # From the environment too: the same check, named by the option and its variable.
  CUAUDIT_LIVE_DIR="$dir/open" refused_run "CUAUDIT_LIVE_DIR" --live on
  # Usable: made if missing, the program runs.
  rm -f "$dir/started"
  timeout 20 "$CLI" run --live on --live-dir "$dir/new" touch "$dir/started" >r.out 2>r.err; rc=$?
  [ $rc = 0 ] && [ -e "$dir/started" ] && [ "$(stat -c %a "$dir/new")" = 700 ] &&
    pass "a missing directory is made (0700) and the program runs" || fail "new dir: $rc $(cat r.err)"
  # The view off: its directory is not used, so not checked.
  rm -f "$dir/started"
  timeout 20 "$CLI" run --live off --live-dir "$dir/open" touch "$dir/started" >r.out 2>r.err; rc=$?
  [ $rc = 0 ] && [ -e "$dir/started" ] && pass "--live off: the directory is not checked" || fail "live off: $rc $(cat r.err)"
  # The same class: options naming a file the module could not use.
  refused_run "is a directory, not an output file" --trace "$dir/real"
  refused_run "is a directory, not an output file" --log-file "$dir/real"
  refused_run "is not a file" --plugin "$dir/real"
  refused_run "is not a file" --libcuda "$dir/real"
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
