#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/truth.sh: every figure of a call's time, in every output, against the mock's own measure of the call (MOCK_SPIN, MOCK_TRUTH).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
CHECK="$CASES_DIR/truth_check.py"
# The mock waits 300 us in each stream synchronisation and 200 us in each launch; the spin
# plugin waits 10 ms in its enter and exit callbacks of both. A call's time that took in
# another hook's work would be 10 ms or 20 ms too long: the checks allow 8 ms a call, for a
# thread preempted between cuaudit's clock read and the mock's (1 ms was overrun by 1.77 ms
# with a load average of 184).
SPIN="cuStreamSynchronize:300000,cuLaunchKernel:200000"
SLACK=8000000
NAMES=cuStreamSynchronize,cuLaunchKernel
KERNEL="add_one("

# run_times [VAR=VALUE...]: the times program under every output (and the spin plugin), then
# the report and the export of what it wrote.
run_times() {
  env LD_AUDIT="$AUDIT" MOCK_SPIN="$SPIN" MOCK_TRUTH="$dir/truth.txt" CUAUDIT_SUMMARY="$dir/s.json" \
    CUAUDIT_PLUGINS="$BIN/spin_plugin.so" SPIN_PLUGIN_NS=10000000 "$@" \
    "$BIN/truth_prog" times 20 30 2000 >audited.out 2>audited.err
  local rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 audited.err)"
  [ -s truth.txt ] && pass "the mock wrote its measure" || fail "no truth.txt"
  "$CLI" report --json="$dir/merged.json" s.json >/dev/null 2>report.err || fail "report: $(head -2 report.err)"
  local inputs=(s.json)
  [ -s t.json ] && inputs+=(t.json)
  "$CLI" export -o run.sqlite "${inputs[@]}" >/dev/null 2>export.err || fail "export: $(head -2 export.err)"
}

check_times() {
  "$PYTHON" "$CHECK" times "$dir" $SLACK $NAMES "$KERNEL" >check.txt 2>&1
  local rc=$?
  cat check.txt
  [ $rc = 0 ] && pass "every output's times are the calls' own" || fail "truth_check: $(grep -c FAIL check.txt) failed"
}

case $name in
truth_call_times_exclude_other_hooks_in_every_output_exact)
  run_times CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE="$dir/log.txt" \
    CUAUDIT_TRACE="$dir/t.json" CUAUDIT_METRICS="$dir/m.prom"
  check_times
  ;;
truth_call_times_exclude_other_hooks_in_every_output_sampled)
  # The default summary samples: its calls on the general path are timed by the dispatch.
  run_times CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE="$dir/log.txt" CUAUDIT_TRACE="$dir/t.json" \
    CUAUDIT_METRICS="$dir/m.prom"
  check_times
  ;;
truth_call_times_with_the_live_view_and_every_output)
  mkdir -m 700 live
  run_times CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$dir/live" CUAUDIT_LOG=verbose \
    CUAUDIT_LOG_FILE="$dir/log.txt" CUAUDIT_TRACE="$dir/t.json"
  check_times
  ;;
truth_live_history_durations_are_the_calls_own)
  # The view's history read from outside while the program waits in a last call.
  mkdir -m 700 live && touch block
  env LD_AUDIT="$AUDIT" MOCK_SPIN="$SPIN" MOCK_TRUTH="$dir/truth.txt" \
    TRUTH_HOLD="$dir/block" CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$dir/live" CUAUDIT_LIVE_CALLS=256 \
    CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_PLUGINS="$BIN/spin_plugin.so" \
    SPIN_PLUGIN_NS=10000000 "$BIN/truth_prog" times 20 30 0 >audited.out 2>audited.err &
  pid=$!
  for _ in $(seq 600); do
    [ -e block.ready ] && break
    sleep 0.1
  done
  "$CLI" ps --dir "$dir/live" --last 256 --json "$pid" >ps.json 2>ps.err || fail "ps: $(head -2 ps.err)"
  rm -f block
  wait $pid
  rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 audited.err)"
  check_times
  ;;
truth_kernel_host_times_in_the_default_summary)
  # The summary alone, sampled by default: launches keep their times (they read 0 before).
  run_times
  check_times
  ;;
truth_runtime_call_time_leaves_out_its_driver_calls_hooks)
  # cudaLaunchKernel makes its cuLaunchKernel inside; the log and the spin plugin (20 ms) run
  # on that inner call: the outer call's time holds the inner call, not its hooks.
  env LD_AUDIT="$AUDIT" MOCK_SPIN="cuLaunchKernel:200000" MOCK_TRUTH="$dir/truth.txt" \
    CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=verbose \
    CUAUDIT_LOG_FILE="$dir/log.txt" CUAUDIT_PLUGINS="$BIN/spin_plugin.so" SPIN_PLUGIN_NS=10000000 \
    "$BIN/truth_prog" runtime 30 >audited.out 2>audited.err
  rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 audited.err)"
  "$PYTHON" "$CHECK" nested "$dir" cudaLaunchKernel cuLaunchKernel $SLACK >check.txt 2>&1
  rc=$?
  cat check.txt
  [ $rc = 0 ] && pass "the runtime call's time is its own" || fail "truth_check nested"
  ;;
truth_sampled_estimate_of_a_periodic_pattern_is_unbiased)
  # 4,000 steps of 64 calls, the 64th of each 30 us: a fixed sampling phase never sees it.
  LD_AUDIT="$AUDIT" MOCK_SPIN="cuDeviceGetCount:30000/64" MOCK_TRUTH="$dir/truth.txt" \
    CUAUDIT_SUMMARY="$dir/s.json" "$BIN/truth_prog" periodic 256000 >audited.out 2>audited.err
  rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 audited.err)"
  "$PYTHON" "$CHECK" periodic "$dir" cuDeviceGetCount 30000 64 >check.txt 2>&1
  rc=$?
  cat check.txt
  [ $rc = 0 ] && pass "the estimate holds the truth" || fail "truth_check periodic"
  ;;
esac
finish
