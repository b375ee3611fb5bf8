#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live_history.sh: the live view read like the log and like top: each past call's time, kernel names, memory in units, a killed process's death, `run` refusing an unusable directory, `top` on a terminal and in batch.
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
  env $(live_env) MOCK_SPIN="$SPIN" MOCK_TRUTH="$dir/truth.txt" TRUTH_OUTER="$dir/outer.txt" "$@" \
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
live_history_times_each_call_names_kernels_and_shows_memory_in_units)
  # Before: with the view alone every past call's time was '-', a launch had no kernel
  # name and memory was in bytes. The true times are the mock's (MOCK_TRUTH).
  start_hang CUAUDIT_LIVE_CALLS=256
  timeout 20 "$CLI" ps --dir "$L" --json --last 256 "$pid" >ps.json 2>ps.err || fail "ps --json: $(cat ps.err)"
  timeout 20 "$CLI" ps --dir "$L" --last 256 "$pid" >ps.txt 2>&1 || fail "ps: $(cat ps.txt)"
  # top's calls in flight and the longest: the hung call, in flight for at least top's
  # interval (0.3 s), at most since the program said it was ready.
  t_ready=$(stat -c %.9Y "$dir/ready")
  timeout 20 "$CLI" top --dir "$L" -b -n 1 -d 0.3 "$pid" >top.txt 2>&1
  timeout 20 "$CLI" top --dir "$L" -b -p -n 1 -d 0.3 "$pid" >topp.txt 2>&1
  t_after=$(date +%s.%N)
  "$PYTHON" - top.txt topp.txt "$t_ready" "$t_after" "$pid" <<'PY' >topcheck.txt 2>&1
import re, sys
unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
def sec(v):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", v)
    return float(m.group(1)) * unit[m.group(2)]
api, proc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
most = float(sys.argv[4]) - float(sys.argv[3]) + 0.01
# (Counted once ended: 0 calls.)
m = re.search(r"^driver +0 +0 +0ns +- +1 +(\S+) +0 cuMemsetD32Async$", api, re.M)
assert m and 0.3 * 0.995 <= sec(m.group(1)) <= most, (api, most)
m = re.search(r"^%s +running +1 +0 +0 +0ns +- +1 +(\S+) " % sys.argv[5], proc, re.M)
assert m and 0.3 * 0.995 <= sec(m.group(1)) <= most, (proc, most)
print(f"1 in flight for {m.group(1)}, at most {most:.2f} s")
PY
  [ $? = 0 ] && pass "top: the call in flight and its time: $(cat topcheck.txt)" || fail "top in flight: $(cat topcheck.txt)"
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 err.txt)"
  "$PYTHON" - "$dir" <<'PY' >check.txt 2>&1
import json, os, sys
d = sys.argv[1]
t = {}
for line in open(os.path.join(d, "truth.txt")):
    name, calls, total, lo, hi = line.split()
    t[name] = dict(calls=int(calls), total=int(total), min=int(lo), max=int(hi))
p = json.load(open(os.path.join(d, "ps.json")))
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
# Each call's time as the program saw it (CLOCK_MONOTONIC either side of the call): cuaudit's
# two reads lie inside, so its time is at most this, on any load; its clock is the TSC
# calibrated against CLOCK_MONOTONIC, allowed 0.5% and 5 us a call of difference.
outer = {}
for line in open(os.path.join(d, "outer.txt")):
    name, ns = line.split()
    outer.setdefault(name, []).append(int(ns))
