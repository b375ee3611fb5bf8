#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/compute.sh: a compute share per group: the scheduler's rules against the mock GPU's timeline.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

mkdir share
export CUAUDIT_SHARE_DIR="$dir/share" CUAUDIT_LOG=warn
PROG="$BIN/compute_prog"
TL="$CASES_DIR/compute_timeline.py"
# The mock's timelines are bounds, not exact sleeps: a process on a loaded 2-core machine
# sleeps longer than asked and gets less GPU time, never more. Only the rule's side (a cap
# never passed) is held tight; the other side is loose.

# share NAME FILE [FROM [TO]]: the mean/max busy fraction of 1 s windows of a timeline.
stat_of() { "$PYTHON" "$TL" "$2" ${3:+"$3"} ${4:+"$4"} | sed -n "s/^$1 //p"; }
# le A B / ge A B: A <= B, A >= B, as decimals.
le() { "$PYTHON" -c "import sys; sys.exit(0 if float('$1') <= float('$2') else 1)"; }
ge() { le "$2" "$1"; }
# Each case fails without the feature (no hold, no file, no message); the kill case, which
# an unlimited process passes too, fails when a dead process's want is never let go (the
# rule's CUA_CS_ACTIVE_NS and window age removed: a after the kill 25%); the late-anchor
# case fails with GPU timing's mapping taken from the most certain anchor alone (453 of 456
# slices wrong).
# Through env, which execs the program: `VAR=... "${R[@]}" PROG &` gives PROG's own pid in $!;
# `VAR=... run PROG &` (a function) gives a subshell's pid: killing it leaves the program running.
run() { env LD_AUDIT="$AUDIT" "$@"; }
R=(env LD_AUDIT="$AUDIT")

case $name in
compute_a_cap_holds_the_group_within_it_over_every_window)
  # Without a limit the loop keeps the mock GPU busy most of the time: the cap must bite.
  MOCK_GPU_TIMELINE=free.txt run "$PROG" 2 2 >free.out 2>free.err
  m=$(stat_of mean free.txt)
  ge "$m" 0.6 && pass "unlimited: the GPU busy $m of each window" || fail "unlimited: $m $(cat free.err)"
  for kind in kernel graph memset; do
    CUAUDIT_COMPUTE_LIMIT=30 MOCK_GPU_TIMELINE=$kind.txt run "$PROG" 4 2 $kind >$kind.out 2>$kind.err
    mx=$(stat_of max $kind.txt); mn=$(stat_of mean $kind.txt 1)
    # A window of 1 s holds at most 30%, plus the pieces started before a look saw the group
    # over (a 2 ms check interval, a bucket's edge): 3 points.
    le "$mx" 0.33 && pass "$kind: a 30% cap: the busiest window $mx" || fail "$kind: busiest window $mx"
    ge "$mn" 0.15 && pass "$kind: the group still runs: $mn of each window after the first second" ||
      fail "$kind: held too much: $mn"
    [ ! -s $kind.err ] && pass "$kind: nothing said" || fail "$kind: $(cat $kind.err)"
    # A held call waits at most 1 s (MAX_HOLD_NS), plus a loaded machine's delay.
    l=$(sed -n 's/^longest_call_ms //p' $kind.out)
    le "$l" 1500 && pass "$kind: the longest call $l ms" || fail "$kind: a call held $l ms"
  done
  ;;
compute_a_device_s_limit_holds_on_that_device_and_no_other)
  # A limit for device 1 alone (CUAUDIT_COMPUTE_LIMIT=1:30): the same loop on device 0 runs
  # unheld, on device 1 within 30%; and 0:30,1:80 gives each device its own cap.
  export MOCK_DEVICE_COUNT=2
  for c in "1:30 0 dev0" "1:30 1 dev1" "0:80,1:30 1 both1" "0:30,1:80 0 both0"; do
    set -- $c
    CUAUDIT_COMPUTE_LIMIT=$1 COMPUTE_DEVICE=$2 MOCK_GPU_TIMELINE=$3.txt run "$PROG" 3 2 >$3.out 2>$3.err ||
      fail "$3: the program failed: $(cat $3.err)"
    [ ! -s $3.err ] || fail "$3: $(cat $3.err)"
  done
  m=$(stat_of mean dev0.txt)
  ge "$m" 0.6 && pass "1:30, run on device 0: unheld, the GPU busy $m of each window" ||
    fail "1:30 held device 0: $m"
  for t in dev1 both1 both0; do
    mx=$(stat_of max $t.txt); mn=$(stat_of mean $t.txt 1)
    le "$mx" 0.33 && pass "$t: a 30% cap on the device run on: the busiest window $mx" ||
      fail "$t: busiest window $mx"
    ge "$mn" 0.15 && pass "$t: the group still runs: $mn of each window after the first second" ||
      fail "$t: held too much: $mn"
  done
  ;;
