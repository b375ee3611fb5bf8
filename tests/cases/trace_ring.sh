#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/trace_ring.sh: the trace with the live view on holds the very calls it holds with the view off: none lost, repeated or altered, whatever the ring's size, each stored as its size says.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
PROG="$BIN/trace_ring_prog"
CALLS="$CASES_DIR/trace_calls.py"
L="$dir/live"
mkdir -m 0700 "$L"

# Each case runs trace_ring_prog in variants, each in its own directory $dir/VARIANT:
#   off    the trace alone;
#   on     the trace and the live view (its default ring);
#   onN    the same with CUAUDIT_LIVE_CALLS=N, a ring of N records per thread (or more: the
#          trace raises it to 1024).
# traced VARIANT [VAR=VALUE...] -- ARGS...: one run; status in VARIANT/rc, the trace in
# VARIANT/t.json unless a VAR says otherwise.
traced() {
  local v=$1
  local -a vars=(LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LOG_FILE="$dir/$v/log.txt"
    CUAUDIT_TRACE="$dir/$v/t.json")
  shift
  case $v in
  off) ;;
  on) vars+=(CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L") ;;
  on*) vars+=(CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" CUAUDIT_LIVE_CALLS="${v#on}") ;;
  esac
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  rm -rf "${dir:?}/$v" && mkdir "$dir/$v"
  # (The shell's own note of a kill, in the case that kills itself, to /dev/null.)
  (cd "$dir/$v" && env "${vars[@]}" "$PROG" "$@" >out.txt 2>err.txt; echo $? >rc) 2>/dev/null
}

# ran VARIANT [STATUS]: the run ended with STATUS (0), the live view was on as the variant
# says (the program reads its own region's head), and cuaudit warned of nothing.
ran() {
  local v=$1 want=${2:-0} d="$dir/$1"
  [ "$(cat "$d/rc")" = "$want" ] && pass "$v: status $want" || fail "$v: status $(cat "$d/rc"): $(head -3 "$d/err.txt")"
  case $v in
  off) grep -q '^live none$' "$d/out.txt" && pass "$v: no live region" || fail "$v: $(grep '^live' "$d/out.txt")" ;;
  on) grep -qE '^live ncalls [0-9]+ ' "$d/out.txt" && pass "$v: $(grep -m1 '^live' "$d/out.txt")" || fail "$v: the live view is off" ;;
  # With the trace on, the ring holds at least CUA_LIVE_CALLS_TRACE (1024) records.
  on*) n=$(sed -n 's/^live ncalls \([0-9]*\) .*/\1/p' "$d/out.txt" | head -1)
    [ "${n:-0}" -ge "${v#on}" ] && pass "$v: $(grep -m1 '^live' "$d/out.txt")" ||
      fail "$v: not a ring of ${v#on} or more: $(grep '^live' "$d/out.txt")" ;;
  esac
  grep -qE 'warning|error' "$d/log.txt" 2>/dev/null && fail "$v: cuaudit warned: $(grep -m2 -E 'warning|error' "$d/log.txt")" ||
    pass "$v: no warning"
}

# canon VARIANT [TRACE [NAME]]: the trace's calls as text, per thread and in order, without
# times, thread ids and addresses (trace_calls.py) in VARIANT/NAME.txt (canon.txt), and
# their counts in VARIANT/NAME.counts.
canon() {
  local v=$1 trace=${2:-t.json} out=${3:-canon}
  "$PYTHON" "$CALLS" canon "$dir/$v/$trace" "$dir/$v/$out.txt" >"$dir/$v/$out.counts" 2>"$dir/$v/$out.err" ||
    fail "$v: $trace is no trace: $(tail -2 "$dir/$v/$out.err")"
}

# same_as_off VARIANT [NAME]: the variant's calls are the trace alone's, call for call.
same_as_off() {
  local v=$1 out=${2:-canon}
  if [ -s "$dir/off/$out.txt" ] && cmp -s "$dir/off/$out.txt" "$dir/$v/$out.txt"; then
    pass "$v: $(sed -n 's/^calls //p' "$dir/$v/$out.counts") calls, each as with the trace alone ($out)"
  else
    fail "$v: the calls differ from the trace alone's ($out):"
    diff "$dir/off/$out.txt" "$dir/$v/$out.txt" | grep -E '^[<>]' | head -6
  fi
}

