#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/gpu_lock.sh: GPU timing under hostile timing: exit and CUDA calls from signal handlers inside the hook, a fork while another thread is inside it, a device reset, captures kept open and abandoned; each run bounded in time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1"

# run_gpu LIMIT MODE [VAR=VALUE...]: gpu_lock MODE under cuaudit with GPU timing and a JSON
# summary in s.json (unless CUAUDIT_SUMMARY is among the VARs), killed after LIMIT seconds;
# its status in $rc (137: killed, it hung).
run_gpu() {
  local limit=$1 mode=$2; shift 2
  timeout -s KILL "$limit" env LD_AUDIT="$AUDIT" CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY="$dir/s.json" "$@" \
    "$BIN/gpu_lock" "$mode" >audited.out 2>audited.err
  rc=$?
}
expect_rc() {
  [ "$rc" = "$1" ] && pass "exit status $rc" ||
    { fail "exit status $rc, expected $1 (137: killed at the time limit)"; head -5 audited.err; }
}
# gpu_check JSON PYTHON_EXPR: the summary was written and its GPU counts (timed, untimed by
# reason) satisfy the expression.
gpu_check() {
  "$PYTHON" - "$1" "$2" <<'PY' && pass "$1: $2" || fail "$1: $2"
import json, sys
try:
    g = json.load(open(sys.argv[1]))["gpu"]
except Exception as e:
    print("no summary:", e); sys.exit(1)
timed, untimed = g["timed"], {k: v for k, v in g["untimed"].items() if v}
kernels = sorted((k["instances"], round(k["total_max_ns"] / 1e6)) for k in g["kernels"])
ok = eval(sys.argv[2])
if not ok:
    print("timed", timed, "untimed", untimed, "kernels", kernels)
sys.exit(0 if ok else 1)
PY
}

case $name in
gpu_time_exit_from_a_signal_handler_inside_the_hook_ends_and_writes_the_summary)
  # The 8th launch harvests with the pool's lock held; its first elapsed-time call raises
  # SIGTERM, whose handler calls exit(3): the exit drain must not wait for the lock its
  # own thread holds. The 7 records it could not harvest are counted unfinished.
  run_gpu 20 sigexit MOCK_TRIP=cuEventElapsedTime_v2:1:raise=15
  expect_rc 3
  expect_out '^handler: exit\(3\)$'
  gpu_check s.json 'timed == 0 and untimed == {"unfinished": 7}'
  ;;
gpu_time_signal_handler_copy_inside_the_exit_drain_is_counted_busy)
  # The exit drain harvests the 3 launches with the pool's lock held; its first
  # elapsed-time call raises SIGUSR1, whose handler makes an async copy: the copy is not
  # timed (busy), the program ends, and the drain times the 3 launches.
  run_gpu 20 sigcopy MOCK_TRIP=cuEventElapsedTime_v2:1:raise=10
  expect_rc 0
  expect_out '^handler: copy 0$'
  expect_out '^end$'
  gpu_check s.json 'timed == 3 and untimed == {"busy": 1}'
  ;;
gpu_time_child_forked_while_a_thread_is_inside_the_hook_times_its_own_launch)
  # A thread sets up a second context's pool and sleeps inside one of its event creations
  # (with the setup lock held) while the main thread forks: the child's launch must not
  # wait for a lock of a thread it does not have.
  timeout -s KILL 30 "$BIN/gpu_lock" fork >native.out 2>native.err; echo $? >native.rc
  run_gpu 30 fork MOCK_TRIP=cuEventCreate:1030:sleep=1500 CUAUDIT_SUMMARY="$dir/s.%p.json"
  echo $rc >audited.rc
  same_results
  expect_rc 0
  expect_out '^child exit 0$'
  n=$(ls s.*.json 2>/dev/null | wc -l)
  [ "$n" = 2 ] && pass "two summaries" || fail "$n summaries"
  # The parent's 3 ms and its thread's 2 ms launches; the child's 9 ms one.
  for f in s.*.json; do
    gpu_check "$f" 'timed in (1, 2) and not untimed and kernels in ([(1, 9)], [(2, 5)])'
  done
  ;;
