#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live.sh: the live view: `cuaudit ps`, `top` and `ctl` against processes on the mock that run, hang, stop, die, fork and churn threads.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh"
PROG="$BIN/live_prog"
# ps_json PID FIELD...: one line from `cuaudit ps --json PID` (python reads it).
ps_json() {
  local pid=$1; shift
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 "$pid" >psj.txt 2>psj.err || { echo "ps-failed $(cat psj.err)"; return; }
  "$PYTHON" - "$@" <<'PY'
import json, sys
d = json.load(open("psj.txt"))
what = sys.argv[1]
if what == "inflight":
    out = []
    for t in d["threads"]:
        for f in t["in_flight"]:
            out.append(f"{f['name']}:{f['elapsed_ns']}:{f['depth']}")
    print(d["state"], " ".join(sorted(out)))
elif what == "calls":
    c = {a["name"]: a["calls"] for a in d["apis"]}
    print(d["state"], c.get(sys.argv[2], 0), len(d["threads"]), d["untracked_threads"])
PY
}
elapsed_of() { sed -nE "s/.*cuStreamSynchronize:([0-9]+):0.*/\1/p" <<<"$1"; }
# start_blocked MODE [VAR=VALUE...]: live_prog MODE in the background ($pid), blocked in
# cuStreamSynchronize (or $blocked_fn) until $BLOCK goes, returning once the view shows that
# call in flight (so that a signal sent next lands inside it).
start_blocked() {
  local mode=$1 fn=${blocked_fn:-cuStreamSynchronize}; shift
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$@" "$PROG" "$mode" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt blocking
  for _ in $(seq 100); do [[ "$(ps_json $pid inflight)" == "running $fn:"* ]] && break; sleep 0.05; done
}

# rt_first_calls PROGRAM [VAR=VALUE...]: 64 threads whose only calls (20 runtime calls
# each) come together, twice: all 1280 are counted.
rt_first_calls() {
  local prog=$1; shift
  for try in 1 2; do
    rm -f "$dir/go"
    : >out.txt
    env $(live_env) "$@" "$prog" rtfirstcalls 20 "$dir/go" >out.txt 2>err.txt &
    pid=$!
    wait_out out.txt 'rtfirstcalls done' || { kill -9 $pid; finish; }
    j=$(ps_json $pid calls cudaGetLastError)
    [ "$(echo "$j" | awk '{print $1, $2}')" = "running 1280" ] &&
      pass "try $try: the 64 threads' 1280 calls counted ($j)" || fail "try $try: counts: $j"
    touch "$dir/go"; wait $pid; rc=$?
    [ $rc = 0 ] && [ ! -s err.txt ] && pass "try $try: ended normally, nothing on stderr" ||
      fail "try $try: status $rc: $(cat err.txt)"
  done
}

case $name in
blocked_sync_shows_in_ps_while_running_stopped_and_after_SIGKILL)
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" block >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt blocking || { kill -9 $pid; finish; }
  sleep 0.3
  timeout 20 "$CLI" ps --dir "$L" "$pid" >ps1.txt 2>&1; rc=$?
  [ $rc = 0 ] && pass "cuaudit ps PID ran" || fail "cuaudit ps PID: status $rc: $(cat ps1.txt)"
  grep -qE '^process [0-9]+ \(running\)' ps1.txt && pass "the process is running" || fail "state: $(head -1 ps1.txt)"
  grep -qE 'in flight: cuStreamSynchronize\(hStream=0x[0-9a-f]+\) \[[a-z_]+\] for [0-9.]+(ms|s)$' ps1.txt &&
    pass "the blocked thread shows its call, its argument and its elapsed time" || fail "no blocked call: $(cat ps1.txt)"
  grep -qE 'last calls, newest first' ps1.txt && grep -qE ' cuDeviceGetCount\(count=0x[0-9a-f]+\) -> CUDA_SUCCESS ' ps1.txt &&
    pass "the last calls are listed with results" || fail "no history: $(cat ps1.txt)"
  a=$(elapsed_of "$(ps_json $pid inflight)"); sleep 0.3; j=$(ps_json $pid inflight); b=$(elapsed_of "$j")
  [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt $((a + 200000000)) ] && pass "the elapsed time grows while it hangs ($a -> $b ns)" ||
    fail "elapsed did not grow: '$a' '$b' ($j)"
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +running +[0-9]+ +[0-9-]+ +cuStreamSynchronize +[0-9.]+(ms|s) +[0-9]+ +.*live_prog block" list.txt &&
    pass "cuaudit ps lists it with its longest call in flight" || fail "ps list: $(cat list.txt)"
  kill -STOP $pid
  sleep 0.2
  j=$(ps_json $pid inflight)
  [[ "$j" == "stopped "*cuStreamSynchronize:* ]] && pass "stopped (SIGSTOP): still shows the call ($j)" || fail "stopped: $j"
  kill -KILL $pid; wait $pid 2>/dev/null
  j=$(ps_json $pid inflight)
  [[ "$j" == "dead "*cuStreamSynchronize:* ]] && pass "after SIGKILL: dead, and the call it died in is shown" || fail "after kill: $j"
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$pid +dead +.*cuStreamSynchronize" list.txt && pass "cuaudit ps marks it dead" || fail "list after kill: $(cat list.txt)"
  # SIGSEGV and SIGABRT leave the same post-mortem.
  for sig in SEGV ABRT; do
    : >out2.txt
    env $(live_env) "$PROG" block >out2.txt 2>err.txt &
    p2=$!
    wait_out out2.txt blocking || { kill -9 $p2; continue; }
    kill -$sig $p2; wait $p2 2>/dev/null
    j=$(ps_json $p2 inflight)
    [[ "$j" == "dead "*cuStreamSynchronize:* ]] && pass "after SIG$sig: the call is shown" || fail "after SIG$sig: $j"
  done
  timeout 20 "$CLI" ps --dir "$L" --clean >clean.txt 2>&1
  [ -z "$(ls "$L")" ] && pass "ps --clean removed the dead processes' files" || fail "left: $(ls "$L"); $(cat clean.txt)"
  rm -f "$BLOCK"
  ;;
functions_without_arguments_run_whole_with_the_view_on)
  # No argument struct (NULL, 0 bytes): the in-flight record copies nothing, and reads
  # nothing through NULL (UBSan's nonnull check aborts the program on memcpy(dst, NULL, 0)).
  env $(live_env) "$PROG" noargs >out.txt 2>err.txt; rc=$?
  [ $rc = 0 ] && grep -qx done out.txt && ! grep -q "runtime error" err.txt &&
    pass "cudaGetLastError and cudaDeviceSynchronize under the live view" || fail "status $rc: $(cat err.txt)"
  ;;
every_field_of_a_call_reaches_the_reader_whole)
  # Each field the writer packs (the first words of a record are one store) read back: a
  # runtime call and its driver call at two depths and bindings, an error counted, and a call
  # of four arguments in flight with its last argument.
  blocked_fn=cuMemsetD32Async start_blocked fields
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 "$pid" >psj.txt 2>psj.err || fail "ps --json: $(cat psj.err)"
  j=$("$PYTHON" - <<'PY'
import json
d = json.load(open("psj.txt"))
t = [t for t in d["threads"] if t["in_flight"] or t["last_calls"]][0]
f = t["in_flight"][0]
print("flight", f["name"], f["depth"], f["binding"], f["args"].replace(" ", ""))
for e in t["last_calls"]:
    if e["name"] in ("cudaMalloc", "cuMemAlloc_v2", "cuDeviceGet"):
        print("last", e["name"], e["depth"], e["binding"], e["result"], e["tid"] == t["tid"],
              e["duration_ns"] is not None)
errs = {a["name"]: a["errors"] for a in d["apis"]}
print("errors", errs.get("cuDeviceGet"), errs.get("cudaMalloc"), errs.get("cuMemAlloc_v2"))
PY
)
  grep -qE '^flight cuMemsetD32Async 0 plt dstDevice=0x[0-9a-f]+,ui=(12648430|0xc0ffee),N=777,hStream=0x[0-9a-f]+$' <<<"$j" &&
    pass "the call in flight shows its function, binding and all four arguments" || fail "in flight: $j"
  grep -qx 'last cudaMalloc 0 plt cudaSuccess True True' <<<"$j" &&
    pass "the runtime call: depth 0, PLT, its result, its thread and duration" || fail "cudaMalloc: $j"
  grep -qx 'last cuMemAlloc_v2 1 procaddress CUDA_SUCCESS True True' <<<"$j" &&
    pass "its driver call: depth 1, through cuGetProcAddress" || fail "nested call: $j"
  # The view alone times every call (it once read one clock, and showed no duration).
  grep -qx 'last cuDeviceGet 0 plt CUDA_ERROR_INVALID_DEVICE True True' <<<"$j" &&
    grep -qx 'errors 1 0 0' <<<"$j" && pass "the failed call: its result, and one error counted" || fail "error: $j"
  rm -f "$BLOCK"; wait $pid; rc=$?
  [ $rc = 0 ] && grep -q unblocked out.txt && pass "the program ended normally" || fail "status $rc: $(cat err.txt)"
  ;;