# counted VARIANT WHAT N [NAME]: the counts of VARIANT/NAME.counts say WHAT N (calls,
# threads, outer: calls at depth 0).
counted() {
  local v=$1 what=$2 n=$3 out=${4:-canon}
  grep -qx "$what $n" "$dir/$v/$out.counts" && pass "$v: $what $n, as the program made ($out)" ||
    fail "$v: $(grep "^$what " "$dir/$v/$out.counts"), the program made $n ($out)"
}

# made VARIANT [WHAT]: what the program says it made ("calls N" by default).
made() { sed -n "s/^${2:-calls} \([0-9]*\)$/\1/p" "$dir/$1/out.txt"; }

case $name in
trace_with_the_live_view_keeps_every_one_of_15000_mixed_calls_as_the_trace_alone_does)
  # One thread, far more calls than any ring holds, of every kind of record: out-values,
  # strings (some cut at 63 bytes), kernel names, failed calls, an 80-byte argument struct
  # (the largest the mock has: none exceeds the view's 96 bytes); the first calls from the
  # executable's constructor, before main. More than 1 MiB of records: the trace writes a
  # block out during the run too.
  for v in off on on16 on4096; do
    traced $v -- mixed 1200
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    counted $v threads 1
  done
  for v in on on16 on4096; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_driver_calls_nested_in_runtime_calls_as_the_trace_alone_does)
  # The mock runtime calls the driver through the pointers it looked up (wrapped): each
  # runtime call holds driver calls one level deeper; the first holds 77 (the runtime's
  # start), and the ring is written out while some runtime call is in flight. The program
  # counts its own calls; the mock counts every call of each driver function, the
  # program's and the runtime's.
  for v in off on on16; do
    traced $v -- nested 250
    ran $v
    canon $v
    counted $v outer "$(made $v)"
    n=0 bad=""
    while read -r _ f want; do
      got=$(sed -n "s/^name $f //p" "$dir/$v/canon.counts")
      n=$((n + want))
      [ "${got:-0}" = "$want" ] || bad="$bad $f:${got:-0}/$want"
    done < <(grep '^mock ' "$dir/$v/out.txt")
    [ -z "$bad" ] && [ "$n" -gt 0 ] && pass "$v: $n calls of driver functions, each as many as the mock ran" ||
      fail "$v: driver calls in the trace/run by the mock:$bad"
    grep -qE '^  driver cuMemAlloc_v2\(.*depth=1$' "$dir/$v/canon.txt" && pass "$v: driver calls at depth 1" ||
      fail "$v: no driver call inside a runtime call"
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_the_calls_of_200_threads_started_one_after_another)
  # Each thread is named (its key in the comparison) and its first call names its index.
  # Each takes the slot of the thread before it, whose calls the ring still holds.
  for v in off on on16; do
    traced $v -- serial 200 24
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    counted $v threads 201
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_the_calls_of_150_threads_at_once_past_its_128_slots)
  # All 150 are alive and have called before any makes more calls: 23 of the 151 threads
  # that call find no slot of the view. Then half of them end, and the rest call again
  # past the view's retry time: those without a slot take one then, mid-life.
  for v in off on on16; do
    traced $v -- parallel 150 24
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    counted $v threads 151
  done
  for v in on on16; do
    u=$(sed -n 's/^live ncalls [0-9]* untracked //p' "$dir/$v/out.txt" | head -1)
    [ "${u:-0}" -ge 1 ] && pass "$v: $u threads had no slot while all were alive" || fail "$v: every thread had a slot (untracked ${u:-?})"
    u=$(sed -n 's/^live ncalls [0-9]* untracked //p' "$dir/$v/out.txt" | sed -n 2p)
    [ "$u" = 0 ] && pass "$v: each had a slot once half of them ended" || fail "$v: still $u threads without a slot at the end"
    same_as_off $v
  done
  ;;