gpu_time_starts_over_after_a_device_reset_and_counts_every_call)
  # 5 launches, a primary context reset, 20 launches; a context with 3 launches destroyed
  # and a new one on the same handle with 4. Each call is timed or counted untimed; after
  # each reset or destroy timing starts over (at most the call that finds the pool dead is
  # lost, with the records not yet harvested), and the dead context's events are named
  # by at most one call each time.
  timeout -s KILL 20 "$BIN/gpu_lock" reset >native.out 2>native.err; echo $? >native.rc
  run_gpu 20 reset
  echo $rc >audited.rc
  same_results
  grep -qx 'mock dead handle calls 0' native.err && pass "natively no call on a dead handle" ||
    fail "native: $(grep dead native.err)"
  dead=$(sed -n 's/^mock dead handle calls //p' audited.err)
  [ -n "$dead" ] && [ "$dead" -le 2 ] && pass "$dead calls on the dead contexts' events" ||
    fail "${dead:-no} calls on the dead contexts' events (at most 2)"
  gpu_check s.json 'timed + sum(untimed.values()) == 32 and set(untimed) <= {"lost"} and timed >= 22'
  ;;
gpu_time_launches_during_and_after_an_abandoned_capture_are_timed)
  # A global-mode capture begun before any timed work stays open over 10 launches on the
  # legacy stream and ends intact (cuaudit's queries in the relaxed mode do not break it);
  # a second is abandoned, its stream destroyed: the 10 launches after it are timed too.
  timeout -s KILL 20 "$BIN/gpu_lock" capture >native.out 2>native.err; echo $? >native.rc
  run_gpu 20 capture
  echo $rc >audited.rc
  same_results
  expect_rc 0
  expect_out '^end capture -> 0$'
  gpu_check s.json 'timed == 20 and not untimed'
  ;;
gpu_time_launches_after_one_a_signal_handler_jumped_out_of_are_timed)
  # A handler jumps out of the first launch (siglongjmp) after the hook took its record:
  # no exit callback marks it, and the in-order harvest stopped there for good (every
  # later launch pool_full or unfinished). The thread's next harvest finds the record's
  # call left: it is counted lost and the 2000 launches after it are timed.
  timeout -s KILL 20 env MOCK_TRIP=cuLaunchKernel:1:raise=12 "$BIN/gpu_lock" jump >native.out 2>native.err; echo $? >native.rc
  run_gpu 20 jump MOCK_TRIP=cuLaunchKernel:1:raise=12
  echo $rc >audited.rc
  same_results
  expect_rc 0
  expect_out '^launch 0: jumped out$'
  gpu_check s.json 'timed == 2000 and untimed == {"lost": 1}'
  ;;
gpu_time_a_launch_a_signal_handler_interrupted_and_returned_to_is_timed)
  # The other side of the rule above: a launch a handler interrupts is still in its call,
  # and the handler's own 20 launches harvest the pool with its record at the tail. The
  # handler runs on an alternate stack above the thread's, so its calls lie above the
  # interrupted one: only the count of handlers begun tells that the call is not left.
  # Every launch is timed, none counted lost.
  timeout -s KILL 20 env MOCK_TRIP=cuLaunchKernel:1:raise=12 "$BIN/gpu_lock" nest >native.out 2>native.err; echo $? >native.rc
  run_gpu 20 nest MOCK_TRIP=cuLaunchKernel:1:raise=12
  echo $rc >audited.rc
  same_results
  expect_rc 0
  expect_out '^handler: 20 launches$'
  gpu_check s.json 'timed == 121 and not untimed'
  ;;