sixty_four_threads_churning_reuse_slots_and_counts_stay_exact)
  # 8 waves of 64 threads (512 threads, 128 slots): ended threads' slots are taken again and
  # no call is lost from the counters.
  : >out.txt
  env $(live_env) "$PROG" churn 8 200 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'churn done' || { kill -9 $pid; finish; }
  j=$(ps_json $pid calls cuDeviceGetCount)
  [ "$j" = "running 102400 $(echo "$j" | awk '{print $3}') 0" ] && pass "512 threads' 102400 calls counted exactly, no thread untracked ($j)" || fail "counts: $j"
  n=$(echo "$j" | awk '{print $3}')
  [ "$n" -le 128 ] && pass "slots were reused: $n slots for 513 threads" || fail "$n slots"
  sz=$(stat -c %s "$L"/$pid-*.live)
  [ "$sz" -le $((4 * 1024 * 1024)) ] && pass "the region is bounded: $sz bytes" || fail "region is $sz bytes"
  touch "$dir/go"; wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ended normally" || fail "status $rc: $(cat err.txt)"
  [ -z "$(ls "$L")" ] && pass "its normal exit removed its region file" || fail "left: $(ls "$L")"
  [ ! -s err.txt ] && pass "nothing on stderr" || fail "stderr: $(cat err.txt)"
  ;;
threads_whose_first_calls_come_together_are_all_counted_in_process_and_forked_child)
  # 64 threads make their first calls together. In the process the region is made when the
  # driver loads, before them, so that even threads that call no more are counted whole; in
  # a forked child one of them makes the child's region, and the others' calls meanwhile are
  # counted apart and added to their slots at their next call (one more each, here).
  for how in process fork process fork; do
    [ $how = fork ] && want=19264 || want=19200
    rm -f "$dir/go"
    : >out.txt
    env $(live_env) "$PROG" firstcalls 300 "$dir/go" $how >out.txt 2>err.txt &
    pid=$!
    wait_out out.txt 'firstcalls done' || { kill -9 $pid; finish; }
    p=$(sed -nE 's/^([0-9]+) firstcalls done/\1/p' out.txt)
    j=$(ps_json $p calls cuDeviceGetCount)
    [ "$(echo "$j" | awk '{print $1, $2, $4}')" = "running $want 0" ] &&
      pass "$how: the 64 threads' $want calls counted exactly ($j)" || fail "$how: counts: $j"
    j=$(ps_json $p calls cuInit)
    [ "$(echo "$j" | awk '{print $2}')" = 64 ] && pass "$how: 64 first calls counted" || fail "$how: cuInit: $j"
    touch "$dir/go"; wait $pid; rc=$?
    [ $rc = 0 ] && [ ! -s err.txt ] && pass "$how: the program ended normally, nothing on stderr" ||
      fail "$how: status $rc: $(cat err.txt)"
  done
  ;;
threads_whose_only_calls_are_runtime_first_calls_made_together_are_all_counted)
  # The usual program names only the runtime, which loads the driver inside its first call:
  # the region is made when the runtime loads, and 64 threads whose only calls come together
  # are all counted.
  rt_first_calls "$BIN/live_rt_prog"
  ;;
threads_whose_only_calls_go_through_a_linked_in_runtime_are_all_counted) # when: CUAUDIT_HAVE_ZYDIS
  # The same with the runtime linked into the executable (nvcc's default), entry-patched.
  rt_first_calls "$BIN/live_rt_static" CUAUDIT_STATIC_RUNTIME=1
  ;;
an_exec_before_any_call_through_a_linked_in_runtime_leaves_no_running_view) # when: CUAUDIT_HAVE_ZYDIS
  # The runtime linked into the executable is patched at load, and the view's file made then;
  # no CUDA library is loaded before the program execs 'sleep'. The old image's file must not
  # stay 'running' under the old command line.
  exec_leaves_no_view live_rt_static CUAUDIT_STATIC_RUNTIME=1 "$BIN/live_rt_static" execto sleep 1
  ;;
forked_child_gets_its_own_region_and_both_show_their_blocked_call)
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" fork >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'child .* blocking' && wait_out out.txt 'parent .* blocking' || { kill -9 $pid; finish; }
  child=$(sed -nE 's/^child ([0-9]+) blocking/\1/p' out.txt)
  sleep 0.2
  [ "$(ls "$L" | grep -c "^$child-")" = 1 ] && [ "$(ls "$L" | grep -c "^$pid-")" = 1 ] &&
    pass "parent and child each have a region" || fail "files: $(ls "$L")"
  jp=$(ps_json $pid calls cuDeviceGetCount); jc=$(ps_json $child calls cuDeviceGetCount)
  [[ "$jp" == "running 5 "* ]] && pass "the parent counts its own 5 calls ($jp)" || fail "parent: $jp"
  [[ "$jc" == "running 7 "* ]] && pass "the child counts only its own 7 calls ($jc)" || fail "child: $jc"
  for p in $pid $child; do
    j=$(ps_json $p inflight)
    [[ "$j" == "running cuStreamSynchronize:"* ]] && pass "$p shows its own blocked call" || fail "$p: $j"
  done
  rm -f "$BLOCK"; wait $pid; rc=$?
  [ $rc = 0 ] && grep -q 'fork done' out.txt && pass "both ended normally" || fail "status $rc: $(cat err.txt)"
  [ -z "$(ls "$L")" ] && pass "both removed their files" || fail "left: $(ls "$L")"
  ;;
two_processes_of_one_user_are_listed_and_exit_removes_their_files)
  : >out1.txt
  env $(live_env) "$PROG" calls 1000 "$dir/go" >out1.txt 2>err1.txt &
  p1=$!
  : >out2.txt
  env $(live_env) "$PROG" calls 2000 "$dir/go" >out2.txt 2>err2.txt &
  p2=$!
  wait_out out1.txt 'calls done'; wait_out out2.txt 'calls done'
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$p1 +running .*live_prog calls 1000" list.txt && grep -qE "^$p2 +running .*live_prog calls 2000" list.txt &&
    pass "both processes are listed" || fail "list: $(cat list.txt)"
  [[ "$(ps_json $p1 calls cuDeviceGetCount)" == "running 1000 "* ]] && [[ "$(ps_json $p2 calls cuDeviceGetCount)" == "running 2000 "* ]] &&
    pass "each has its own counts" || fail "counts: $(ps_json $p1 calls cuDeviceGetCount) / $(ps_json $p2 calls cuDeviceGetCount)"
  [ "$(stat -c %a "$L")" = 700 ] && pass "the directory is 0700" || fail "mode $(stat -c %a "$L")"
  [ "$(stat -c %a "$L"/$p1-*.live)" = 600 ] && pass "the region is 0600" || fail "region mode"
  touch "$dir/go"; wait $p1; wait $p2
  [ -z "$(ls "$L")" ] && pass "normal exits removed both files" || fail "left: $(ls "$L")"
  timeout 20 "$CLI" ps --dir "$L" 1234567 >one.txt 2>&1; rc=$?
  [ $rc = 1 ] && grep -q 'no live region for process 1234567' one.txt && pass "an unknown pid gets a clear message" || fail "unknown pid: $rc $(cat one.txt)"
  ;;
thousands_of_dead_files_never_hide_a_running_process_and_its_name_is_escaped)
  # 4,200 files named like regions (dead processes' or damaged): ps stopped reading names
  # after 4,096, so a running process went unlisted and ps said there was no live view. The
  # program's command line holds an escape sequence: it reached the terminal raw.
  # The other files are made after the process's: on a tmpfs (where this sandbox may mount
  # one) a directory lists its newest files first, so the process's comes after them.
  mkdir -p -m 700 "$L"
  mount -t tmpfs -o mode=0700 tmpfs "$L" 2>/dev/null && trap 'umount "$L"' EXIT
  go="$dir/go"$'\e[2J'
  : >out.txt
  env $(live_env) "$PROG" calls 30 "$go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done' || { kill -9 $pid; finish; }
  (cd "$L" && for i in $(seq 3000001 3004200); do : >"$i-5.live"; done && chmod 600 3*.live)
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>list.err
  grep -qE "^$pid +running .*live_prog calls 30" list.txt && pass "the running process is listed among 4,200 other files" || fail "not listed: $(tail -2 list.err)"
  timeout 20 "$CLI" top --dir "$L" -d 0.1 -n 1 >top.txt 2>&1
  grep -qE '^cuaudit top - [0-9:]+, 1 process' top.txt && pass "top counts it" || fail "top: $(head -2 top.txt)"
  timeout 20 "$CLI" ps --dir "$L" "$pid" >one.txt 2>&1
  grep -q $'\e' list.txt one.txt && fail "an escape reached the terminal: $(cat -v list.txt | grep live_prog)" || pass "no escape in ps output"
  grep -qF 'go\x1b[2J' list.txt && grep -qF 'go\x1b[2J' one.txt && pass "the command line shown escaped" || fail "$(grep live_prog list.txt one.txt | cat -v)"
  touch "$go"; wait $pid
  ;;
