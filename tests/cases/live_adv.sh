#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live_adv.sh: hostile deployments of the live view, found by an adversarial test of 48f2e15 (2026-11-25): a failed exec, an exec into a program without CUDA, top beside a process that exits, a cancelled thread, a zombie, a main thread ended first, threads beyond the slots, concurrent ctl, another PID namespace under our name.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh"
PROG="$BIN/live_adv_prog"

case $name in
live_view_survives_a_failed_exec_with_the_summary_on)
  # A launcher's exec fails (EACCES); the program goes on making calls. With the summary
  # on, the exec's finish work used to remove the live file, and nothing made it again: now
  # the exec marks it exited and the failure marks it running again.
  : >out.txt
  env $(live_env) CUAUDIT_SUMMARY="$dir/s.json" "$PROG" execfail "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  timeout 20 "$CLI" ps --dir "$L" "$pid" >ps.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -q "^process $pid (running)" ps.txt && pass "the running process is still in view" ||
    fail "after a failed exec the running process has no live view: rc $rc: $(head -2 ps.txt)"
  touch "$dir/go"; wait $pid
  ;;
exec_into_a_program_without_cuda_leaves_no_running_view_behind)
  # The live view alone: exec into a program that makes no CUDA call. The old image's file
  # must not stay 'running' under the old command line, nor 'dead' after the new program's
  # normal exit: the exec marks it exited, and the new image, which sets up the view, removes it.
  exec_leaves_no_view live_adv_prog "$PROG" execto sleep 1
  ;;
top_rates_are_not_hidden_by_another_process_that_exits)
  # B calls about 1000 times a second; A, with 200000 calls, exits during top's interval.
  # Rates are differences per process: A's vanished count must not hide B's rate.
  rm -f "$dir/goA" "$dir/goB"
  env $(live_env) "$PROG" calls 200000 "$dir/goA" >a.txt 2>&1 &
  a=$!
  env $(live_env) "$PROG" loop "$dir/goB" >b.txt 2>&1 &
  b=$!
  wait_out a.txt ready; wait_out b.txt ready
  timeout 20 "$CLI" top --dir "$L" -d 2 -n 1 >top.txt 2>&1 &
  t=$!
  sleep 0.7; touch "$dir/goA"; wait $a; wait $t
  rate=$(awk '$NF == "cuDeviceGetCount" {print $2}' top.txt)
  [ -n "$rate" ] && [ "$rate" -gt 100 ] && pass "B's rate shown: $rate/s" ||
    fail "cuDeviceGetCount shown at '$rate' calls/s while B made ~1000/s: $(cat top.txt)"
  touch "$dir/goB"; wait $b
  ;;
a_cancelled_threads_call_is_not_shown_as_in_flight)
  # A thread blocked in cuStreamSynchronize is cancelled (pthread_cancel); the process goes
  # on. The ended thread's call is no call in flight of the process (ps, top), and JSON marks
  # the thread ended.
  touch "$BLOCK"
  env $(live_env) "$PROG" cancel "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  sleep 0.3
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +running +[0-9]+ +[0-9-]+ +cuStreamSynchronize" list.txt &&
    fail "the ended thread's call is the longest in flight: $(grep "^$pid" list.txt)" || pass "no call in flight listed"
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >j.txt 2>&1
  "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(len(t["in_flight"]) for t in d["threads"] if t.get("ended") is not True)
assert n == 0, "%d call(s) in flight of threads not marked ended (JSON has no ended flag)" % n' j.txt >chk.txt 2>&1 &&
    pass "JSON: no call in flight of a live thread" || fail "$(tail -1 chk.txt)"
  rm -f "$BLOCK"; touch "$dir/go"; wait $pid
  ;;
a_killed_process_not_yet_reaped_is_dead)
  # SIGKILL, and the parent has not waited yet (a zombie): dead, not running.
  touch "$BLOCK"
  sh -c "env $(live_env) '$PROG' cancel '$dir/go' >out.txt 2>&1 & echo \$! >cpid; exec sleep 3" &
  sh=$!
  wait_out out.txt ready
  c=$(cat cpid); kill -9 "$c"; sleep 0.3
  st=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$c/status 2>/dev/null)
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  [ "$st" = Z ] || echo "note: the child was reaped already (state '$st'): this run proves nothing"
  grep -qE "^$c +dead " list.txt && pass "killed: dead" || fail "killed process (state $st) listed as: $(grep "^$c" list.txt)"
  rm -f "$BLOCK"; wait $sh
  ;;
a_process_whose_main_thread_ended_while_another_runs_is_running)
  # main() ends by pthread_exit (the leader is a zombie) while a thread blocks in a call:
  # the process is alive, and its call is shown.
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" mainexit >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  sleep 0.3
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +running +[0-9]+ +[0-9-]+ +cuStreamSynchronize" list.txt && pass "running, with its blocked call" ||
    fail "listed as: $(grep "^$pid" list.txt)"
  rm -f "$BLOCK"; wait $pid; rc=$?
  [ $rc = 0 ] && pass "ended normally" || fail "status $rc: $(cat err.txt)"
  ;;