compute_share_mode_alone_takes_all_and_two_groups_follow_their_weights)
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=25:share MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 7 2 >a.out 2>a.err &
  ap=$!
  sleep 1.5
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=75:share MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 3 2 >b.out 2>b.err &
  bp=$!
  sleep 2.5
  "$CLI" ps --groups --json >ps.json 2>ps.err
  "$CLI" ps --groups >ps.txt 2>>ps.err
  wait $bp; wait $ap
  cat ps.txt
  m=$(stat_of mean a.txt 0 1.4)
  ge "$m" 0.6 && pass "a alone: $m of each window, as without a limit" || fail "a alone: $m"
  # While both want the GPU, each one's charged share (time-sliced time shared out) follows
  # its weight: a is held at 25% (+3 points); b, never the one held while under 75%, has the rest.
  "$PYTHON" - ps.json <<'PY' && pass "a charged <= 28%, b at least twice a's" || fail "$(cat ps.json ps.err)"
import json, sys
g = {x["compute_group"]: x for x in json.load(open(sys.argv[1])) if "compute_group" in x}
a, b = g["a"], g["b"]
assert a["mode"] == "share" and a["limit_percent"] == 25 and b["limit_percent"] == 75, g
assert a["active"] and b["active"], g
assert a["achieved_permille"] <= 280, a
assert b["achieved_permille"] >= 2 * a["achieved_permille"], (a, b)
assert a["held_ns"] > 0, a
PY
  grep -qE "^a +0 +25% share +[0-9.]+% +[0-9]+ms +1$" ps.txt && pass "ps --groups text line" || fail "text: $(cat ps.txt)"
  # b ended 4.5 s after a began; its time leaves the window within 1 s: a has the GPU again.
  m=$(stat_of mean a.txt 5.8)
  ge "$m" 0.6 && pass "a alone again: $m" || fail "a after b: $m"
  ;;
compute_a_killed_process_leaves_the_others_unblocked)
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=25:share MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 6 2 >a.out 2>a.err &
  ap=$!
  sleep 1
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=75:share MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 30 2 >b.out 2>b.err &
  bp=$!
  sleep 1.5
  kill -9 $bp; wait $bp 2>/dev/null
  wait $ap
  # Killed 2.5 s in: its buckets leave a's window by 3.7 s (1 s, and 200 ms of wanting).
  m=$(stat_of mean a.txt 3.8)
  ge "$m" 0.6 && pass "a after b's SIGKILL: $m of each window" || fail "a after the kill: $m"
  l=$(sed -n 's/^longest_call_ms //p' a.out)
  le "$l" 1500 && pass "a's longest call $l ms" || fail "a held $l ms"
  ;;
compute_ps_groups_achieved_share_is_the_timeline_s)
  CUAUDIT_METRICS="$dir/m.prom" CUAUDIT_COMPUTE_LIMIT=40 MOCK_GPU_TIMELINE=t.txt "${R[@]}" "$PROG" 2.5 3 >t.out 2>t.err &
  tp=$!
  sleep 2
  "$CLI" ps --groups --json >ps.json 2>ps.err
  wait $tp
  # The process alone is its own group, named by its pid; its charge is its own intervals
  # (bounded ones from the middle of their bounds, each a few microseconds wide on the mock).
  "$PYTHON" - ps.json t.txt $tp <<'PY' && pass "achieved is the timeline's busy time of the window" || fail "$(cat ps.json ps.err)"
import json, sys
g = [x for x in json.load(open(sys.argv[1])) if "compute_group" in x]
assert len(g) == 1 and g[0]["compute_group"] is None and g[0]["pid"] == int(sys.argv[3]), g
x = g[0]
lo, hi = x["window_start_ns"], x["window_end_ns"]
busy = 0
for line in open(sys.argv[2]):
    s, e = map(int, line.split()[2:4])
    busy += max(0, min(e, hi) - max(s, lo))