hostile_or_damaged_region_files_are_refused_without_crash_or_hang)
  # A real region to damage: from a process killed in a call.
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" block >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt blocking; kill -9 $pid; wait $pid 2>/dev/null; rm -f "$BLOCK"
  real=$(ls "$L"/$pid-*.live)
  ticks=${real##*-}; ticks=${ticks%.live}
  ln -s /etc/passwd "$L/101-1.live"
  mkfifo "$L/102-1.live"
  head -c 10000 /dev/urandom >"$L/103-1.live"
  head -c 4096 "$real" >"$L/104-1.live"                              # head only
  truncate -s 1T "$L/105-1.live"                                     # huge, sparse
  cp "$real" "$L/106-$ticks.live"                                    # pid differs from its head
  # Garbage slots behind a sound head (pid 107): ids, depths and indexes out of range.
  cp "$real" "$L/107-$ticks.live"
  "$PYTHON" - "$L/107-$ticks.live" <<'PY'
import os, random, struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
struct.pack_into("<Q", b, 64, 107)            # head.pid
random.seed(7)
for i in range(4096, len(b)):
    b[i] = random.randrange(256)
# slots_used at its largest: every slot is garbage
off = 16 + 4 + 4 + 8 + 8 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 4 + 4 + 4 + 256
struct.pack_into("<I", b, off, 128)
# Garbage records that carry the number of their index, ended, so that the reader keeps and
# formats them as history (their ids, depths, bindings and results out of range), and
# garbage records in flight with any number, which the reader sorts and formats.
slot_size, = struct.unpack_from("<Q", b, 32)
ncalls, = struct.unpack_from("<I", b, 44)
for i in range(128):
    base = 4096 + i * slot_size
    if base + slot_size > len(b) or not ncalls or ncalls & (ncalls - 1):
        break
    done = random.randrange(1, 1 << 40)
    struct.pack_into("<Q", b, base + 8, done)
    for k in range(min(ncalls, 16)):
        at = done - 1 - k
        struct.pack_into("<I", b, base + 64 + (at & (ncalls - 1)) * 144, (4 * at + 4) & 0xffffffff)
    for k in range(16, min(ncalls, 32)):
        at = done - 1 - k
        struct.pack_into("<I", b, base + 64 + (at & (ncalls - 1)) * 144,
                         (random.randrange(1 << 32) & ~3) | 2)
open(p, "wb").write(b)
PY
  # A head whose sizes say 4 GiB in a small file.
  cp "$real" "$L/108-$ticks.live"
  "$PYTHON" - "$L/108-$ticks.live" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
struct.pack_into("<Q", b, 64, 108)
struct.pack_into("<I", b, 40, 4096)   # nslots
struct.pack_into("<Q", b, 24, 1 << 32)  # file_size
open(p, "wb").write(b)
PY
  (ulimit -v 800000; timeout 20 "$CLI" ps --dir "$L" >list.txt 2>list.err); rc=$?
  [ $rc = 0 ] && pass "cuaudit ps lists the sound regions (status 0, bounded memory, no hang)" || fail "ps: status $rc: $(cat list.err)"
  for f in 101-1 102-1 103-1 104-1 105-1 106-$ticks 108-$ticks; do
    grep -q "skipping $L/$f.live: " list.err && pass "$f: refused: $(grep "$f.live" list.err | sed 's/.*: //')" || fail "$f not reported: $(cat list.err)"
  done
  grep -qE "^$pid +dead " list.txt && pass "the real region is still listed" || fail "list: $(cat list.txt)"
  (ulimit -v 800000; timeout 20 "$CLI" ps --dir "$L" 107 >g.txt 2>&1; echo $? >g.rc)
  [ "$(cat g.rc)" = 0 ] && grep -q '^process 107 (dead)' g.txt && [ "$(grep -c ' -> ' g.txt)" -ge 100 ] &&
    pass "garbage slots behind a sound head are shown without a crash ($(grep -c ' -> ' g.txt) history lines formatted)" || fail "garbage: rc $(cat g.rc): $(head -5 g.txt)"
  (ulimit -v 800000; timeout 20 "$CLI" ps --dir "$L" --json 107 >gj.txt 2>&1)
  "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' gj.txt && pass "its JSON is valid" || fail "json: $(head -c 300 gj.txt)"
  for p in 101 102 105; do
    timeout 20 "$CLI" ps --dir "$L" $p >one.txt 2>&1; rc=$?
    [ $rc = 1 ] && grep -qE "refused|not a regular file|out of range" one.txt && pass "ps $p: clear error ($(cat one.txt))" || fail "ps $p: $rc $(cat one.txt)"
  done
  [ "$(cat /etc/passwd | head -c 4)" != "" ] && timeout 20 "$CLI" ps --dir "$L" --clean >clean.txt 2>&1
  [ -L "$L/101-1.live" ] && [ -p "$L/102-1.live" ] && [ -e "$L/103-1.live" ] && pass "--clean leaves files it did not make" || fail "--clean removed a foreign file: $(ls "$L")"
  [ ! -e "$real" ] && pass "--clean removed the dead process's region" || fail "--clean kept $real"
  # 100 random corruptions of a sound region (head fields, then anywhere): the reader ends
  # with 0 or 1, never by a signal or the timeout, within bounded memory.
  mkdir -m 700 "$dir/fz"
  bad=0
  for i in $(seq 100); do
    rm -f "$dir"/fz/*
    "$PYTHON" - "$L/107-$ticks.live" "$dir/fz/109-$ticks.live" "$i" <<'PY'
import random, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, 64, 109)
r = random.Random(int(sys.argv[3]))
for _ in range(r.randrange(1, 8)):
    at = r.randrange(0, 512) if r.random() < 0.6 else r.randrange(0, len(b))
    b[at] = r.randrange(256)
if r.random() < 0.1:
    b = b[: r.randrange(0, len(b))]
open(sys.argv[2], "wb").write(b)
PY
    (ulimit -v 800000; timeout 10 "$CLI" ps --dir "$dir/fz" --json 109 >fz.txt 2>&1); rc=$?
    (ulimit -v 800000; timeout 10 "$CLI" ps --dir "$dir/fz" >>fz.txt 2>&1); rc2=$?
    if [ $rc -gt 1 ] || [ $rc2 -gt 1 ]; then bad=$((bad + 1)); echo "mutation $i: status $rc/$rc2: $(tail -2 fz.txt)"; fi
  done
  [ $bad = 0 ] && pass "100 corrupted regions: every reader run ended with 0 or 1" || fail "$bad corrupted regions crashed or hung the reader"
  # A directory that is a link, or open to others, is refused.
  mkdir -p "$dir/other" && chmod 755 "$dir/other"
  timeout 20 "$CLI" ps --dir "$dir/other" >o.txt 2>&1; rc=$?
  [ $rc = 1 ] && grep -q 'not yours with mode 0700' o.txt && pass "a directory open to others is refused" || fail "other: $rc $(cat o.txt)"
  ln -s "$L" "$dir/linkdir"
  timeout 20 "$CLI" ps --dir "$dir/linkdir" >o.txt 2>&1; rc=$?
  [ $rc = 1 ] && grep -q 'symbolic link' o.txt && pass "a linked directory is refused" || fail "link: $rc $(cat o.txt)"
  ;;
reused_pid_is_never_taken_for_the_dead_process)
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" block >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt blocking; kill -9 $pid; wait $pid 2>/dev/null; rm -f "$BLOCK"
  real=$(ls "$L"/$pid-*.live)
  ticks=${real##*-}; ticks=${ticks%.live}
  # A live process takes the dead one's pid: its region is moved to that pid's name (the
  # kernel reuses pids; the test cannot choose one).
  sleep 30 &
  other=$!
  mv "$real" "$L/$other-$ticks.live"
  "$PYTHON" - "$L/$other-$ticks.live" "$other" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", b, 64, int(sys.argv[2]))
open(sys.argv[1], "wb").write(b)
PY
  j=$(ps_json $other inflight)
  [[ "$j" == "dead cuStreamSynchronize:"* ]] && pass "a region whose start time differs from the live pid's is dead ($j)" || fail "reused pid: $j"
  timeout 20 "$CLI" ps --dir "$L" >list.txt 2>&1
  grep -qE "^$other +dead " list.txt && pass "cuaudit ps marks it dead" || fail "list: $(cat list.txt)"
  timeout 20 "$CLI" ctl --dir "$L" $other trace start >ctl.txt 2>&1; rc=$?
  [ $rc = 1 ] && grep -q "is dead" ctl.txt && pass "cuaudit ctl refuses the dead process" || fail "ctl: $rc $(cat ctl.txt)"
  timeout 20 "$CLI" ps --dir "$L" --clean >clean.txt 2>&1
  [ -z "$(ls "$L")" ] && pass "--clean removes it although the pid is alive" || fail "left $(ls "$L")"
  kill $other; wait $other 2>/dev/null
  ;;
calls_of_a_signal_handler_leave_the_interrupted_call_in_flight_with_its_start)
  # A handler's calls restart the dispatch's depth at 0 (they count as calls of their own);
  # the view once gave them the interrupted call's flight record, so that call vanished from
  # `ps` while it still blocked, and a recent call's duration was computed from the handler's
  # start. Each call now keeps the record and the start it took. Alone (no durations), beside
  # the sampled summary and beside the exact one.
  for extra in "" "CUAUDIT_SUMMARY=$dir/s.json" "CUAUDIT_SUMMARY=$dir/s.json CUAUDIT_SUMMARY_SAMPLE=0"; do
    start_blocked handler $extra
    sleep 0.3
    kill -USR1 $pid
    wait_out out.txt 'handler done'
    timeout 20 "$CLI" ps --dir "$L" --json $pid >j.txt 2>&1
    "$PYTHON" - j.txt "${extra:+timed}" <<'PY' >check.txt 2>&1 && pass "${extra:-alone}: $(cat check.txt)" || fail "${extra:-alone}: $(cat check.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
fl = [f for f in t["in_flight"] if f["name"] == "cuStreamSynchronize"]
assert fl and fl[0]["elapsed_ns"] >= 300000000, t["in_flight"]
h = [e for e in t["last_calls"] if e["name"] == "cuDeviceGetCount"][:3]
assert len(h) == 3, h
if sys.argv[2]:  # timed by the summary: the handler's own, short durations
    assert all(isinstance(e["duration_ns"], int) and e["duration_ns"] < 300000000 for e in h), h
print("the interrupted call in flight for", fl[0]["elapsed_ns"], "ns; handler calls", [e["duration_ns"] for e in h])
PY
    rm -f "$BLOCK"
    wait $pid; rc=$?
    [ $rc = 0 ] && grep -q unblocked out.txt || fail "rc $rc: $(cat out.txt err.txt)"
  done
  ;;
a_blocked_call_stays_in_view_while_a_handler_makes_ten_times_the_ring_of_calls)
  # A call's record is both its in-flight entry and its history entry, in a ring of 64 here:
  # a record still in flight is never taken again. A handler makes 640 calls while the call
  # it interrupted blocks; the blocked call stays in view with its arguments and start, the
  # ring holds the handler's latest calls around it, and when it returns it ends in its own
  # record. Twice in one process, so that the second flood runs over a ring the first filled.
  start_blocked handler HANDLER_CALLS=640 CUAUDIT_LIVE_CALLS=64
  first=$(ps_json $pid inflight)
  for round in 1 2; do
    kill -USR1 $pid
    for _ in $(seq 500); do [ "$(grep -c 'handler done' out.txt)" -ge $round ] && break; sleep 0.02; done
    timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >j.txt 2>&1
    "$PYTHON" - j.txt <<'PY' >check.txt 2>&1 && pass "flood $round: $(cat check.txt)" || fail "flood $round: $(cat check.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
fl = t["in_flight"]
assert [f["name"] for f in fl] == ["cuStreamSynchronize"], fl
assert fl[0]["args"].startswith("hStream=0x") and fl[0]["args"] != "hStream=0x0", fl
names = [e["name"] for e in t["last_calls"]]
assert names == ["cuDeviceGetCount"] * 63, (len(names), names[:5])
print("in flight:", fl[0]["name"], fl[0]["args"], "; history: 63 handler calls")
PY
  done
  [[ "$(ps_json $pid inflight)" == "running cuStreamSynchronize:"* ]] && [ "$(ps_json $pid inflight | cut -d: -f1)" = "$(cut -d: -f1 <<<"$first")" ] ||
    fail "in flight after the floods: $(ps_json $pid inflight)"
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && grep -q unblocked out.txt || fail "rc $rc: $(cat out.txt err.txt)"
  timeout 20 "$CLI" ps --dir "$L" --json $pid >/dev/null 2>&1 && fail "the region outlived a normal exit" || true
  ;;
a_thread_attaching_under_a_storm_of_signals_holds_one_slot)
  # 500 threads, each signalled without pause through its first call; every handler makes a
  # call, which attaches too when it lands before the thread's own attach has ended. Such a
  # call once took a second slot for the thread. Read while each wave of 100 is alive.
  env $(live_env) "$PROG" attachstorm >out.txt 2>err.txt; rc=$?
  [ $rc = 0 ] && grep -q "attachstorm: 500 threads, .* 0 slots held twice" out.txt &&
    pass "$(cat out.txt)" || fail "rc $rc: $(cat out.txt err.txt | tail -3)"
  ;;
history_stays_whole_while_signal_handlers_make_calls_in_a_storm)
  # A thread signals the main thread as fast as it can while main makes calls that succeed;
  # each handler makes a call that fails. A handler landing while the interrupted call's
  # ring entry was written once left an entry with one call's function and the other's
  # result, which the reader took as whole. Read while it storms, and once it stopped; timed
  # (the exact summary) and alone.
  for extra in "CUAUDIT_SUMMARY=$dir/s.json CUAUDIT_SUMMARY_SAMPLE=0" ""; do
    rm -f "$dir/stop" "$dir/exit"
    : >out.txt
    env $(live_env) CUAUDIT_LIVE_CALLS=4096 $extra "$PROG" storm "$dir/stop" "$dir/exit" >out.txt 2>err.txt &
    pid=$!
    wait_out out.txt storming || { kill -9 $pid; continue; }
    for i in 1 2 3 4 5 6 7 8; do
      sleep 0.1
      timeout 20 "$CLI" ps --dir "$L" --json --last 4096 $pid >"snap$i.json" 2>&1
    done
    touch "$dir/stop"
    wait_out out.txt 'storm done'
    timeout 20 "$CLI" ps --dir "$L" --json --last 4096 $pid >snap9.json 2>&1
    touch "$dir/exit"
    wait $pid; rc=$?
    [ $rc = 0 ] && pass "${extra:+timed, }ran" || fail "rc $rc: $(tail -3 out.txt err.txt)"
    # The program's own reads of its history, between bursts: thousands of whole entries,
    # one id that succeeded and one that failed, none of them both.
    grep -qE 'storm done: [0-9]+ calls, [1-9][0-9]* in handlers; [0-9]+ scans, [0-9]{4,} whole entries; 1 ids succeeded, 1 failed, 0 both$' out.txt &&
      pass "$(grep 'storm done' out.txt)" || fail "torn entries: $(grep 'storm done' out.txt)"
    "$PYTHON" - snap?.json <<'PY' >check.txt 2>&1 && pass "${extra:-alone}: $(cat check.txt)" || fail "${extra:-alone}: $(cat check.txt)"
import json, sys
ok = {("cuDeviceGetCount", "CUDA_SUCCESS"), ("cuDeviceGet", "CUDA_ERROR_INVALID_DEVICE")}
seen = {k: 0 for k in ok}
for path in sys.argv[1:]:
    d = json.load(open(path))
    for t in d["threads"]:
        for e in t["last_calls"]:
            key = (e["name"], e["result"])
            assert key in ok, (path, e)
            seen[key] += 1
            # Times whole too: a torn entry could pair one call's start with another's end.
            assert e["duration_ns"] is None or e["duration_ns"] < 1000000000, (path, e)
# The last snapshot, taken once the storm stopped, holds 4096 calls (the program's own scan
# above saw the handlers' calls whole; these the reader's, under concurrent writes).
assert sum(seen.values()) >= 4096, seen
print("every entry the reader kept is whole:", seen)
PY
  done
  ;;
six_nested_calls_in_flight_are_all_shown_and_leave_the_history_whole)
  # Six calls in flight at once on one thread (a call, then five signal handlers, each inside
  # the last one's call): the view shows all six, outermost first; when all return, the six
  # are in the history and later calls are shown as usual.
  rm -f "$dir/exit"
  start_blocked nest NEST_EXIT="$dir/exit"
  for i in 1 2 3 4 5; do
    kill -USR1 $pid
    for _ in $(seq 100); do [ "$(grep -c nested out.txt)" -ge $i ] && break; sleep 0.02; done
    sleep 0.1
  done
  timeout 20 "$CLI" ps --dir "$L" --json $pid >deep.json 2>&1
  "$PYTHON" - deep.json <<'PY' >check.txt 2>&1 && pass "while nested: $(cat check.txt)" || fail "while nested: $(cat check.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
f = [(x["name"], x["level"]) for x in t["in_flight"]]
assert f == [("cuStreamSynchronize", d) for d in range(6)], t["in_flight"]
el = [x["elapsed_ns"] for x in t["in_flight"]]
assert el == sorted(el, reverse=True), el  # outermost (longest) first
print("6 calls in flight shown, outermost first:", f)
PY
  timeout 20 "$CLI" ps --dir "$L" $pid >deep.txt 2>&1
  [ "$(grep -c 'cuStreamSynchronize(hStream=' deep.txt)" = 6 ] && grep -q "in flight: cuStreamSynchronize" deep.txt &&
    pass "ps PID shows the six" || fail "ps PID: $(cat deep.txt)"
  rm -f "$BLOCK"
  wait_out out.txt unblocked
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >after.json 2>&1
  "$PYTHON" - after.json <<'PY' >check.txt 2>&1 && pass "after: $(cat check.txt)" || fail "after: $(cat check.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
assert t["in_flight"] == [], t["in_flight"]
names = [e["name"] for e in t["last_calls"]]
# Every call of the thread, whole, newest first by start (a record taken again while its
# call was in flight would lose one of the six).
assert names == ["cuDeviceGetCount"] * 3 + ["cuStreamSynchronize"] * 6 + ["cuDeviceGetCount"] * 2 + \
    ["cuStreamCreate", "cuCtxSetCurrent", "cuDevicePrimaryCtxRetain", "cuDeviceGet", "cuInit"], names
assert all(e["result"] == "CUDA_SUCCESS" for e in t["last_calls"][:9]), t["last_calls"][:9]
print("none in flight; history:", names[:9])
PY
  touch "$dir/exit"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ran to its end" || fail "rc $rc: $(tail -3 out.txt err.txt)"
  ;;
calls_nested_deeper_than_the_ring_keep_the_outer_ones_in_view_and_are_all_counted)
  # CUAUDIT_LIVE_CALLS=1 still gives a ring of 16 (the calls in flight take records too).
  # Nineteen calls in flight on one thread (a call, then 18 signal handlers, each inside the
  # last one's call): the outer 16 have records, the 3 deepest find every record in flight
  # and get none; all 19 are counted, and once they return the ring takes records again.
  rm -f "$dir/exit"
  start_blocked nest NEST_EXIT="$dir/exit" CUAUDIT_LIVE_CALLS=1
  for i in $(seq 18); do
    kill -USR1 $pid
    for _ in $(seq 100); do [ "$(grep -c nested out.txt)" -ge $i ] && break; sleep 0.02; done
    sleep 0.05
  done
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >deep.json 2>&1
  "$PYTHON" - deep.json <<'PY' >check.txt 2>&1 && pass "while nested: $(cat check.txt)" || fail "while nested: $(cat check.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
f = [x["name"] for x in t["in_flight"]]
assert f == ["cuStreamSynchronize"] * 16, t["in_flight"]
el = [x["elapsed_ns"] for x in t["in_flight"]]
assert el == sorted(el, reverse=True), el
print("16 of 19 calls in flight shown (a ring of 16), outermost first")
PY
  rm -f "$BLOCK"
  wait_out out.txt unblocked
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >after.json 2>&1
  "$PYTHON" - after.json <<'PY' >check.txt 2>&1 && pass "after: $(cat check.txt)" || fail "after: $(cat check.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][0]
assert t["in_flight"] == [], t["in_flight"]
names = [e["name"] for e in t["last_calls"]]
assert names == ["cuDeviceGetCount"] * 3 + ["cuStreamSynchronize"] * 13, names
calls = {a["name"]: a["calls"] for a in d["apis"]}
assert calls["cuStreamSynchronize"] == 19, calls
print("none in flight; the ring's 16:", names[:4], "...; 19 synchronisations counted")
PY
  touch "$dir/exit"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ran to its end" || fail "rc $rc: $(tail -3 out.txt err.txt)"
  ;;
calls_abandoned_by_siglongjmp_stay_in_flight_and_later_calls_are_still_counted)
  # A timer's handler jumps out of 40 blocked calls (a timeout that abandons them) over a
  # ring of 16: the abandoned records stay in flight; later calls look at a bounded run of
  # records, get none while the ring is full of abandoned ones, and are all counted.
  rm -f "$dir/exit"
  touch "$BLOCK"
  : >out.txt
  env $(live_env) CUAUDIT_LIVE_CALLS=16 "$PROG" jump "$dir/exit" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'jumped 40'
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >j.txt 2>&1
  "$PYTHON" - j.txt <<'PY' >check.txt 2>&1 && pass "$(cat check.txt)" || fail "$(cat check.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][0]
assert [f["name"] for f in t["in_flight"]] == ["cuStreamSynchronize"] * 16, t["in_flight"]
calls = {a["name"]: a["calls"] for a in d["apis"]}
assert calls.get("cuDeviceGetCount") == 100 and calls.get("cuStreamSynchronize") is None, calls
print("16 abandoned calls in flight (the ring); 100 later calls counted")
PY
  touch "$dir/exit"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ran to its end" || fail "rc $rc: $(tail -3 out.txt err.txt)"
  rm -f "$BLOCK"
  ;;
a_forked_child_stops_sharing_its_parents_region_and_makes_its_own)
  # The program's fork runs cuaudit's child handler: the parent's region, shared through the
  # mapping, is replaced by private memory in the child before fork returns (a handler that
  # forked in the middle of a call's record then writes nowhere the parent's readers see).
  env $(live_env) "$PROG" forkmaps >out.txt 2>err.txt; rc=$?
  [ $rc = 0 ] && grep -qx "child: parent's region mapped 0, own after a call 1" out.txt && grep -qx "parent done" out.txt &&
    pass "the child maps no region of its parent's, then its own" || fail "rc $rc: $(cat out.txt err.txt)"
  ;;
a_hundred_threads_blocked_with_full_histories_all_show_their_call)
  # The reader reads a running process's records again before it trusts them, within a
  # budget; the histories once took the whole budget, and later threads' blocked calls were
  # left out ("not inside a CUDA call"). 100 threads, 70 calls each, then all blocked.
  blocked_fn=cuStreamSynchronize start_blocked manyblocked
  for _ in $(seq 100); do
    n=$(ps_json $pid inflight | tr ' ' '\n' | grep -c '^cuStreamSynchronize:')
    [ "$n" -ge 100 ] && break; sleep 0.05
  done
  timeout 20 "$CLI" ps --dir "$L" --json --last 64 $pid >j.txt 2>&1
  "$PYTHON" - j.txt <<'PY' >check.txt 2>&1 && pass "$(cat check.txt)" || fail "$(cat check.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
blocked = [t for t in d["threads"] if [f["name"] for f in t["in_flight"]] == ["cuStreamSynchronize"]]
assert len(blocked) == 100, len(blocked)
assert all(len(t["last_calls"]) == 63 for t in blocked), sorted(len(t["last_calls"]) for t in blocked)[:5]
assert d["unverified_records"] == 0, d["unverified_records"]
print("100 threads blocked, each shown in flight with the 63 ended calls its ring of 64 holds")
PY
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ran to its end" || fail "rc $rc: $(tail -3 out.txt err.txt)"
  ;;
a_childs_own_region_made_by_an_atfork_handler_stays_its_own)
  # cuaudit's child handler replaces the parent's region in a forked child; a child handler of
  # the program's that makes a call makes the child's own region, which must stay the child's
  # (cuaudit's handler runs first, and replaces only a region of another process).
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" atforkcall >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'child .* blocking'
  child=$(sed -n 's/^child \([0-9]*\) blocking$/\1/p' out.txt)
  for _ in $(seq 100); do [[ "$(ps_json $child inflight)" == "running cuStreamSynchronize:"* ]] && break; sleep 0.05; done
  j=$(ps_json $child inflight)
  [[ "$j" == "running cuStreamSynchronize:"* ]] && pass "the child's blocked call is in its own region ($j)" || fail "child $child: $j"
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && grep -q "parent done" out.txt || fail "rc $rc: $(cat out.txt err.txt)"
  ;;
call_ending_in_a_child_forked_during_it_leaves_the_parents_view_alone)
  # A signal handler forks while the thread is inside a call; the child's copy of the call
  # returns at once. The region is shared (MAP_SHARED): the child must not end the parent's
  # call in it.
  start_blocked forkinside
  kill -USR1 $pid
  wait_out out.txt 'child returned'
  j=$(ps_json $pid inflight)
  [[ "$j" == "running cuStreamSynchronize:"* ]] && pass "the parent's call is still in flight after the child's copy returned ($j)" ||
    fail "parent: $j"
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && grep -q unblocked out.txt && pass "the parent's call returns and it exits 0" || fail "rc $rc: $(cat out.txt err.txt)"
  ;;
region_of_another_pid_namespace_is_never_called_dead_or_cleaned)
  # A host reading a directory it shares with a container: the container's pids name nothing
  # here, so its running processes must not be taken for dead and removed.
  touch "$BLOCK"
  : >out.txt
  env $(live_env) "$PROG" block >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt blocking; kill -9 $pid; wait $pid 2>/dev/null; rm -f "$BLOCK"
  f=$(ls "$L"/$pid-*.live)
  # The head's pidns field (after the program name and slots_used) holds this namespace's.
  "$PYTHON" - "$f" <<'PY' >ns.txt 2>&1 || fail "pidns: $(cat ns.txt)"
import os, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
own = os.stat("/proc/self/ns/pid").st_ino & 0xffffffff
assert struct.unpack_from("<I", b, 372)[0] == own, "the writer's namespace is recorded"
struct.pack_into("<I", b, 372, own ^ 0x5a5a)
open(sys.argv[1], "wb").write(b)
print("recorded")
PY
  j=$(ps_json $pid inflight)
  [[ "$j" == "elsewhere cuStreamSynchronize:"* ]] && pass "another namespace's region: state elsewhere, its call shown ($j)" || fail "ps: $j"
  timeout 20 "$CLI" ps --dir "$L" --clean >clean.txt 2>&1
  [ -e "$f" ] && pass "--clean leaves it" || fail "--clean removed another namespace's region"
  timeout 20 "$CLI" ctl --dir "$L" $pid trace start >ctl.txt 2>&1; rc=$?
  [ $rc = 1 ] && pass "ctl refuses it" || fail "ctl: $rc $(cat ctl.txt)"
  # The same file back in this namespace: dead, and cleaned.
  "$PYTHON" -c 'import os, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", b, 372, os.stat("/proc/self/ns/pid").st_ino & 0xffffffff)
open(sys.argv[1], "wb").write(b)' "$f"
  timeout 20 "$CLI" ps --dir "$L" --clean >clean.txt 2>&1
  [ ! -e "$f" ] && pass "in this namespace it is dead and --clean removes it" || fail "left: $(cat clean.txt)"
  ;;
ctl_starts_and_stops_trace_and_log_within_one_call)
  # Phase 1 (1000 calls) off, phase 2 (2 x 1000 calls on two threads) on, phase 3 off.
  : >out.txt
  env $(live_env) CUAUDIT_TRACE="$dir/t.json" CUAUDIT_CAPTURE=ctl CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE="$dir/log.txt" \
    "$PROG" phases 1000 "$dir/go1" "$dir/go2" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'phase 1 done' || { kill -9 $pid; finish; }
  "$CLI" ctl --dir "$L" $pid trace start >c1.txt 2>&1 && "$CLI" ctl --dir "$L" $pid log start >>c1.txt 2>&1 &&
    pass "ctl trace start, ctl log start: $(head -1 c1.txt)" || fail "ctl start: $(cat c1.txt)"
  # A second start changes nothing and says so (it said "started" again).
  "$CLI" ctl --dir "$L" $pid trace start >c1b.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -qx "trace was already on in process $pid: nothing changed" c1b.txt &&
    pass "a second trace start: $(cat c1b.txt)" || fail "second start: status $rc: $(cat c1b.txt)"
  touch "$dir/go1"
  wait_out out.txt 'phase 2 done'
  "$CLI" ctl --dir "$L" $pid trace stop >c2.txt 2>&1 && "$CLI" ctl --dir "$L" $pid log stop >>c2.txt 2>&1 &&
    pass "ctl trace stop, ctl log stop" || fail "ctl stop: $(cat c2.txt)"
  "$CLI" ctl --dir "$L" $pid log stop >c2b.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -qx "log was already off in process $pid: nothing changed" c2b.txt &&
    pass "a second log stop: $(cat c2b.txt)" || fail "second stop: status $rc: $(cat c2b.txt)"
  touch "$dir/go2"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program ended normally" || fail "status $rc: $(cat err.txt)"
  "$PYTHON" "$CHECK_JSON" trace t.json cuDeviceGetCount >check.txt 2>&1 || fail "trace: $(tail -2 check.txt)"
  expect_log 1 '^cuDeviceGetCount events=2000$' check.txt
  # Before: a mark where the trace started (the first recorded call's own start) and where
  # it stopped (after every recorded call), so the stopped phase is not read as idle time.
  "$PYTHON" - t.json >marks.txt 2>&1 <<'PY' && pass "ctl marks: $(tail -1 marks.txt)" || fail "ctl marks: $(cat marks.txt)"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
calls = [e for e in ev if e.get("ph") == "X" and e["name"] == "cuDeviceGetCount"]
marks = [e for e in ev if e.get("ph") == "i" and e.get("cat") == "cuaudit"]
start = [m for m in marks if m["name"] == "cuaudit: trace started by cuaudit ctl"]
stop = [m for m in marks if m["name"].startswith("cuaudit: trace stopped by cuaudit ctl")]
assert len(start) == 1 and len(stop) == 1, [m["name"] for m in marks]
assert any(c["ts"] == start[0]["ts"] and c["tid"] == start[0]["tid"] for c in calls), "start mark is no recorded call's start"
# Recorded calls that ended before the start mark: none on its thread, at most one on
# another (preempted between its end and its look at the control word; docs/hooks.md).
early = {}
for c in calls:
    if c["ts"] + c["dur"] < start[0]["ts"]:
        early[c["tid"]] = early.get(c["tid"], 0) + 1
assert start[0]["tid"] not in early and all(n == 1 for n in early.values()), (start[0], early)
assert stop[0]["ts"] > max(c["ts"] + c["dur"] for c in calls), (stop[0]["ts"], max(c["ts"] + c["dur"] for c in calls))
print(f"started at {start[0]['ts']}, stopped at {stop[0]['ts']}")
PY
  expect_log 2000 "$(call cuDeviceGetCount '[a-z_]+')" log.txt
  # Without the capture mode, ctl says why and changes nothing.
  : >out3.txt
  env $(live_env) CUAUDIT_TRACE="$dir/t2.json" "$PROG" calls 10 "$dir/go3" >out3.txt 2>err3.txt &
  p3=$!
  wait_out out3.txt 'calls done'
  "$CLI" ctl --dir "$L" $p3 trace start >c3.txt 2>&1; rc=$?
  [ $rc = 1 ] && grep -q 'CUAUDIT_CAPTURE=ctl' c3.txt && pass "a process without CUAUDIT_CAPTURE=ctl: a clear refusal" || fail "no refusal: $rc $(cat c3.txt)"
  "$CLI" ctl --dir "$L" $p3 trace restart >c4.txt 2>&1; rc=$?
  [ $rc = 2 ] && pass "a bad verb is a usage error" || fail "bad verb: $rc"
  touch "$dir/go3"; wait $p3
  ;;
unusable_live_directory_disables_the_view_with_one_message)
  native "$PROG" calls 50
  # A link in place of the directory, a directory open to others, a read-only directory.
  mkdir -p "$dir/real" && chmod 700 "$dir/real" && ln -s "$dir/real" "$dir/link"
  mkdir -p "$dir/open" && chmod 755 "$dir/open"
  mkdir -p "$dir/ro" && chmod 500 "$dir/ro"
  mkdir -p "$dir/full" && chmod 700 "$dir/full"
  dirs="link open full"
  # root writes into a 0500 directory anyway: the read-only case needs another user.
  [ "$(id -u)" != 0 ] && dirs="$dirs ro"
  for d in $dirs; do
    # full: RLIMIT_FSIZE makes reserving the region's blocks fail with EFBIG, as a full
    # disk fails with ENOSPC (SIGXFSZ ignored, as a shell passes it on).
    (trap '' XFSZ; [ $d = full ] && ulimit -f 256
     env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$dir/$d" "$PROG" calls 50 >audited.out 2>audited.err
     echo $? >audited.rc)
    same_results
    [ "$(grep -c . audited.err)" = 1 ] && grep -q 'the live view is off' audited.err &&
      pass "$d: one message: $(cat audited.err)" || fail "$d: $(cat audited.err)"
  done
  [ -z "$(ls "$dir/real")" ] && pass "nothing was made through the link" || fail "made: $(ls "$dir/real")"
  [ -z "$(ls "$dir/full")" ] && pass "no region is left in the full directory" || fail "left: $(ls "$dir/full")"
  chmod 700 "$dir/ro"
  # A file cuaudit did not make, under the name a process would take, is never reused:
  # a link there is not followed.
  mkdir -m 700 "$L"
  : >out.txt
  env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" MOCK_BLOCK_FILE="$BLOCK" "$PROG" calls 5 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done'
  touch "$dir/go"; wait $pid
  [ ! -s err.txt ] && pass "a usable directory: no message" || fail "stderr: $(cat err.txt)"
  ;;
readers_take_options_after_the_pid_and_refuse_clean_with_a_pid)
  # GNU order: options before or after the pid, for ps, top and ctl; --clean with a pid is
  # refused, never ignored.
  rm -f "$dir/go"
  : >out.txt
  env $(live_env) "$PROG" calls 10 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done' || { kill -9 $pid; finish; }
  timeout 20 "$CLI" ps $pid --json --dir "$L" >j.txt 2>e.txt; rc=$?
  [ $rc = 0 ] && "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["pid"] == int(sys.argv[2])' j.txt $pid &&
    pass "ps PID --json --dir: the process's JSON" || fail "ps PID --json: status $rc: $(cat e.txt j.txt | head -3)"
  timeout 20 "$CLI" top $pid --dir "$L" -n 1 -d 0.2 >t.txt 2>e.txt; rc=$?
  [ $rc = 0 ] && grep -qE '^cuaudit top - [0-9:]+, 1 process' t.txt && pass "top PID --dir -n -d: one process" ||
    fail "top PID options: status $rc: $(cat e.txt t.txt | head -3)"
  timeout 20 "$CLI" ctl $pid trace start --dir "$L" >c.txt 2>e.txt; rc=$?
  [ $rc = 1 ] && grep -q "cannot switch its trace" e.txt && pass "ctl PID trace start --dir: found the process, refused (no trace configured)" ||
    fail "ctl PID ... --dir: status $rc: $(cat e.txt c.txt | head -3)"
  timeout 20 "$CLI" ps --clean $pid --dir "$L" >c.txt 2>e.txt; rc=$?
  [ $rc = 2 ] && grep -q "takes no process id" e.txt && [ -n "$(ls "$L")" ] && pass "ps --clean PID refused, nothing removed" ||
    fail "ps --clean PID: status $rc: $(cat e.txt c.txt | head -3)"
  touch "$dir/go"; wait $pid
  ;;
readers_do_what_their_usage_says_or_refuse)
  # Before: `ps --json` without a pid printed the text table with status 0; `top` of a
  # pid with no region refreshed empty tables for ever with status 0; options a form cannot
  # honour were dropped in silence. Each form now does what its usage line says or refuses
  # with a message and a non-zero status.
  rm -f "$dir/go"
  : >out.txt
  env $(live_env) "$PROG" calls 300 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done' || { kill -9 $pid; finish; }
  timeout 20 "$CLI" ps --dir "$L" --json $pid >one.json 2>e.txt || fail "ps --json PID: $(cat e.txt)"
  timeout 20 "$CLI" ps --dir "$L" --json >list.json 2>e.txt; rc=$?
  # The true values: one thread, idle (waiting for a file: no call in flight, none per
  # second), and the calls the detail counts per API.
  [ $rc = 0 ] && "$PYTHON" - list.json one.json $pid <<'PY' >check.txt 2>&1 && pass "ps --json: $(cat check.txt)" || fail "ps --json: status $rc: $(cat check.txt list.json e.txt | head -5)"
import json, sys
rows = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))
assert isinstance(rows, list) and len(rows) == 1, rows
r = rows[0]
assert r["pid"] == int(sys.argv[3]) and r["state"] == "running", r
assert r["threads"] == 1 and r["calls_per_s"] == 0 and r["longest_in_flight"] is None, r
assert r["calls"] == sum(a["calls"] for a in one["apis"]) and r["calls"] >= 300, (r, one["apis"])
assert "live_prog calls 300" in r["program"] and r["region"] == one["region"], r
print(f"a list of one process: {r['calls']} calls, 1 thread, idle")
PY
  refused() { # STATUS TEXT ARGS...: the command refuses with STATUS and a message with TEXT
    local want=$1 text=$2; shift 2
    timeout 20 "$CLI" "$@" >r.out 2>r.err; local rc=$?
    [ $rc = "$want" ] && grep -q "$text" r.err && [ ! -s r.out ] && pass "$*: refused ($rc): $(head -1 r.err)" ||
      fail "$*: status $rc, stdout '$(head -2 r.out)', stderr '$(head -2 r.err)'"
  }
  refused 2 "takes no --last" ps --dir "$L" --last 3
  refused 2 "takes no --json" ps --dir "$L" --clean --json
  refused 1 "no live region for process 999999999" top --dir "$L" -n 1 -d 0.1 999999999
  refused 2 "not a process id" top --dir "$L" -n 1 -d 0.1 0
  refused 2 "too few arguments" ctl --dir "$L" $pid trace
  refused 2 "too many arguments" ctl --dir "$L" $pid trace start now
  refused 2 "not a process id" ctl --dir "$L" x trace start
  [ -n "$(ls "$L")" ] && pass "nothing removed by the refused --clean" || fail "the region went"
  touch "$dir/go"; wait $pid
  # An empty directory: an empty list, as JSON.
  mkdir -m 700 "$dir/empty"
  timeout 20 "$CLI" ps --dir "$dir/empty" --json >e.json 2>e.txt; rc=$?
  [ $rc = 0 ] && [ "$(cat e.json)" = "[]" ] && pass "no process: []" || fail "empty: status $rc: $(cat e.json e.txt)"
  ;;
man_page_examples_of_the_live_view_work_as_written)
  # Before: the man page's examples started programs with CUAUDIT_LIVE=1 or
  # CUAUDIT_CAPTURE=ctl and no LD_AUDIT: nothing was audited and `cuaudit ps`/`ctl` found
  # no process. Every line of cuaudit(1)'s and the README's examples that starts a program
  # in the background starts it audited: with `cuaudit run` or with LD_AUDIT.
  bg=$(sed -n '/^\.SH EXAMPLES/,/^\.SH FILES/p' "$SRC/docs/man/cuaudit.1" | grep -E '&( *#.*)?$')
  bg+=$'\n'$(grep -E '^[^#|]*[^&]&( *#.*)?$' "$SRC/README.md")
  bad=$(grep -vE '^(\.B )?(cuaudit run |[^ ]*LD_AUDIT=|[A-Z_]+=[^ ]* +LD_AUDIT=)' <<<"$bg" | grep .)
  n=$(grep -c . <<<"$bg")
  [ "$n" -ge 4 ] && [ -z "$bad" ] && pass "$n background examples, each audited" ||
    fail "$n background examples; started without the module: $bad"
  # The service example run as written: the trace path under $dir, the ten seconds a phase of the
  # program (./service runs live_prog: 100 calls, 200 on two threads, 100).
  ex=$(sed -n '/^Trace a running service/,/^\.fi/p' "$SRC/docs/man/cuaudit.1" | sed -n '/^\.nf/,/^\.fi/p' | grep -v '^\.')
  start=$(sed -n 1p <<<"$ex"); switch=$(sed -n 2p <<<"$ex")
  [[ "$start" == *'./service &' && "$switch" == *'sleep 10'* ]] || fail "the example changed: $ex"
  printf '#!/bin/sh\nexec "%s" phases 100 "%s/go1" "%s/go2"\n' "$PROG" "$dir" "$dir" >service
  chmod +x service
  phase2() { touch "$dir/go1"; wait_out out.txt 'phase 2 done'; }
  start=${start//\\-/-}; start=${start//\/var\/tmp/$dir}; start=${start//cuaudit /\"\$CLI\" }
  switch=${switch//sleep 10/phase2}; switch=${switch//cuaudit /\"\$CLI\" }
  : >out.txt
  export CUAUDIT_LIVE_DIR="$L"
  eval "${start%&}>out.txt 2>err.txt &"
  wait_out out.txt 'phase 1 done' || { kill -9 $!; finish; }
  eval "$switch" >ctl.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -q "^trace started" ctl.txt && grep -q "^trace stopped" ctl.txt &&
    pass "ctl start and stop: $(tr '\n' ' ' <ctl.txt)" || fail "ctl: status $rc: $(cat ctl.txt)"
  pid=$!
  # Bounded: a service that does not end is killed (137) and fails, never hangs the suite.
  touch "$dir/go2"; (sleep 120; kill -9 $pid 2>/dev/null) & guard=$!
  wait $pid; rc=$?; kill $guard 2>/dev/null
  [ $rc = 0 ] && pass "the service ended normally" || fail "status $rc: $(cat err.txt)"
  "$PYTHON" "$CHECK_JSON" trace "$dir/t.$pid.json" cuDeviceGetCount >check.txt 2>&1 || fail "trace: $(tail -2 check.txt)"
  expect_log 1 '^cuDeviceGetCount events=200$' check.txt
  ;;
live_view_json_and_top_show_the_counts)
  : >out.txt
  env $(live_env) "$PROG" calls 3000 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done'
  timeout 20 "$CLI" ps --dir "$L" --json $pid >j.txt 2>&1
  "$PYTHON" - j.txt <<'PY' >check.txt 2>&1 && pass "ps --json: $(cat check.txt)" || fail "json: $(cat check.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
apis = {a["name"]: a for a in d["apis"]}
assert apis["cuDeviceGetCount"]["calls"] == 3000, apis
assert apis["cuInit"]["calls"] == 1
t = d["threads"][0]
assert t["in_flight"] == [], t["in_flight"]
assert len(t["last_calls"]) == 16 and t["last_calls"][0]["name"] == "cuDeviceGetCount"
assert t["last_calls"][0]["result"] == "CUDA_SUCCESS"
assert d["memory"] == [{"device": 0, "bytes": 4 << 20}], d["memory"]
# The view alone times every call too (its history once showed '-').
assert isinstance(t["last_calls"][0]["duration_ns"], int) and t["last_calls"][0]["ended_ns_ago"] > 0
assert apis["cuDeviceGetCount"]["total_ns"] >= sum(e["duration_ns"] for e in t["last_calls"] if e["name"] == "cuDeviceGetCount")
print("3000 calls, 16 last calls, nothing in flight, 4 MiB held on device 0")
PY
  timeout 20 "$CLI" ps --dir "$L" $pid >p.txt 2>&1
  grep -q '^device memory held by its calls: device 0 4.0 MiB$' p.txt && pass "ps PID shows the memory per device" || fail "memory: $(cat p.txt | head -5)"
  timeout 20 "$CLI" top --dir "$L" -d 0.2 -n 1 $pid >top.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -qE '^driver +[0-9]+ +[0-9]+ +[0-9.]+(ns|us|ms|s) +(-|[0-9.]+(ns|us|ms|s)) +0 +- +3000 cuDeviceGetCount$' top.txt && pass "top, not on a terminal: one table with the counts" || fail "top: $rc $(cat top.txt)"
  touch "$dir/go"; wait $pid
  # With the summary on, the view takes its clock reads: durations are known.
  rm -f "$dir/go"
  : >out.txt
  env $(live_env) CUAUDIT_SUMMARY="$dir/s.json" "$PROG" calls 10 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done'
  timeout 20 "$CLI" ps --dir "$L" --json $pid >j2.txt 2>&1
  "$PYTHON" -c '
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]["last_calls"]
assert all(isinstance(e["duration_ns"], int) and e["ended_ns_ago"] >= 0 for e in t), t
print(len(t), "calls with durations")' j2.txt >check.txt 2>&1 && pass "with the summary: $(cat check.txt)" || fail "durations: $(cat check.txt)"
  touch "$dir/go"; wait $pid
  # Both exact together: the view is no subscription of its own beside the summary's.
  "$PYTHON" -c '
import json, sys
live = {a["name"]: a["calls"] for a in json.load(open(sys.argv[1]))["apis"]}
rows = {r["name"]: r["calls"] for r in json.load(open(sys.argv[2]))["apis"]}
assert live["cuDeviceGetCount"] == 10 and rows["cuDeviceGetCount"] == 10, (live, rows)
tids = {e["tid"] for e in json.load(open(sys.argv[1]))["threads"][0]["last_calls"]}
assert len(tids) == 1 and tids != {0}, tids
print("10 and 10 calls, one thread id")' j2.txt s.json >check.txt 2>&1 && pass "summary and view together: $(cat check.txt)" || fail "together: $(cat check.txt)"
  ;;
a_program_that_loads_the_driver_and_execs_without_a_call_leaves_no_file)
  # The driver is loaded at start-up (the region is made then), but the program makes no
  # CUDA call and execs a shell: the shell's image is no CUDA program, and no file may stay
  # showing the old command line, nor after the shell ends.
  for extra in "CUAUDIT_SUMMARY=$dir/s.%p.json" "CUAUDIT_LOG=warn"; do
    rm -f "$dir/go"
    : >out.txt
    env $(live_env) $extra "$PROG" execnocall "$dir/go" >out.txt 2>err.txt &
    pid=$!
    wait_out out.txt 'execed' || { kill -9 $pid; continue; }
    [ -z "$(ls "$L" 2>/dev/null)" ] && pass "$extra: no file while the shell runs" ||
      fail "$extra: while the shell runs: $(ls "$L"); $(ps_json $pid calls cuInit)"
    touch "$dir/go"; wait $pid; rc=$?
    [ $rc = 0 ] && pass "$extra: ended normally" || fail "$extra: status $rc: $(cat err.txt)"
    [ -z "$(ls "$L" 2>/dev/null)" ] && pass "$extra: no file left" || fail "$extra: left $(ls "$L")"
    rm -f "$L"/*
  done
  ;;
exec_gives_the_new_image_a_fresh_region_under_the_same_pid)
  # exec keeps the pid and the start time, so the name: the old image's file is removed at
  # the exec and the new image makes its own, with the summary on and alone (where the old
  # one is left, as by a failed removal, the new image finds it, its own process's, and
  # replaces it).
  for extra in "CUAUDIT_SUMMARY=$dir/s.%p.json" "CUAUDIT_LOG=warn"; do
    rm -f "$dir/go"
    : >out.txt
    env $(live_env) $extra "$PROG" exec 1000 "$dir/go" >out.txt 2>err.txt &
    pid=$!
    wait_out out.txt 'calls done' || { kill -9 $pid; continue; }
    [ "$(ls "$L" | grep -c "^$pid-")" = 1 ] && pass "$extra: one region for the pid" || fail "$extra: files $(ls "$L")"
    j=$(ps_json $pid calls cuDeviceGetCount)
    [[ "$j" == "running 5 "* ]] && pass "$extra: the new image counts only its own 5 calls ($j)" || fail "$extra: $j"
    grep -q 'live_prog calls 5' psj.txt && pass "$extra: its program is the new command line" || fail "$extra: program: $(head -c 200 psj.txt)"
    touch "$dir/go"; wait $pid; rc=$?
    [ $rc = 0 ] && ! grep -v "^cuaudit: Generated: " err.txt | grep -q . && pass "$extra: ended normally, silent" || fail "$extra: status $rc: $(cat err.txt)"
    [ -z "$(ls "$L")" ] && pass "$extra: no file left" || fail "$extra: left $(ls "$L")"
  done
  ;;
a_call_in_flight_is_timed_on_its_writers_clock_however_far_that_drifted)
  # Calls are stamped on the writer's own clock (its TSC, calibrated once), which drifts from
  # CLOCK_MONOTONIC (some 10 ms an hour), and the reader compares with its own
  # CLOCK_MONOTONIC. The writer publishes its clock's definition in the head: the reader
  # reads the call's elapsed time and start on that clock. Here the writer's clock is put
  # 20 s ahead (the test-only CUAUDIT_TEST_CLOCK_OFFSET_MS, days of drift at once; it needs
  # the compute limit that reads it). Before, the call 0.5 s in flight showed 0 ns elapsed
  # (its start was after the reader's now) and a start 20 s in the future.
  mkdir -p share
  start_blocked block CUAUDIT_TEST_CLOCK_OFFSET_MS=20000 CUAUDIT_COMPUTE_LIMIT=100 CUAUDIT_SHARE_DIR="$dir/share"
  sleep 0.5
  t0=$(date +%s%N)
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >psj.txt 2>psj.err || fail "ps: $(cat psj.err)"
  t1=$(date +%s%N)
  "$PYTHON" - psj.txt "$t0" "$t1" <<'PY' >chk.txt 2>&1 && pass "$(cat chk.txt)" || fail "$(cat chk.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
f = [f for t in d["threads"] for f in t["in_flight"] if f["name"] == "cuStreamSynchronize"]
assert len(f) == 1, d["threads"]
e, s = f[0]["elapsed_ns"], f[0]["started_unix_ns"]
# In flight 0.5 s and more (a loaded machine's delays add, never take away), far below 20 s.
assert 400_000_000 <= e <= 15_000_000_000, f"elapsed {e} ns"
# Its start: before the reading, and its elapsed time before the reading's end.
assert s <= t1 and abs((t0 - e) - s) <= 2_000_000_000, f"started {s}, read {t0}..{t1}, elapsed {e}"
print(f"elapsed {e / 1e9:.3f} s, started {(t0 - s) / 1e9:.3f} s before the reading")
PY
  rm -f "$BLOCK"; wait $pid
  [ ! -s err.txt ] && pass "nothing said" || fail "$(cat err.txt)"
  ;;
a_dead_process_s_call_stops_at_its_last_sign_of_life_whatever_its_writers_clock)
  # A dead process's call in flight lasted until its last sign of life (the latest time its
  # records hold), the same at every reading. Its writer's clock here is 20 s ahead of
  # CLOCK_MONOTONIC (the test offset; a real TSC clock is ahead or behind by its drift). A
  # record may hold a time never written (0): the ring's first lap of a call given up (its
  # thread cancelled in it and its slot taken again: no end) or of a call killed between its
  # number and its start. Put on the reader's clock, 0 less the writer's lead wrapped to the
  # top, was taken for the latest sign, and clamped to each reading's now: the dead call's
  # time grew with every reading, and its death moved on.
  mkdir -p share
  start_blocked block CUAUDIT_TEST_CLOCK_OFFSET_MS=20000 CUAUDIT_COMPUTE_LIMIT=100 CUAUDIT_SHARE_DIR="$dir/share"
  kill -KILL $pid; wait $pid 2>/dev/null; rm -f "$BLOCK"
  killed=$(date +%s%N)
  real=$(ls "$L"/$pid-*.live)
  # read_twice TAG: two readings 1.5 s apart; the elapsed time and the last sign must agree.
  read_twice() {
    timeout 20 "$CLI" ps --dir "$L" --json "$pid" >"$1.1" 2>&1; sleep 1.5
    timeout 20 "$CLI" ps --dir "$L" --json "$pid" >"$1.2" 2>&1
    "$PYTHON" - "$1.1" "$1.2" "$killed" <<'PY' >chk.txt 2>&1 && pass "$1: $(cat chk.txt)" || fail "$1: $(cat chk.txt)"
import json, sys
got = []
for p in sys.argv[1:3]:
    d = json.load(open(p))
    assert d["state"] == "dead", d["state"]
    f = [f for t in d["threads"] for f in t["in_flight"] if f["name"] == "cuStreamSynchronize"]
    assert len(f) == 1, d["threads"]
    got.append((f[0]["elapsed_ns"], d["last_sign_of_life_unix_ns"]))
(e1, s1), (e2, s2) = got
# The call's time: a difference of two times on one clock, the same at every reading. The
# last sign on the wall clock: up to each reading's own clock reads (microseconds, or a
# preemption between them on a loaded machine), where the defect moved it by the 1.5 s.
assert abs(e2 - e1) < 1_000_000 and abs(s2 - s1) < 300_000_000, \
    f"the dead call's time grew: {e1} -> {e2} ns, last sign {s1} -> {s2}"
assert s1 <= int(sys.argv[3]) + 300_000_000, f"last sign {s1} after the kill {sys.argv[3]}"
assert e1 < 15_000_000_000, f"elapsed {e1} ns"
print(f"at least {e1 / 1e9:.3f} s at both readings, last sign before the kill")
PY
  }
  read_twice "as it died"
  # A record of the blocked call's slot not yet used (the ring's first lap) made a call
  # given up with no end: its number, the blocked call's start, t_end 0.
  "$PYTHON" - "$real" <<'PY' >patch.txt 2>&1 || fail "patch: $(cat patch.txt)"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
slot_size, = struct.unpack_from("<Q", b, 32)
ncalls, = struct.unpack_from("<I", b, 44)
done = False
for i in range(128):
    base = 4096 + i * slot_size + 64
    if base + ncalls * 144 > len(b):
        break
    recs = [base + k * 144 for k in range(ncalls)]
    busy = [r for r in recs if struct.unpack_from("<I", b, r)[0] & 3 == 2]
    free = [k for k, r in enumerate(recs) if struct.unpack_from("<I", b, r)[0] == 0]
    if busy and free:
        r = recs[free[0]]
        b[r:r + 144] = b[busy[0]:busy[0] + 144]
        struct.pack_into("<I", b, r, 4 * free[0] + 3)   # given up
        struct.pack_into("<Q", b, r + 24, 0)            # t_end: never written
        done = True
        break
assert done, "no slot with a call in flight and a free record"
open(p, "wb").write(b)
PY
  read_twice "with a call given up before its end"
  ;;
a_clock_definition_caught_in_an_update_gives_no_call_time)
  # The writer publishes its clock's definition (the head's struct cua_live_clock) inside a
  # seqlock: seq odd while written. A writer killed in an update leaves it odd, with halves
  # of two definitions (here the TSC's flag with a scale never written whole): the reader
  # must not put the calls' times on it. It says the clock is unknown and shows no call
  # time ("?", JSON null); the last sign of life is the region's making. Before, the reader
  # took the head as it lay, and showed the torn clock's times.
  start_blocked block
  kill -KILL $pid; wait $pid 2>/dev/null; rm -f "$BLOCK"
  killed=$(date +%s%N)
  real=$(ls "$L"/$pid-*.live)
  # clock_patch TSC SEQ MULT: the head's clock (offset 904: tsc, seq, tsc_base, ns_base, mult,
  # offset_ns).
  clock_patch() {
    "$PYTHON" - "$real" "$@" <<'PY' >patch.txt 2>&1 || fail "patch: $(cat patch.txt)"
import struct, sys
p, tsc, seq, mult = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(p, "rb").read())
struct.pack_into("<IIQQQQ", b, 904, tsc, seq, 0, 0, mult, 0)
open(p, "wb").write(b)
PY
  }
  clock_patch 1 7 $((1 << 40))
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >psj.txt 2>psj.err || fail "ps --json: $(cat psj.err)"
  "$PYTHON" - psj.txt "$killed" <<'PY' >chk.txt 2>&1 && pass "$(cat chk.txt)" || fail "$(cat chk.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "dead", d["state"]
f = [f for t in d["threads"] for f in t["in_flight"] if f["name"] == "cuStreamSynchronize"]
assert len(f) == 1, d["threads"]
assert f[0]["elapsed_ns"] is None and f[0]["started_unix_ns"] is None, \
    f"a time on the torn clock: elapsed {f[0]['elapsed_ns']} ns, started {f[0]['started_unix_ns']}"
assert d.get("clock_known") is False, f"clock_known {d.get('clock_known')}"
assert d["last_sign_of_life_unix_ns"] <= int(sys.argv[2]) + 300_000_000, d["last_sign_of_life_unix_ns"]
print("clock unknown: no elapsed time, no start, the last sign before the kill")
PY
  timeout 20 "$CLI" ps --dir "$L" "$pid" >ps.txt 2>ps.err || fail "ps: $(cat ps.err)"
  grep -q "^note: the writer's clock is unknown" ps.txt && grep -q 'until the process died: at least ?$' ps.txt &&
    pass "the text says so, and shows '?'" || fail "text: $(cat ps.txt)"
  # The same definition whole (seq even, CLOCK_MONOTONIC): the call's time is shown again.
  clock_patch 0 8 0
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >psj.txt 2>psj.err || fail "ps --json: $(cat psj.err)"
  "$PYTHON" - psj.txt <<'PY' >chk.txt 2>&1 && pass "$(cat chk.txt)" || fail "$(cat chk.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clock_known"] is True, d["clock_known"]
f = [f for t in d["threads"] for f in t["in_flight"] if f["name"] == "cuStreamSynchronize"]
assert len(f) == 1 and isinstance(f[0]["elapsed_ns"], int), f
print(f"a whole definition: elapsed {f[0]['elapsed_ns']} ns")
PY
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