gpu_time_launches_after_a_jump_out_of_a_held_lock_are_timed_on_every_thread)
  # A handler jumps out (siglongjmp) of cuaudit's own driver call made with one of its
  # locks held: the pool's lock (the first elapsed-time call: the 8th launch's harvest),
  # and the setup lock (the first event record: the first launch's context setup, whose
  # anchor it is). The lock word stayed the thread's for good: every later launch of that
  # thread was counted busy, and another thread's waited 20 ms each to be counted busy.
  # The thread's next call finds its own hold left (no handler begun since still runs, and
  # it is back above the hold's frame) and takes it over: the jumped-out launch never
  # reached the driver, and the 175 others (115 + 50 from another thread + 10) are timed.
  for trip in cuEventElapsedTime_v2:1:raise=12:7 cuEventRecord:1:raise=12:0; do
    at=${trip##*:}
    run_gpu 30 lockjump MOCK_TRIP=${trip%:*}
    expect_rc 0
    expect_out "^launch $at: jumped out\$"
    expect_out '^other thread: 50 launches$'
    [ "$(grep -c 'jumped out' audited.out)" = 1 ] && pass "one jump" || fail "$(grep -c 'jumped out' audited.out) jumps"
    gpu_check s.json 'timed == 175 and not untimed and kernels[0][0] == 175'
  done
  # Another thread cannot see the holder's stack: its launches before the first thread's
  # next call are counted busy, but only its first waits for the lock (20 ms; before, each
  # of the 50 did: a second at least); its 50 after that call are timed.
  run_gpu 30 lockjump_first MOCK_TRIP=cuEventElapsedTime_v2:1:raise=12
  expect_rc 0
  expect_out '^launch 7: jumped out$'
  gpu_check s.json 'timed == 67 and untimed == {"busy": 50} and kernels[0][0] == 67'
  ms=$(sed -n 's/^other thread: 50 launches in \([0-9]*\) ms$/\1/p' audited.err | head -1)
  [ -n "$ms" ] && [ "$ms" -lt 600 ] && pass "50 busy launches in $ms ms" ||
    fail "the other thread's 50 busy launches took ${ms:-?} ms (each waited: 1000 ms or more)"
  ;;
gpu_time_a_jump_out_of_its_relaxed_capture_mode_gives_the_thread_its_own_mode_back)
  # cuaudit queries its events with the thread's capture mode switched to relaxed, so that
  # a global-mode capture survives them. A handler that jumped out (siglongjmp) of such a
  # query left the program's thread relaxed for good: its later captures would accept
  # calls they must refuse. The thread sets its mode to thread-local and begins a global
  # capture; the 8th launch's harvest makes the first event query, where MOCK_TRIP raises:
  # jumped out of, the thread's next timed call on the context takes over the pool's lock
  # the jump left, and puts its mode back (1, not 2); a handler that copies and returns
  # finds the lock held below it and leaves the switch alone (the capture is not broken by
  # a query outside the relaxed mode).
  timeout -s KILL 20 "$BIN/gpu_lock" modejump >native.out 2>native.err
  grep -qx "thread's mode 1" native.out && pass "natively the thread's mode is its own" ||
    fail "native: $(grep mode native.out)"
  run_gpu 20 modejump MOCK_TRIP=cuEventQuery:1:raise=12
  expect_rc 0
  expect_out '^launch 7: jumped out$'
  expect_out "^thread's mode 1\$"
  expect_out '^end capture -> 0$'
  run_gpu 20 modenest MOCK_TRIP=cuEventQuery:1:raise=10
  expect_rc 0
  expect_out '^handler: copy 0$'
  expect_out "^thread's mode 1\$"
  expect_out '^end capture -> 0$'
  ;;
gpu_time_a_jump_at_any_instruction_near_its_locks_leaves_later_launches_timed)
  # A lock's hold began with two stores (the key, then the mark) and ended with two (the
  # mark cleared, then the key): a siglongjmp out of a handler between them left the key
  # the thread's with no mark, taken for a hold still running, for good: every later
  # launch of that thread was counted busy, and another thread's too. One launch is
  # single-stepped to find cuaudit's atomic instructions in it (the takes and releases
  # of the pool's and the totals' locks among them); then for every instruction within 4
  # steps of one, a launch is stepped again and the handler jumps out there. Every launch
  # not jumped out of is timed (the plain ones: 7 before each jump, 16 after the last,
  # then 50 from another thread in well under the 20 ms a left hold cost each, then 10),
  # none counted busy.
  [ "$(uname -m)" = x86_64 ] || { fail "x86-64 only: the trap flag"; exit; }
  # Bound at load: no lazy binding (the loader's own code) stepped through.
  timeout -s KILL 300 env LD_AUDIT="$AUDIT" CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY="$dir/s.json" \
    LD_BIND_NOW=1 CUAUDIT_LOG=warn "$BIN/gpu_lock_step" 4 "$dir/audited.runs" >audited.out 2>audited.err
  rc=$?
  expect_rc 0
  read -r plain stepped jumps ms steps targets <audited.runs || fail "no counts from the program"
  [ "${jumps:-0}" -ge 50 ] && [ "$jumps" -ge $((targets * 19 / 20)) ] &&
    pass "jumped out at $jumps of $targets instructions chosen (of $steps stepped)" ||
    fail "jumped out at ${jumps:-0} of ${targets:-0} instructions chosen"
  gpu_check s.json "timed >= $plain + 50 and 'busy' not in untimed and timed + sum(untimed.values()) <= $plain + 50 + $stepped"
  [ -n "$ms" ] && [ "$ms" -lt 600 ] && pass "another thread's 50 launches in $ms ms" ||
    fail "another thread's 50 launches took ${ms:-?} ms"
  ;;
*) fail "unknown case $name" ;;
esac
[ "$failures" -eq 0 ]