calls = [c for th in p["threads"] for c in th["last_calls"]]
apis = {a["name"]: a for a in p["apis"]}
for name in ("cuStreamSynchronize", "cuLaunchKernel"):
    durs = [c["duration_ns"] for c in calls if c["name"] == name]
    tr = t[name]
    check(len(durs) == tr["calls"] and None not in durs, f"{name}: {len(durs)} timed calls of {tr['calls']}")
    durs = [x or 0 for x in durs]
    # Each call holds the mock's wait (the mock's own measure, inside cuaudit's) and lies
    # inside the program's measure of it. Matched in sorted order: if each call's time is at
    # most its outer time, the k-th smallest is at most the k-th smallest outer time.
    check(all(x >= tr["min"] - 2000 for x in durs),
          f"{name}: each time at least the mock's shortest wait {tr['min']} - 2000: {min(durs)}..{max(durs)}")
    o = sorted(outer.get(name, []))
    over = [(x, y) for x, y in zip(sorted(durs), o) if x > y * 1.005 + 5000]
    check(len(o) == len(durs) and not over,
          f"{name}: each time within the program's own measure of the call: {len(o)} measured, over: {over[:3]}")
    check(tr["total"] - 2000 * tr["calls"] <= sum(durs) <= sum(o) * 1.005 + 5000 * len(o),
          f"{name}: sum {sum(durs)} between the mock's {tr['total']} and the program's {sum(o)}")
    check(apis[name]["total_ns"] == sum(durs), f"{name}: the per-API total {apis[name]['total_ns']} is the history's sum")
kern = {c.get("kernel") for c in calls if c["name"] == "cuLaunchKernel"}
check(kern == {"add_one(int*, int)"}, f"every launch names its kernel: {kern}")
check(all("kernel" not in c for c in calls if c["name"] != "cuLaunchKernel"), "only launches name a kernel")
fl = [f for th in p["threads"] for f in th["in_flight"]]
check([f["name"] for f in fl] == ["cuMemsetD32Async"], f"the hung call in flight: {[f['name'] for f in fl]}")
check(p["memory"] == [{"device": 0, "bytes": 3 << 20}], f"memory in exact bytes: {p['memory']}")
sys.exit(1 if fails else 0)
PY
  rc=$?
  cat check.txt
  [ $rc = 0 ] && pass "durations, kernel names and memory are true" || fail "ps --json: $(grep -c FAIL check.txt) failed"
  grep -qE '^    cuLaunchKernel\(f=0x[0-9a-f]+, .*, kernel_name="add_one\(int\*, int\)"\) -> CUDA_SUCCESS [0-9.]+(us|ms) \[' ps.txt &&
    pass "the text history names each launch's kernel and its time" || fail "launch lines: $(grep cuLaunchKernel ps.txt | head -2)"
  grep -qE '^    cuStreamSynchronize\(hStream=NULL\) -> CUDA_SUCCESS [0-9.]+(us|ms) \[' ps.txt && ! grep -qE ' -> [A-Z_]+ - \[' ps.txt &&
    pass "every past call shows its time" || fail "times: $(grep -E ' -> ' ps.txt | head -3)"
  grep -qx 'device memory held by its calls: device 0 3.0 MiB' ps.txt && pass "memory in MiB" ||
    fail "memory: $(grep memory ps.txt)"
  ;;
a_killed_process_shows_when_it_died_and_its_call_stops_growing)
  # Before: after `kill PID` (SIGTERM, the default action: no code of the process runs)
  # the call in flight kept growing as if the process still waited, and no time of death
  # was shown. The file stays for the post-mortem until `ps --clean`.
  t0=$(date +%s%N)
  start_hang CUAUDIT_LIVE_CALLS=256
  sleep 0.3
  t_kill=$(date +%s%N)
  kill -TERM $pid
  wait $pid 2>/dev/null
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >a.json 2>a.err || fail "ps --json: $(cat a.err)"
  sleep 0.5
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >b.json 2>b.err || fail "ps --json: $(cat b.err)"
  "$PYTHON" - a.json b.json "$t0" "$t_kill" <<'PY' >check.txt 2>&1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