# Harvested late: the kernel in flight at the read and those that ended since the last look
# (a look every 2 ms, 3 ms kernels): 4 kernels idle, and beside two busy loops the process
# waits for a core too: 13.3 ms seen once in 12 runs there, so 40 ms, a tenth of the busy time.
assert busy - 40_000_000 <= x["charged_ns"] <= busy + 100_000, (busy, x)
assert x["limit_percent"] == 40 and x["mode"] == "cap", x
assert abs(x["achieved_permille"] - x["charged_ns"] * 1000 // (hi - lo)) <= 1, x
PY
  # The metrics at exit: the limit, and the last second's share (a cap of 40%: at most 43%).
  expect_log 1 '^cuaudit_compute_group_limit_ratio\{.*group="",device="0",mode="cap"\} 0\.400$' m.prom
  a=$(sed -n 's/^cuaudit_compute_group_achieved_ratio{.*device="0",mode="cap"} //p' m.prom)
  [ -n "$a" ] && le "$a" 0.43 && ge "$a" 0.2 && pass "achieved ratio $a" || fail "achieved: '$a' $(cat m.prom | grep compute)"
  ;;
compute_late_stamped_anchors_neither_shorten_intervals_nor_loosen_a_cap)
  # On a GPU time-sliced with another context, cuaudit's anchor events are stamped when its
  # slice comes: every second one 3 ms late here. GPU timing keeps the greatest lower bound
  # of the clock offset and never maps by an anchor that lies wholly below it: every slice
  # still holds the mock's truth, and the cap still holds.
  MOCK_LATE_ANCHOR_NS=3000000 MOCK_GPU_TIMELINE="$dir/tl.txt" CUAUDIT_GPU_TIME=on CUAUDIT_TRACE="$dir/trace.json" \
    run "$PROG" 1 2 >t.out 2>t.err
  "$PYTHON" "$CASES_DIR/gpu_truth.py" trace.json tl.txt 0 >truth.txt 2>&1 &&
    pass "trace vs the mock's timeline: $(tail -1 truth.txt)" || fail "late anchors: $(tail -3 truth.txt)"
  MOCK_LATE_ANCHOR_NS=3000000 MOCK_GPU_TIMELINE="$dir/cap.txt" CUAUDIT_COMPUTE_LIMIT=30 run "$PROG" 3 2 >c.out 2>c.err
  mx=$(stat_of max cap.txt)
  le "$mx" 0.33 && pass "a 30% cap with late anchors: the busiest window $mx" || fail "late anchors, busiest window $mx"
  ;;
compute_a_bad_group_or_share_dir_says_what_becomes_of_the_compute_limit)
  # A compute limit with a bad CUAUDIT_MEM_GROUP runs each process as its own group: its
  # message must say so (it spoke of the memory limit alone, which may not even be set).
  # A bad CUAUDIT_SHARE_DIR leaves no compute limit: one message, not two.
  CUAUDIT_COMPUTE_LIMIT=30 CUAUDIT_MEM_GROUP='a/b' run "$PROG" 0.1 2 >g.out 2>g.err
  [ "$(grep -c . g.err)" = 1 ] && grep -q 'CUAUDIT_MEM_GROUP="a/b" is not valid; accepted: ' g.err &&
    grep -q "the compute limit, if any, are this process's own" g.err &&
    pass "a bad group: one message, the compute limit is the process's own" || fail "bad group: $(cat g.err)"
  CUAUDIT_COMPUTE_LIMIT=30 CUAUDIT_SHARE_DIR=relative run "$PROG" 0.1 2 >d.out 2>d.err
  [ "$(grep -c . d.err)" = 1 ] && grep -q 'CUAUDIT_SHARE_DIR="relative" is not valid; accepted: ' d.err &&
    grep -q "no compute limit is applied" d.err &&
    pass "a bad share directory: one message, no compute limit" || fail "bad share dir: $(cat d.err)"
  ;;