trace_with_the_live_view_keeps_the_calls_of_threads_still_alive_at_exit)
  # 30 threads make 40 calls each (fewer than a ring holds with the trace on: their calls
  # are not written out of it before the end) and wait outside any call while the main
  # thread makes its calls and returns from main.
  for v in off on on16; do
    traced $v -- idle 30 40
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    counted $v threads 31
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_every_call_of_nested_signal_handlers)
  # A thread sends SIGUSR1 every few microseconds; the handler (SA_NODEFER, up to three deep)
  # makes two calls, the first naming its run. The loop's cuDeviceGetCount takes 20 us in
  # the mock, so most handlers run inside a call (the trace's next level). Where the signals
  # land differs from run to run, so each run is checked against the program's own counts:
  # the loop's calls all there in order, each handler's calls once, nothing else.
  for v in off on on16; do
    traced $v MOCK_SPIN=cuDeviceGetCount:20000 -- signal 2000 300
    ran $v
    loop=$(sed -n 's/^loop calls \([0-9]*\) handler runs [0-9]*$/\1/p' "$dir/$v/out.txt")
    runs=$(sed -n 's/^loop calls [0-9]* handler runs \([0-9]*\)$/\1/p' "$dir/$v/out.txt")
    [ "${runs:-0}" -ge 1 ] || fail "$v: no handler ran"
    if "$PYTHON" "$CALLS" signal "$dir/$v/t.json" "${loop:-0}" "${runs:-0}" >"$dir/$v/signal.txt" 2>&1; then
      pass "$v: $(cat "$dir/$v/signal.txt") (the program: $loop loop calls, $runs handler runs)"
    else
      fail "$v: $(tail -1 "$dir/$v/signal.txt")"
    fi
  done
  ;;
trace_with_the_live_view_keeps_a_handlers_calls_three_rings_long)
  # 500 calls, then a call that spins 300 ms; a signal lands inside it (in the mock, outside
  # any update of the trace's) and its handler makes 3,000 calls, three times the ring (1,024
  # records with the trace): kept at the trace's level 0, they write the ring out as they
  # go, and neither they nor the 500 kept before them are taken again unwritten. The trace
  # holds every call the program made, in order, as with the view off, and says none lost.
  for v in off on; do
    traced $v MOCK_SPIN=cuDeviceGetCount:300000000 -- overtaking 500 3000
    ran $v
    grep -qx 'inside 1' "$dir/$v/out.txt" && pass "$v: the handler ran inside the spinning call" ||
      fail "$v: the signal never landed inside the call: $(grep '^inside' "$dir/$v/out.txt")"
    canon $v
    counted $v calls "$(made $v)"
  done
  same_as_off on
  ;;
trace_with_the_live_view_keeps_the_calls_a_handler_inside_its_own_update_goes_round)
  # 500 calls (the ring keeps them), then a cuModuleGetFunction whose name's page the mock
  # has the program make unreadable once it has read the name (a SIGUSR2 it raises): the
  # trace faults reading the name, inside its own update, and the program's SIGSEGV handler
  # makes 3,000 calls there. At the trace's next level they are whole records and cannot
  # write the ring out, yet they take its records three times round: the 500 kept calls are
  # copied out before they are taken again. Then 500 calls more. The trace holds every call,
  # in order, as with the view off, and says none lost.
  for v in off on; do
    traced $v MOCK_TRIP=cuModuleGetFunction:1:raise=12 -- fault_inside 500 3000
    ran $v
    grep -qx 'faults 1' "$dir/$v/out.txt" && pass "$v: the trace's read of the name faulted once" ||
      fail "$v: $(grep '^faults' "$dir/$v/out.txt" || echo 'no faults line')"
    canon $v
    counted $v calls "$(made $v)"
  done
  same_as_off on
  ;;