t0, t_kill = int(sys.argv[3]), int(sys.argv[4])
assert a["state"] == "dead" and b["state"] == "dead", (a["state"], b["state"])
fa = [f for th in a["threads"] for f in th["in_flight"]]
fb = [f for th in b["threads"] for f in th["in_flight"]]
assert [f["name"] for f in fa] == ["cuMemsetD32Async"], fa
assert fa[0]["elapsed_ns"] == fb[0]["elapsed_ns"], ("it grew", fa[0]["elapsed_ns"], fb[0]["elapsed_ns"])
# The last sign of life: the hung call's start, after the program started and before the kill.
life = a["last_sign_of_life_unix_ns"]
assert t0 <= life <= t_kill, (t0, life, t_kill)
assert t0 <= fa[0]["started_unix_ns"] <= life, (fa[0]["started_unix_ns"], life)
assert fa[0]["elapsed_ns"] == life - fa[0]["started_unix_ns"], (fa[0]["elapsed_ns"], life, fa[0]["started_unix_ns"])
print(f"dead, in flight {fa[0]['elapsed_ns']} ns both times, alive until {(t_kill - life) / 1e6:.0f} ms before the kill")
PY
  rc=$?
  [ $rc = 0 ] && pass "$(cat check.txt)" || fail "dead process: $(cat check.txt)"
  timeout 20 "$CLI" ps --dir "$L" "$pid" >d.txt 2>&1
  grep -qE '^died: after [0-9-]+ [0-9:.]+, its last sign of life' d.txt && grep -q "cuaudit ps --clean' removes it" d.txt &&
    pass "ps PID says when it died and how to clean up" || fail "ps PID: $(head -4 d.txt)"
  grep -qE '^  in flight: cuMemsetD32Async\(.*\) \[[a-z_]+\] since [0-9-]+ [0-9:.]+ until the process died: at least [0-9.]+(ns|us|ms|s)$' d.txt &&
    pass "its call in flight stops at the death" || fail "in flight: $(grep 'in flight' d.txt)"
  timeout 20 "$CLI" ps --dir "$L" >l.txt 2>&1
  grep -qE "^$pid +dead +1 +- +cuMemsetD32Async +>=[0-9.]+(ns|us|ms|s) " l.txt &&
    grep -qE "^1 file\(s\) of processes that are gone \([0-9.]+ MiB\) kept for post-mortem: .*'cuaudit ps --clean' removes them$" l.txt &&
    pass "the list marks it dead, its time a bound, and offers the cleanup" || fail "list: $(cat l.txt)"
  timeout 20 "$CLI" ps --dir "$L" --clean >c.txt 2>&1; rc=$?
  [ $rc = 0 ] && [ -z "$(ls "$L")" ] && grep -q "^1 file(s) removed" c.txt && pass "ps --clean removes it" || fail "clean: $rc $(cat c.txt; ls "$L")"
  ;;
run_refuses_an_unusable_live_dir_before_the_program_starts)
  # Before: `run --live on --live-dir DIR` with a DIR the module refuses started the
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
top_fits_the_terminal_and_answers_its_keys)
  # Before: `top` printed 40 rows whatever the terminal, had no keys. On a pseudo-terminal
  # of 20 rows and 80 columns (then 8 rows), every frame fits; keys sort, switch the view
  # and quit.
  rm -f "$dir/go"
  : >out.txt
  env $(live_env) "$BIN/live_prog" calls 30 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  wait_out out.txt 'calls done' || { kill -9 $pid; finish; }
  "$PYTHON" - "$CLI" "$L" $pid <<'PY' >pty.txt 2>&1