compute_bad_values_are_refused_with_one_message_and_no_limit)
  for v in 0 101 abc 30:shar 0:30,30:share 16:30 30,40 0:30,0:40 "" 30%%; do
    CUAUDIT_COMPUTE_LIMIT=$v MOCK_GPU_TIMELINE=bad.txt run "$PROG" 0.3 2 >bad.out 2>bad.err
    n=$(grep -c . bad.err)
    [ "$n" = 1 ] && grep -q "CUAUDIT_COMPUTE_LIMIT=\"$v\" is not valid; accepted: PCT" bad.err &&
      grep -q "No compute limit is applied" bad.err && pass "'$v': one message" || fail "'$v': $(cat bad.err)"
    l=$(sed -n 's/^longest_call_ms //p' bad.out)
    le "$l" 200 && pass "'$v': never held ($l ms)" || fail "'$v': held $l ms"
  done
  rm -f share/*
  for v in 30 30% 0:30 0:30,1:50 30:share 0:30:share,20:share 100; do
    CUAUDIT_COMPUTE_LIMIT=$v CUAUDIT_MEM_GROUP=g run "$PROG" 0.2 2 >good.out 2>good.err
    [ ! -s good.err ] && pass "'$v' accepted, a group without a memory quota too" || fail "'$v': $(cat good.err)"
  done
  "$CLI" run --compute-limit 0 "$PROG" 0.1 2 >cli.out 2>cli.err
  [ $? = 2 ] && grep -q "CUAUDIT_COMPUTE_LIMIT" cli.err && pass "run --compute-limit 0 refused" || fail "run: $(cat cli.err)"
  "$CLI" run --compute-limit 30 --share-dir share "$PROG" 0.1 2 >cli.out 2>cli.err
  [ $? = 0 ] && [ -f "share/cuaudit-compute-$(id -u)" ] && pass "run --compute-limit makes the share file" || fail "run: $(cat cli.err)"
  # A file that is not the user's or is damaged: one message, no limit, the program runs.
  rm -f share/*; printf 'junk' >"share/cuaudit-compute-$(id -u)"; chmod 600 "share/cuaudit-compute-$(id -u)"
  CUAUDIT_COMPUTE_LIMIT=30 run "$PROG" 0.3 2 >dmg.out 2>dmg.err
  [ "$(grep -c . dmg.err)" = 1 ] && grep -q "No compute limit is applied" dmg.err && pass "a damaged file: one message" || fail "damaged: $(cat dmg.err)"
  ;;
compute_two_busy_groups_take_turns_and_never_run_at_once)
  # Caps 50/50 and 30/70, two groups busy at once: one group's work at a time (turns), each
  # within its cap and both running. The mock GPU runs each process's work on its own
  # timeline, so any time both timelines are busy is time a real GPU would time-slice.
  for caps in "50 50" "30 70"; do
    set -- $caps
    rm -f a.txt b.txt
    CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=$1 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 4 2 >a.out 2>a.err &
    ap=$!
    CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=$2 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 4 2 >b.out 2>b.err &
    bp=$!
    wait $ap; wait $bp
    "$PYTHON" "$CASES_DIR/compute_overlap.py" a.txt b.txt >ov.txt || fail "$caps: $(cat ov.txt)"
    ov=$(sed -n 's/^overlap //p' ov.txt)
    # Where a turn changes, the next group starts when the last one's work is seen
    # finished: nothing overlaps but what a loaded machine's late look lets through.
    le "$ov" 0.05 && pass "$caps: both groups' work at once $ov of the time" || fail "$caps: overlap $ov"
    for g in a b; do
      cap=$1; [ $g = b ] && cap=$2
      mx=$(stat_of max $g.txt); mn=$(stat_of mean $g.txt 1 3.8)
      le "$mx" "$("$PYTHON" -c "print($cap / 100 + 0.04)")" && pass "$caps: $g within its cap: $mx" || fail "$caps: $g's busiest window $mx"
      ge "$mn" "$("$PYTHON" -c "print(min(0.25, $cap / 100 / 2))")" && pass "$caps: $g runs: $mn" || fail "$caps: $g held too much: $mn"
      l=$(sed -n 's/^longest_call_ms //p' $g.out)
      le "$l" 1500 && pass "$caps: $g's longest call $l ms" || fail "$caps: $g held $l ms"
      [ ! -s $g.err ] && pass "$caps: $g said nothing" || fail "$caps: $g: $(cat $g.err)"
    done
  done
  # The turn's holder killed (-9) while b waits: its turn ends by its time, b goes on.
  rm -f a.txt b.txt
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 30 2 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 3 2 >b.out 2>b.err &
  bp=$!
  sleep 1.5
  kill -9 $ap; wait $ap 2>/dev/null
  wait $bp
  l=$(sed -n 's/^longest_call_ms //p' b.out)
  le "$l" 1500 && pass "a killed: b's longest call $l ms" || fail "a killed: b held $l ms"
  ;;
compute_a_share_file_with_times_of_no_live_clock_holds_no_one)
  # The share file outlives the processes, and a share directory on a disk outlives a
  # reboot: the file then holds times of the last boot's clock, later than any of this one
  # (here planted: a dead process's slot that wanted the device and waited a day from now,
  # and a turn word ending then, of no slot). Such times are no one's: a group alone runs
  # as without a limit, and two groups still take turns. Before, the group alone took turns
  # and yielded each to the dead slot, and the two groups waited for the turn: every launch
  # after a 2 ms check held 1 s, a program of thousands of launches left with a few.
  CUAUDIT_MEM_GROUP=old CUAUDIT_COMPUTE_LIMIT=50 run "$PROG" 0.2 2 >old.out 2>old.err || fail "old: $(cat old.err)"
  plant() {
    "$PYTHON" - "share/cuaudit-compute-$(id -u)" <<'PY'
import mmap, os, struct, sys, time
SLOT, WANTS, WAITING, LAUNCHED, TURN, DAY = 17176, 88, 600, 728, 80, 86400 * 10**9
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    assert struct.unpack_from("<I", m, 32)[0] == SLOT, "the slot's size changed: update the offsets"
    assert struct.unpack_from("<Q", m, 4096)[0] >> 63, "slot 0 is the exited process's, ready"
    later = time.monotonic_ns() + DAY
    for off in (WANTS, WAITING, LAUNCHED):
        struct.pack_into("<Q", m, 4096 + off, later)
    struct.pack_into("<Q", m, TURN, (later >> 10) << 12 | 0xfff)
    m.close()
PY
  }
  plant || fail "could not plant the times"
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=alone.txt run "$PROG" 2 2 >alone.out 2>alone.err
  m=$(stat_of mean alone.txt)
  ge "$m" 0.6 && pass "a alone beside the planted slot: $m of each window" || fail "a alone: $m, $(cat alone.out alone.err)"
  plant || fail "could not plant the times again"
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 3 2 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 3 2 >b.out 2>b.err &
  bp=$!
  wait $ap; wait $bp
  for g in a b; do
    # Two groups of 50% with turns: each about a third to a half; held 1 s a launch: ~0.
    mn=$(stat_of mean $g.txt 1 2.8)
    ge "$mn" 0.2 && pass "$g, two groups and the planted turn: $mn" || fail "$g held by the planted turn: $mn, $(cat $g.out $g.err)"
    [ ! -s $g.err ] && pass "$g said nothing" || fail "$g: $(cat $g.err)"
  done
  ;;
compute_three_groups_take_turns_and_none_waits_out_the_hold)
  # Three busy groups of 100% (no cap that would stop the others): turns have no queue, the
  # next goes to whichever looks first after a change, and a group may lose a few changes
  # in a row (up to 500 ms without the GPU seen). No group may be starved past the window: each
  # gets a part of every window of 1 s (a change every ~50 ms: losing all of a second's
  # races by chance, about 2^-20; seen: 0.09 at least on a loaded machine, 0.002 when the
  # holder never yields), and a fair part on average.
  for g in a b c; do
    CUAUDIT_MEM_GROUP=$g CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=$g.txt "${R[@]}" "$PROG" 4 2 >$g.out 2>$g.err &
    eval "${g}p=\$!"
  done
  wait $ap; wait $bp; wait $cp
  for g in a b c; do
    mn=$(stat_of mean $g.txt 1 3.8); lo=$(stat_of min $g.txt 1 3.8)
    ge "$mn" 0.1 && pass "$g's mean part of a window: $mn" || fail "$g held: $mn"
    ge "$lo" 0.02 && pass "$g's least part of a window: $lo" || fail "$g starved for a window: $lo"
    l=$(sed -n 's/^longest_call_ms //p' $g.out)
    le "$l" 1500 && pass "$g's longest call $l ms" || fail "$g held $l ms"
    [ ! -s $g.err ] && pass "$g said nothing" || fail "$g: $(cat $g.err)"
  done
  ;;
compute_a_stopped_turn_holder_holds_the_other_group_at_most_a_turn_and_a_drain)
  # Two busy groups of 100%; a is stopped (SIGSTOP) for 1.2 s five times, at whatever point
  # of its turns: its turn ends by its time, its unfinished work is waited for at most 50 ms
  # after that, and 200 ms after its last launch it no longer wants the device at all. So b
  # waits about a turn (40 ms) and a drain (seen: 90 ms), 200 ms at most (seen: 235 ms with
  # the drain's bound removed); a stopped process that kept the turn or were waited for
  # would hold b's calls for the whole stop, up to the 1 s bound.
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 10 2 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 9 2 >b.out 2>b.err &
  bp=$!
  sleep 1
  for i in 1 2 3 4 5; do
    kill -STOP $ap; sleep 1.2; kill -CONT $ap; sleep 0.$((RANDOM % 3 + 1))
  done
  wait $bp; wait $ap
  l=$(sed -n 's/^longest_call_ms //p' b.out)
  le "$l" 300 && pass "b's longest call $l ms" || fail "b held $l ms while a was stopped"
  n=$(sed -n 's/^launches //p' a.out)
  ge "$n" 100 && pass "a ran on after each stop: $n launches" || fail "a after the stops: $n $(cat a.err)"
  [ ! -s b.err ] && pass "b said nothing" || fail "b: $(cat b.err)"
  ;;
compute_launches_into_a_capturing_stream_are_neither_held_nor_charged)
  # Over a 30% cap (600 ms of work just done), 50 launches into a stream that captures a
  # graph: they put nothing on the GPU, so none waits (before: the first held some 700 ms,
  # until the window forgot the work), and the capture is not broken (no event query or
  # other forbidden call in its mode). The plain launch after them is held: the group was
  # over. Nothing of the capture is on the timeline: it ran nothing, so nothing is charged.
  CUAUDIT_COMPUTE_LIMIT=30 MOCK_GPU_TIMELINE=cap.txt run "$BIN/compute_edges" capture >cap.out 2>cap.err ||
    fail "capture: $(cat cap.out cap.err)"
  cat cap.out
  grep -qx 'capture_end 0' cap.out && pass "the capture ended whole" || fail "capture: $(cat cap.out)"
  t=$(sed -n 's/^capture_total_ms //p' cap.out)
  le "$t" 100 && pass "50 captured launches over the cap took $t ms" || fail "captured launches held: $t ms"
  p=$(sed -n 's/^plain_after_ms //p' cap.out)
  ge "$p" 100 && pass "the plain launch after them held $p ms" || fail "the group was not over: $p ms"
  n=$(grep -c . cap.txt)
  [ "$n" = 2 ] && pass "the timeline holds the two plain launches only" || fail "timeline: $(cat cap.txt)"
  [ ! -s cap.err ] && pass "nothing said" || fail "$(cat cap.err)"
  ;;
compute_a_thread_jumped_out_of_its_hold_leaves_no_slow_path_behind)
  # A thread held over its cap leaves the hold by a signal handler's siglongjmp (as a
  # cancelled thread leaves it, without returning). Once the group is under its cap, 2000
  # quick launches take the slow path (a look at the file, one cuCtxGetDevice each) only
  # about every 2 ms, as before the jump; before, a count of held threads never lowered made
  # every later launch look: 2000 looks.
  CUAUDIT_COMPUTE_LIMIT=30 MOCK_GPU_TIMELINE=j.txt run "$BIN/compute_edges" cancel >j.out 2>j.err ||
    fail "cancel: $(cat j.out j.err)"
  cat j.out
  grep -qx 'jumped 1' j.out && pass "the held thread jumped out" || fail "not held: $(cat j.out)"
  n=$(sed -n 's/^looks //p' j.out)
  le "$n" 500 && pass "2000 launches after the jump: $n looks" || fail "every launch looks: $n"
  [ ! -s j.err ] && pass "nothing said" || fail "$(cat j.err)"
  ;;
compute_two_processes_whose_clocks_disagree_still_take_turns_and_keep_caps)
  # Each process's cuaudit clock is its own calibrated TSC; two long-lived ones drift apart
  # (some 10 ms an hour). Here a's is put 500 ms ahead (the test-only
  # CUAUDIT_TEST_CLOCK_OFFSET_MS: days of drift at once). Every time in the share file is
  # CLOCK_MONOTONIC, so the two still agree on turns, buckets and the window. Before (the
  # file on each process's own clock): a's turns ended 500 ms late for b, b's had ended
  # before they began for a: b held 0.4 to 0.5 s a change and both groups' work at once.
  rm -f a.txt b.txt
  CUAUDIT_TEST_CLOCK_OFFSET_MS=500 CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 4 2 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=50 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 4 2 >b.out 2>b.err &
  bp=$!
  wait $ap; wait $bp
  "$PYTHON" "$CASES_DIR/compute_overlap.py" a.txt b.txt >ov.txt || fail "$(cat ov.txt)"
  ov=$(sed -n 's/^overlap //p' ov.txt)
  le "$ov" 0.05 && pass "both groups' work at once $ov of the time" || fail "overlap $ov"
  for g in a b; do
    mx=$(stat_of max $g.txt); mn=$(stat_of mean $g.txt 1 3.8)
    le "$mx" 0.54 && pass "$g within its cap: $mx" || fail "$g's busiest window $mx"
    ge "$mn" 0.25 && pass "$g runs: $mn" || fail "$g held too much: $mn"
    l=$(sed -n 's/^longest_call_ms //p' $g.out)
    le "$l" 300 && pass "$g's longest call $l ms" || fail "$g held $l ms"
    [ ! -s $g.err ] && pass "$g said nothing" || fail "$g: $(cat $g.err)"
  done
  CUAUDIT_TEST_CLOCK_OFFSET_MS=x CUAUDIT_COMPUTE_LIMIT=50 run "$PROG" 0.1 2 >x.out 2>x.err
  grep -q 'CUAUDIT_TEST_CLOCK_OFFSET_MS="x" is not valid' x.err && pass "a bad offset: one message" || fail "bad offset: $(cat x.err)"
  ;;
compute_a_group_that_synchronised_is_not_waited_for_at_the_turn_s_change)
  # a: a piece of 2 ms, a stream synchronise once it has run, then 100 ms without a launch;
  # b: busy. At the end of a's turn its work has long finished, and its synchronise said so
  # (published as its idle): b takes the turn at once, held about a turn (40 ms) a change.
  # Before, a's idle was published only at its next look (its next launch, 100 ms on): b
  # waited the drain's bound too, 50 ms after a's turn, some 90 ms held at every change.
  rm -f a.txt b.txt
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 4 2 kernel 100 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 4 2 >b.out 2>b.err &
  bp=$!
  wait $ap; wait $bp
  cat a.out b.out
  n=$(sed -n 's/^launches //p' a.out)
  ge "$n" 15 && pass "a ran $n pieces" || fail "a ran $n pieces: $(cat a.err)"
  o=$(sed -n 's/^calls_over_60ms //p' b.out)
  # A change in four may meet a late wake-up on a loaded machine; before, every one did.
  le "$o" "$((n / 4))" && pass "b held over 60 ms $o times in $n of a's turns" || fail "b waited out the drain: $o times in $n"
  "$PYTHON" "$CASES_DIR/compute_overlap.py" a.txt b.txt >ov.txt || fail "$(cat ov.txt)"
  ov=$(sed -n 's/^overlap //p' ov.txt)
  le "$ov" 0.05 && pass "both groups' work at once $ov of the time" || fail "overlap $ov"
  for g in a b; do [ ! -s $g.err ] && pass "$g said nothing" || fail "$g: $(cat $g.err)"; done
  ;;
compute_work_launched_after_a_synchronise_is_waited_for_at_the_turn_s_change)
  # a: in its turn a 1 ms kernel, a synchronise once it ran (a's idle published), then at
  # once, within 2 ms of its look, a 60 ms kernel, and 100 ms with no launch or synchronise;
  # b: busy. a's turn (40 ms) ends with its 60 ms kernel still running: b must wait for it
  # (a's next look, or the 50 ms drain bound), never start beside it. Before, the launch
  # after the synchronise passed on the fast path without marking a as launched, so the
  # idle the synchronise published still said "nothing of a's unfinished": b took the turn
  # at once and ran beside a's kernel some 20 ms of every 140.
  rm -f a.txt b.txt
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=a.txt "${R[@]}" "$PROG" 4 60 aftersync 100 >a.out 2>a.err &
  ap=$!
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=100 MOCK_GPU_TIMELINE=b.txt "${R[@]}" "$PROG" 4 2 >b.out 2>b.err &
  bp=$!
  wait $ap; wait $bp
  cat a.out b.out
  n=$(sed -n 's/^launches //p' a.out)
  ge "$n" 10 && pass "a ran $n long kernels" || fail "a ran $n: $(cat a.err)"
  "$PYTHON" "$CASES_DIR/compute_overlap.py" a.txt b.txt >ov.txt || fail "$(cat ov.txt)"
  ov=$(sed -n 's/^overlap //p' ov.txt)
  le "$ov" 0.05 && pass "both groups' work at once $ov of the time" || fail "b ran beside a's kernel: overlap $ov"
  for g in a b; do [ ! -s $g.err ] && pass "$g said nothing" || fail "$g: $(cat $g.err)"; done
  ;;
compute_a_clock_offset_moves_no_summary_snapshot)
  # The test-only clock offset (cuaudit's clock 20 s ahead of CLOCK_MONOTONIC) must leave
  # the summary's snapshots every 3 s as they are: the first one 3 s in, not at the first
  # call. The first snapshot's time was read on CLOCK_MONOTONIC and compared with calls'
  # exits on cuaudit's clock, so the offset wrote it at once.
  CUAUDIT_TEST_CLOCK_OFFSET_MS=20000 CUAUDIT_COMPUTE_LIMIT=100 CUAUDIT_SUMMARY="$dir/s.json" \
    CUAUDIT_FLUSH_INTERVAL=3 "${R[@]}" "$BIN/output_prog" service 100 >svc.out 2>svc.err &
  svc=$!
  for i in $(seq 250); do grep -q "burst 100 done" svc.out && break; sleep 0.02; done
  sleep 0.5
  [ ! -e s.json ] && pass "no snapshot within the first interval" || fail "a snapshot at once: $(ls -l s.json)"
  for i in $(seq 400); do [ -s s.json ] && break; sleep 0.02; done
  [ -s s.json ] && pass "a snapshot after the interval" || fail "no snapshot: $(cat svc.err)"
  kill $svc; wait $svc 2>/dev/null
  ;;
compute_a_synchronise_polls_gpu_timing_only_while_a_turn_is_in_effect)
  # A returned synchronise polls GPU timing (event calls) to publish idle at once, for a
  # group that waits for this one's work at a turn's change. A group alone takes no turn and
  # no one waits for it: its synchronises make no event call (before: each one, some 2,000
  # to 6,500 instructions). Beside a busy group, turns: a's synchronises poll again (what
  # the poll publishes spares b the drain's wait:
  # compute_a_group_that_synchronised_is_not_waited_for_at_the_turn_s_change). Alone once
  # more, with the last turn's word left in the file long over: no poll.
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 run "$BIN/compute_edges" syncs 1 >alone.out 2>alone.err ||
    fail "alone: $(cat alone.out alone.err)"
  n=$(sed -n 's/^syncs //p' alone.out); p=$(sed -n 's/^polled //p' alone.out)
  ge "${n:-0}" 50 && [ "$p" = 0 ] && pass "alone: $p of $n synchronises polled" || fail "alone: $p of $n polled"
  CUAUDIT_MEM_GROUP=b CUAUDIT_COMPUTE_LIMIT=100 "${R[@]}" "$PROG" 3.5 2 >b.out 2>b.err &
  bp=$!
  sleep 0.5
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 run "$BIN/compute_edges" syncs 2 >two.out 2>two.err ||
    fail "beside b: $(cat two.out two.err)"
  wait $bp
  n=$(sed -n 's/^syncs //p' two.out); p=$(sed -n 's/^polled //p' two.out)
  # a synchronises in its turns (a launch goes only then) or within the drain's 50 ms after.
  ge "${n:-0}" 20 && ge "${p:-0}" "$((n / 2))" && pass "beside b: $p of $n synchronises polled" ||
    fail "beside b: $p of $n polled"
  # b's want ages out of the rule within 200 ms of its last launch.
  sleep 0.5
  CUAUDIT_MEM_GROUP=a CUAUDIT_COMPUTE_LIMIT=100 run "$BIN/compute_edges" syncs 1 >after.out 2>after.err ||
    fail "after: $(cat after.out after.err)"
  n=$(sed -n 's/^syncs //p' after.out); p=$(sed -n 's/^polled //p' after.out)
  ge "${n:-0}" 50 && [ "$p" = 0 ] && pass "alone after the turns: $p of $n synchronises polled" ||
    fail "alone after the turns: $p of $n polled"
  for f in alone.err two.err after.err b.err; do [ ! -s $f ] && pass "$f empty" || fail "$f: $(cat $f)"; done
  ;;
compute_a_share_file_cut_short_under_a_process_kills_it_not)
  # `: > FILE` while a process with a compute limit runs (a piece of work, a synchronise,
  # 300 ms without a launch, again): its next launch's look touched the mapping past the
  # file's new end and died of SIGBUS. Now it looks first, says so once, and its limit
  # counts it alone.
  CUAUDIT_COMPUTE_LIMIT=30 "${R[@]}" "$PROG" 3 2 kernel 300 >p.out 2>p.err &
  pp=$!
  f="share/cuaudit-compute-$(id -u)"
  for _ in $(seq 100); do [ -s "$f" ] && break; sleep 0.05; done
  sleep 0.5
  : >"$f"
  wait $pp; rc=$?
  [ $rc = 0 ] && grep -q '^launches [1-9]' p.out && pass "the process ran on to its end" || fail "status $rc (135: SIGBUS): $(cat p.out p.err)"
  [ "$(grep -c . p.err)" = 1 ] &&
    grep -q "CUAUDIT_COMPUTE_LIMIT: the compute share file $dir/$f was cut short (truncated) under this process. Its limit now counts this process alone" p.err &&
    pass "one message naming the file" || fail "messages: $(cat p.err)"
  ;;
esac
finish