trace_of_a_process_killed_after_a_flush_converts_the_same_calls_with_the_live_view)
  # Two threads make 3000 calls each, wait past CUAUDIT_FLUSH_INTERVAL, make one more call
  # (whose end writes the thread's buffer out, with it); then the process kills itself.
  # `cuaudit trace` converts its raw file: every call, with the view on as off. The three
  # runs at once: their waits overlap.
  for v in off on on16; do traced $v CUAUDIT_FLUSH_INTERVAL=1 -- kill 3000 & done
  wait
  for v in off on on16; do
    ran $v 137
    [ ! -e "$dir/$v/t.json" ] && pass "$v: no JSON written by the killed process" || fail "$v: t.json exists"
    raws=("$dir/$v"/t.json.*.raw)
    if [ ${#raws[@]} = 1 ] && [ -s "${raws[0]}" ]; then
      "$CLI" trace -o "$dir/$v/k.json" "${raws[0]}" >"$dir/$v/conv.txt" 2>&1 && pass "$v: cuaudit trace converted the raw file" ||
        fail "$v: cuaudit trace: $(cat "$dir/$v/conv.txt")"
    else
      fail "$v: not one raw file: $(ls "$dir/$v")"
    fi
    canon $v k.json
    counted $v calls "$(made $v)"
    counted $v threads 2
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_the_calls_of_a_forked_child_and_of_its_parent)
  # The parent calls (more than a ring), forks; the child calls and exits; the parent calls
  # again. Each process's trace, compared with its own without the view.
  for v in off on on16; do
    traced $v CUAUDIT_TRACE="$dir/$v/t.%p.json" -- fork 150
    ran $v
    child=$(made $v child)
    files=$(cd "$dir/$v" && ls t.*.json 2>/dev/null | tr '\n' ' ')
    parent=$(cd "$dir/$v" && ls t.*.json 2>/dev/null | grep -v "^t\.$child\.json$" | head -1)
    [ -n "$child" ] && [ -e "$dir/$v/t.$child.json" ] && [ -n "$parent" ] && [ "$(echo $files | wc -w)" = 2 ] &&
      pass "$v: one trace per process ($files)" || fail "$v: traces: $files (child ${child:-?})"
    canon $v "$parent" parent
    canon $v "t.$child.json" child
    counted $v calls "$(made $v 'parent calls')" parent
    counted $v calls "$(made $v 'child calls')" child
  done
  for v in on on16; do same_as_off $v parent; same_as_off $v child; done
  ;;
trace_with_the_live_view_and_CUAUDIT_CAPTURE_profiler_api_keeps_only_the_calls_in_range)
  # 1500 calls before each of two ranges and after them, recorded neither way; inside, mixed
  # calls, cuProfilerStart and cuProfilerStop recorded.
  for v in off on on16; do
    traced $v CUAUDIT_CAPTURE=profiler-api -- profiler 1500 120
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    grep -qE 'ordinal=[6-8][0-9]{6}\)' "$dir/$v/canon.txt" && fail "$v: a call outside the ranges was recorded" ||
      pass "$v: no call outside the ranges"
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_and_CUAUDIT_EXCLUDE_keeps_every_call_not_excluded)
  # The same program with no range: every cuDeviceGet (3 times 1500 in a row, and one in each
  # round) excluded from the trace, every other call recorded. Excluded calls take ring
  # records too.
  for v in off on on16; do
    traced $v CUAUDIT_EXCLUDE=cuDeviceGet -- profiler 1500 120
    ran $v
    canon $v
    counted $v calls "$(made $v 'calls but cuDeviceGet')"
    grep -q '^name cuDeviceGet ' "$dir/$v/canon.counts" && fail "$v: an excluded call was recorded" ||
      pass "$v: no excluded call"
  done
  for v in on on16; do same_as_off $v; done
  ;;