threads_that_found_no_slot_in_a_burst_are_shown_once_slots_are_free)
  # 200 threads make their first call at once (72 find no slot), then 180 end and 20 block
  # in a call. Slots are free again, and a thread that found none asks again (every 100 ms at
  # most): every hung call is shown, within 20 s however loaded the machine (the program
  # lets the 20 call only once the 180 are joined; a thread that never asks again stays
  # unshown for good).
  touch "$BLOCK"
  env $(live_env) "$PROG" burst 200 10 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  n=0
  for _ in $(seq 100); do
    timeout 20 "$CLI" ps --dir "$L" --last 0 "$pid" >ps.txt 2>&1
    n=$(grep -c 'in flight: cuStreamSynchronize' ps.txt)
    [ "$n" = 20 ] && break
    sleep 0.2
  done
  [ "$n" = 20 ] && pass "20 blocked calls shown" ||
    fail "$n of 20 blocked calls shown with 21 threads alive ($(grep note ps.txt))"
  rm -f "$BLOCK"; touch "$dir/go"; wait $pid
  ;;
a_thread_without_a_slot_asks_again_at_most_every_100ms)
  # 150 threads attach while all are alive (22 find no slot), then each makes 500 calls in
  # well under 100 ms. A thread without a slot may attach again (two rt_sigprocmask and a
  # scan of every slot) only 100 ms after its last try, not at every call: the try's time is
  # read after the call's start time, so a comparison that wraps retried at every call.
  command -v strace >/dev/null || { echo "skip: no strace"; exit 77; }
  strace -f -qq -o /dev/null true 2>/dev/null || { echo "skip: ptrace not permitted"; exit 77; }
  strace -f -qq -e trace=rt_sigprocmask -o sys.txt env $(live_env) "$PROG" untracked 150 500 >out.txt 2>err.txt
  wait_out out.txt ready
  n=$(wc -l <sys.txt)
  # pthread_create, thread exit and one attach each: about 8 a thread; a retry at every call
  # adds 2 for each of the 22 threads' 500 calls (22000).
  [ "$n" -lt 3000 ] && pass "$n rt_sigprocmask calls for 150 threads" ||
    fail "$n rt_sigprocmask calls: threads without a slot attach again at every call"
  ;;
concurrent_ctl_switches_are_never_lost)
  # Two operators switch the trace and the log at once: neither switch may be lost (the
  # control word is changed with one atomic or/and).
  env $(live_env) CUAUDIT_CAPTURE=ctl CUAUDIT_TRACE="$dir/t.json" CUAUDIT_LOG=verbose \
    CUAUDIT_LOG_FILE="$dir/log.txt" "$PROG" loop "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  f=$(ls "$L"/$pid-*.live)
  lost=0
  for i in $(seq 100); do
    "$CLI" ctl --dir "$L" $pid trace stop >/dev/null; "$CLI" ctl --dir "$L" $pid log stop >/dev/null
    "$CLI" ctl --dir "$L" $pid trace start >/dev/null & x=$!
    "$CLI" ctl --dir "$L" $pid log start >/dev/null & y=$!
    wait $x $y
    w=$(od -An -tu4 -j104 -N4 "$f" | tr -d ' ')
    [ "$w" = 3 ] || lost=$((lost + 1))
  done
  [ $lost = 0 ] && pass "no switch lost in 100 rounds" || fail "$lost of 100 rounds lost a switch"
  touch "$dir/go"; wait $pid
  ;;
a_region_of_another_pid_namespace_under_our_name_is_never_removed)
  # Containers sharing the directory: a process of another PID namespace with the same pid
  # and start tick has the same file name. Its running view is never replaced (this process
  # then has none). The shell knows its pid and start time, plants the other namespace's
  # file, then execs.
  env $(live_env) "$PROG" loop "$dir/go0" >t.txt 2>&1 &
  q=$!
  wait_out t.txt ready; kill -9 $q; wait $q 2>/dev/null
  cp "$L"/$q-*.live tmpl.live; rm -f "$L"/$q-*.live
  cat >plant.sh <<'SH'
t=$(awk '{sub(/.*\) /, ""); print $20}' /proc/$$/stat)
"$PYTHON" - "$$" "$t" "$L" <<'PY'
import os, struct, sys
pid, t, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
b = bytearray(open("tmpl.live", "rb").read())
struct.pack_into("<Q", b, 64, pid)
struct.pack_into("<Q", b, 72, t)
struct.pack_into("<I", b, 372, 12345)  # head.pidns: another PID namespace
f = "%s/%d-%d.live" % (d, pid, t)
open(f, "wb").write(b)
os.chmod(f, 0o600)
print("planted", f)
PY
exec "$@"
SH
  PYTHON=$PYTHON L=$L bash plant.sh env $(live_env) "$PROG" calls 1 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt ready
  grep -q "^planted $L/$pid-" out.txt || fail "not planted: $(cat out.txt)"
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +elsewhere " list.txt && pass "the other namespace's file is still there" ||
    fail "the other namespace's running view was replaced: $(grep "^$pid" list.txt)"
  touch "$dir/go"; wait $pid
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