import os, pty, re, select, struct, sys, time, fcntl, termios
cli, d, me = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
def run(rows, cols, keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(cli, [cli, "top", "--dir", d, "-d", "0.2"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    out = b""
    def read_for(sec):
        nonlocal out
        end = time.time() + sec
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return
    def read_until(what, sec):
        # On a loaded machine a frame may come late: wait for the text a key's frame shows.
        end = time.time() + sec
        while what not in out.decode(errors="replace") and time.time() < end:
            read_for(0.1)
    read_until("cuaudit top", 10)
    read_for(0.3)
    for k, shows in keys:
        start = len(out)
        os.write(fd, k.encode())
        end = time.time() + 10
        while shows not in out[start:].decode(errors="replace") and time.time() < end:
            read_for(0.1)
        read_for(0.3)
    os.write(fd, b"q")
    t = time.time()
    # Never wait for ever: a top that ignores the key is killed after 5 s (and fails).
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done or time.time() - t > 5:
            break
        read_for(0.05)
    if not done:
        os.kill(pid, 9)
        _, st = os.waitpid(pid, 0)
    read_for(0.1)
    return out.decode(errors="replace"), os.waitstatus_to_exitcode(st), time.time() - t
def frames(text):
    # A frame starts at the cursor's return home; the escapes are the terminal's.
    return [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", f).replace("\r\n", "\n") for f in text.split("\x1b[H")[1:]]
text, rc, took = run(20, 80, [("n", "sorted by name"), ("p", "process view")])
check(rc == 0 and took < 3, f"q quits, status {rc}")
fs = [f for f in frames(text) if "cuaudit top" in f]
check(len(fs) >= 3, f"{len(fs)} frames")
for f in fs:
    lines = f.rstrip("\n").split("\n")
    check(len(lines) < 20 and all(len(l) <= 80 for l in lines), f"a frame of {len(lines)} lines, widest {max(map(len, lines))}")
byname = [f for f in fs if "sorted by name" in f and "API view" in f]
check(len(byname) >= 1, "key n: sorted by name")
if byname:
    names = re.findall(r"^(?:driver|runtime) +(?:\S+ +){7}(\S+)$", byname[-1], re.M)
    check(len(names) >= 3 and names == sorted(names), f"rows by name: {names}")
    check(re.search(r"^LAYER +CALLS/S +ERR/S +TIME/S +AVG +INFLT +LONGEST +CALLS +API$", byname[-1], re.M) is not None, "the columns")
procs = [f for f in fs if "process view" in f]
check(len(procs) >= 1 and re.search(r"^%d +running +1 " % me, procs[-1], re.M) is not None,
      "key p: the process view, the process's row")
text, rc, took = run(8, 60, [])
fs = [f for f in frames(text) if "cuaudit top" in f]
check(rc == 0 and len(fs) >= 1, f"8 rows: {len(fs)} frames, status {rc}")
for f in fs:
    lines = f.rstrip("\n").split("\n")
    check(len(lines) < 8 and all(len(l) <= 60 for l in lines), f"a frame of {len(lines)} lines, widest {max(map(len, lines))}")
check(any(re.search(r"^\.\.\. [0-9]+ more row", f, re.M) for f in fs), "the rows left out are said")
sys.exit(1 if fails else 0)
PY
  rc=$?
  cat pty.txt
  [ $rc = 0 ] && pass "top on a pseudo-terminal" || fail "top on a terminal: $(grep -c FAIL pty.txt) failed"
  touch "$dir/go"; wait $pid
  ;;
top_batch_shows_layers_times_and_process_rows_with_true_values)
  # Batch mode (-b -n N) for scripts: each sample whole, with a layer column and time
  # columns whose true values the mock knows (MOCK_SPIN makes each cuDeviceGetCount 2 ms).
  rm -f "$dir/go"
  : >out.txt
  env $(live_env) "$BIN/live_prog" calls 3000 "$dir/go" >out.txt 2>err.txt &
  pid=$!
  : >rt.txt
  env $(live_env) "$BIN/live_rt_prog" rtfirstcalls 20 "$dir/go" >rt.txt 2>rt.err &
  rtpid=$!
  wait_out out.txt 'calls done' || { kill -9 $pid $rtpid; finish; }
  wait_out rt.txt 'rtfirstcalls done' || { kill -9 $pid $rtpid; finish; }
  timeout 20 "$CLI" top --dir "$L" -b -n 2 -d 0.2 --sort total >top.txt 2>top.err; rc=$?
  [ $rc = 0 ] && [ "$(grep -c '^cuaudit top - ' top.txt)" = 2 ] && pass "-b -n 2: two samples" || fail "batch: $rc $(cat top.err top.txt | head)"
  grep -qE '^driver +0 +0 +0ns +- +0 +- +3000 cuDeviceGetCount$' top.txt &&
    grep -qE '^runtime +0 +0 +0ns +- +0 +- +1280 cudaGetLastError$' top.txt &&
    pass "layer column and exact totals (3000 driver, 1280 runtime calls)" || fail "rows: $(cat top.txt)"
  # --sort total: the largest total first, in each sample.
  first=$(awk '/^LAYER/ {getline; print $NF}' top.txt | sort -u)
  [ "$first" = cuDeviceGetCount ] && pass "sorted by total calls" || fail "first rows: $first"
  timeout 20 "$CLI" top --dir "$L" -b -p -n 1 -d 0.2 >p.txt 2>p.err; rc=$?
  [ $rc = 0 ] && grep -qE "^$pid +running +1 +0 +0 +0ns +- +0 +- .*live_prog calls 3000" p.txt &&
    grep -qE "^$rtpid +running +[0-9]+ +0 +0 +0ns +- +0 +- .*live_rt_prog rtfirstcalls" p.txt &&
    pass "-p: a row per process" || fail "processes: $rc $(cat p.err p.txt)"
  touch "$dir/go"; wait $pid; wait $rtpid
  # Rates and times in an interval: one thread in 2 ms calls.
  env $(live_env) MOCK_SPIN="cuDeviceGetCount:2000000" MOCK_TRUTH="$dir/truth.txt" \
    "$TRUTH_PROG" periodic 1500 >out.txt 2>err.txt &
  pid=$!
  sleep 0.5
  timeout 20 "$CLI" top --dir "$L" -b -n 1 -d 1 "$pid" >spin.txt 2>spin.err
  wait $pid
  "$PYTHON" - spin.txt truth.txt <<'PY' >check.txt 2>&1
import re, sys
text = open(sys.argv[1]).read()
t = {l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(sys.argv[2])}
calls, total, lo, hi = t["cuDeviceGetCount"]
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
def ns(v):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", v)
    return float(m.group(1)) * unit[m.group(2)]
m = re.search(r"^driver +([0-9]+) +([0-9]+) +(\S+) +(\S+) +([0-9]+) +(\S+) +([0-9]+) cuDeviceGetCount$", text, re.M)
assert m, text
rate, errs, per_s, avg = int(m.group(1)), int(m.group(2)), ns(m.group(3)), ns(m.group(4))
# Each call's time is the mock's wait and cuaudit's own work around it: at least the
# shortest the mock measured, at most the longest plus 1 ms.
assert lo - 2000 <= avg <= hi + 1e6, (avg, lo, hi)
# One thread: its calls' time per second is at most a second, and the rate times the mean.
# (A call that began before the interval and ended in it counts whole: at most one call's
# time more than the second.)
assert per_s <= 1e9 + hi and abs(per_s - rate * avg) <= 0.01 * per_s + 2 * avg, (per_s, rate, avg, hi)
assert 0 < rate <= 1e9 / lo + 1 and errs == 0, (rate, errs)
print(f"avg {avg:.0f} ns within [{lo}, {hi} + 1 ms], {rate}/s, {per_s:.0f} ns/s")
PY
  rc=$?
  [ $rc = 0 ] && pass "time columns: $(cat check.txt)" || fail "time columns: $(cat check.txt)"
  ;;
readers_refuse_what_they_cannot_do)
  # ps, top and ctl: extra arguments, unknown processes, unknown sort keys and options a
  # form cannot honour are refused with a message and a non-zero status.
  refused() { # STATUS TEXT ARGS...
    local want=$1 text=$2; shift 2
    timeout 20 "$CLI" "$@" >r.out 2>r.err </dev/null; local rc=$?
    [ $rc = "$want" ] && grep -q -- "$text" r.err && [ ! -s r.out ] && pass "$*: refused ($rc): $(head -1 r.err)" ||
      fail "$*: status $rc, stdout '$(head -2 r.out)', stderr '$(head -2 r.err)'"
  }
  mkdir -m 700 "$L"
  refused 2 "not a process id" ps --dir "$L" 12 13
  refused 1 "no live region for process 999999999" ps --dir "$L" 999999999
  # A directory not made yet: the same message (it was a silent status 1).
  refused 1 "no live region for process 999999999" ps --dir "$dir/none" 999999999
  refused 1 "no live region for process 999999999" ctl --dir "$dir/none" 999999999 log stop
  refused 2 "not a process id" top --dir "$L" -b 12 13
  refused 2 "is not calls, time, errors" top --dir "$L" -b --sort speed
  refused 2 "not a positive number" top --dir "$L" -b -n 0
  refused 2 "not a number of seconds" top --dir "$L" -b -d 0
  refused 1 "no live region for process 999999999" top --dir "$L" -b -n 1 -d 0.1 999999999
  refused 1 "no live region for process 999999999" ctl --dir "$L" 999999999 trace start
  refused 2 "is not trace or log" ctl --dir "$L" 12 metrics start
  refused 2 "is not start or stop" ctl --dir "$L" 12 trace pause
  # A negative pid is no option: ctl says what is wrong and gives its own usage, never ps's
  # (it printed "invalid option -- '1'" and the usage of ps and top first).
  ctl_own_usage() {
    grep -q "^usage: cuaudit ctl \[--dir DIR\] PID trace|log start|stop$" r.err && ! grep -q "cuaudit ps\|cuaudit top" r.err &&
      pass "$1: ctl's own usage, not ps's" || fail "$1: not ctl's usage alone: $(head -3 r.err)"
  }
  refused 2 "^cuaudit ctl: '-1' is not a process id" ctl --dir "$L" -1 trace start
  ctl_own_usage "ctl -1 trace start"
  refused 2 "^cuaudit ctl: '-1' is not a process id" ctl -1
  ctl_own_usage "ctl -1"
  refused 2 "^cuaudit ctl: '-42' is not a process id" ctl trace -42 stop
  refused 2 "^cuaudit ctl: unknown option '--pid'" ctl --pid 12 trace start
  ctl_own_usage "ctl --pid"
  refused 2 "^cuaudit ctl: unknown option '-x'" ctl -x 12 trace start
  refused 2 "^cuaudit ctl: option '--dir' needs a value" ctl 12 trace start --dir
  ctl_own_usage "ctl ... --dir"
  # ps and top the same way: what is wrong, then where the usage is, never getopt's words
  # followed by the usage of every live command (they printed "invalid option -- '1'" and
  # all of it).
  short_refusal() {
    [ "$(wc -l <r.err)" = 2 ] && grep -q "^Try 'cuaudit $2 --help'\.$" r.err && ! grep -q "usage:\|invalid option" r.err &&
      pass "$1: two lines, the help named" || fail "$1: not a short refusal: $(head -3 r.err)"
  }
  refused 2 "^cuaudit ps: '-1' is not a process id$" ps --dir "$L" -1
  short_refusal "ps -1" ps
  refused 2 "^cuaudit ps: unknown option '--pid'$" ps --pid 12
  short_refusal "ps --pid" ps
  refused 2 "^cuaudit ps: option '--last' needs a value$" ps --dir "$L" 12 --last
  short_refusal "ps --last" ps
  refused 2 "^cuaudit top: '-42' is not a process id$" top -b -42
  short_refusal "top -42" top
  refused 2 "^cuaudit top: unknown option '-z' in '-bz'$" top -bz
  short_refusal "top -bz" top
  refused 2 "^cuaudit top: option '-d' needs a value$" top -b -d
  short_refusal "top -d" top
  refused 2 "^cuaudit ctl: unknown option '-x' in '-xb'$" ctl -xb 12 trace start
  ctl_own_usage "ctl -xb"
  # A long option given a value it takes none of is named as such, not as a short letter
  # (it read "unknown option '-j'" for --json=1).
  refused 2 "^cuaudit ps: option '--json' takes no value$" ps --json=1
  short_refusal "ps --json=1" ps
  refused 2 "^cuaudit top: option '--batch' takes no value$" top --batch=1
  refused 2 "^cuaudit ctl: option '--help' takes no value$" ctl --help=3 12 trace start
  # ... and never for a letter of a later cluster after a long option with a value.
  refused 2 "^cuaudit ps: unknown option '-D' in '-Dj'$" ps --dir=x -Dj
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