trace_with_the_live_view_stores_calls_at_the_edge_of_the_rings_room_each_way_and_exactly)
  # Calls whose variable part just fills the ring record's room after their arguments (88
  # bytes with the 8 of the size and flags: record/tracefmt.h), and the same calls with one
  # byte more: a string of 15/16 and 31/32 bytes with two and one out-values, a name cut to
  # 63 bytes, a runtime launch of a kernel named in 23/24 bytes, a runtime look-up of 23/24
  # bytes (runtime calls carry nested calls' hook time: whole records). The raw file is kept
  # (CUAUDIT_TRACE_EXIT_TIME=0; its "not converted" warning aside; 1,000 rounds fill more
  # than a buffer, so that there is one): it holds call records alone; `cuaudit trace` converts it to the very calls of the trace alone (its file kept
  # too).
  for v in off on on4096; do
    if [ $v = off ]; then
      traced $v -- edges 1000
      ran $v
    else
      traced $v CUAUDIT_LOG=error CUAUDIT_TRACE_EXIT_TIME=0 -- edges 1000
      ran $v
      raws=("$dir/$v"/t.json.*.raw)
      [ ! -e "$dir/$v/t.json" ] && [ ${#raws[@]} = 1 ] && [ -s "${raws[0]}" ] &&
        pass "$v: the raw file kept, not converted" || fail "$v: $(ls "$dir/$v")"
      "$CLI" trace -o "$dir/$v/t.json" "${raws[0]}" >"$dir/$v/conv.txt" 2>&1 &&
        pass "$v: cuaudit trace converted the raw file" || fail "$v: cuaudit trace: $(cat "$dir/$v/conv.txt")"
      if "$PYTHON" "$CALLS" records "${raws[0]}" >"$dir/$v/records.txt" 2>&1; then
        pass "$v: $(tail -1 "$dir/$v/records.txt")"
      else
        fail "$v: the raw file's records: $(tail -3 "$dir/$v/records.txt")"
      fi
    fi
    canon $v
    # The kept file's end marker (the trace alone's exit converted its buffer itself).
    if [ $v != off ]; then
      grep -q '^other event: cuaudit: end of the trace (the process exited; the raw file was kept' "$dir/$v/canon.txt" &&
        pass "$v: the converted file ends as one kept at exit" || fail "$v: no end marker"
      sed -i '/^other event: cuaudit: end of the trace /d' "$dir/$v/canon.txt"
    fi
    counted $v outer "$(made $v)"
    grep -q 'cudaLaunchKernel(.*kernel_name=edge_kernel_of_24_bytes_)' "$dir/$v/canon.txt" &&
      grep -q 'cuGetProcAddress_v2(symbol=cuEdgeNoStatus_0\{14\}999,' "$dir/$v/canon.txt" &&
      pass "$v: the calls carry their kernel names and strings" ||
      fail "$v: no kernel name or string of the last round: $(grep -m2 'edge_kernel\|cuEdgeNoStatus' "$dir/$v/canon.txt")"
  done
  for v in on on4096; do same_as_off $v; done
  ;;
trace_with_the_live_view_keeps_the_ring_s_calls_across_runs_of_calls_stored_whole)
  # Each round: one call the ring keeps, then 1,500 look-ups of 60-byte names, each a whole
  # record (past the ring's room), so more than a ring's worth of records goes by with no
  # call the ring keeps. The ring must still be written out in time: its kept call is not
  # overtaken (a PyTorch start-up's 13,000 registrations lost 28 calls this way).
  for v in off on; do
    traced $v -- burst 4 1500
    ran $v
    canon $v
    counted $v calls "$(made $v)"
  done
  same_as_off on
  ;;
trace_with_the_live_view_keeps_the_calls_of_a_thread_still_calling_at_exit)
  # A thread calls in a loop until the process exits, while the main thread makes 100000
  # calls and returns from main. Exit takes the busy thread's buffer, then converts the raw
  # file (some 100 blocks: a while); meanwhile the busy thread's calls, dropped from the
  # trace, still take ring records. With the view off its buffer holds its last calls; on,
  # the calls its ring kept must not be overwritten before exit copies them (nothing said
  # lost): exit copies them just before and just after the take, also where the thread had
  # just written its ring out and kept more before the take (left to be read after the
  # conversion, those were overwritten: 70 calls lost in CI, and 4 to 12 runs of 40 under
  # two busy loops). Statistical: a run fails only where the race is lost.
  for v in off on; do
    traced $v -- busy 100000
    ran $v
    canon $v
    counted $v threads 2
  done
  rm -f "$dir"/*/t.json "$dir"/*/canon.txt
  ;;
trace_keeps_every_call_whose_string_argument_another_thread_changes)
  # Another thread makes a call's string argument empty and 63 bytes long in a loop while
  # the call returns. The trace measured each string twice, for the record's size and for
  # its copy: a string longer at the copy was written past the record's room, so the record
  # was refused by the reader (the trace alone lost some 8% of 200000 calls), and with the
  # view on it wrote past the ring record's 96 bytes into the records after it.
  for v in off on; do
    traced $v -- flipping 200000
    ran $v
    canon $v
    counted $v calls "$(made $v)"
  done
  rm -f "$dir"/*/t.json "$dir"/*/canon.txt
  ;;
trace_with_the_live_view_keeps_calls_a_fault_skipped_as_the_trace_alone_does)
  # CUAUDIT_FAULT skips every third cuDeviceGet (the program ignores its result): the call
  # keeps CUA_REC_SKIPPED with the result the fault gave, and no out-value, with the view on
  # (a whole record: the ring keeps no skip) as off.
  for v in off on; do
    traced $v "CUAUDIT_FAULT=cuDeviceGet=CUDA_ERROR_OUT_OF_MEMORY@every:3" -- mixed 400
    ran $v
    canon $v
    counted $v calls "$(made $v)"
    n=$(grep -c '^  driver cuDeviceGet(.*skipped=True) -> CUDA_ERROR_OUT_OF_MEMORY ' "$dir/$v/canon.txt")
    [ "$n" -ge 100 ] && pass "$v: $n calls skipped by the fault" || fail "$v: $n skipped calls"
  done
  same_as_off on
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
