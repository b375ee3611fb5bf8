#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/live_names.sh: `cuaudit ps` names every launched kernel however many the program registered (the name table holds 1,024), in a forked child too.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/live_lib.sh"
PROG="$BIN/live_names_prog"

case $name in
live_ps_names_launched_kernels_among_5000_registered)
  # Before: names were published at registration, and the 5,000 registrations filled the
  # table: the launches of kernels registered late showed no kernel_name.
  HOLD="$dir/hold"
  touch "$HOLD"
  rm -f "$dir/r1" "$dir/r2"
  env $(live_env) "$PROG" "$dir/r1" "$dir/r2" "$HOLD" >out.txt 2>err.txt &
  pid=$!
  for _ in $(seq 3000); do [ -e "$dir/r1" ] && [ -e "$dir/r2" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.02; done
  [ -e "$dir/r1" ] && [ -e "$dir/r2" ] || { rm -f "$HOLD"; fail "the program and its child did not get ready: $(cat err.txt)"; }
  child=$(ls "$L" | cut -d- -f1 | grep -vx "$pid" | head -1)
  [ -n "$child" ] || fail "no region of the child: $(ls "$L")"
  for p in $pid $child; do
    timeout 20 "$CLI" ps --dir "$L" --json --last 64 "$p" >ps_$p.json 2>ps_$p.err || fail "ps --json $p: $(cat ps_$p.err)"
    timeout 20 "$CLI" ps --dir "$L" --last 64 "$p" >ps_$p.txt 2>&1 || fail "ps $p: $(cat ps_$p.txt)"
  done
  rm -f "$HOLD"
  wait $pid; rc=$?
  [ $rc = 0 ] && pass "the program exits 0" || fail "the program exited $rc: $(head -3 err.txt)"
  "$PYTHON" - ps_$pid.json ps_$child.json <<'PY' >check.txt 2>&1
import json, sys
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
def launches(path):
    p = json.load(open(path))
    calls = [c for th in p["threads"] for c in th["last_calls"]]
    return p, [(c["name"], c.get("kernel")) for c in calls
               if c["name"] in ("cudaLaunchKernel", "cuLaunchKernel")]
p, got = launches(sys.argv[1])
# The program's own launches, newest first; the mock's runtime makes each cudaLaunchKernel's
# work a cuLaunchKernel of the host stub, which no look-up named and the driver cannot
# name (no kernel_name), as before.
want = [("cudaLaunchKernel", "scale3(int*, int)"), ("cudaLaunchKernel", "last_one(int*, int)"),
        ("cudaLaunchKernel", "add5(int*, int)"), ("cudaLaunchKernel", "scale3(int*, int)")]
rt = [g for g in got if g[0] == "cudaLaunchKernel"]
check(rt == want, f"each runtime launch names its kernel: {rt}")
drv = [g for g in got if g[0] == "cuLaunchKernel" and g[1] is not None]
check(drv == [("cuLaunchKernel", "add_one(int*, int)")] * 2,
      f"the driver launches of the looked-up handle name it: {drv}")
check(len([g for g in got if g[0] == "cuLaunchKernel"]) == 6, f"6 driver launches: {got}")
check(all(k is None or "unused" not in k for _, k in got), "no launch shows a kernel it did not launch")
c, got = launches(sys.argv[2])
check([g for g in got if g[1] is not None] == [("cuLaunchKernel", "add_one(int*, int)"),
                                               ("cudaLaunchKernel", "add5(int*, int)")],
      f"the forked child's launches are named in its own region: {got}")
sys.exit(1 if fails else 0)
PY
  rc=$?
  cat check.txt
  [ $rc = 0 ] && pass "ps --json names every launched kernel" || fail "ps --json: $(grep -c FAIL check.txt) failed"
  n=$(grep -cE '^    cudaLaunchKernel\(func=0x[0-9a-f]+, .*kernel_name="(scale3|add5|last_one)\(int\*, int\)"\) -> cudaSuccess' ps_$pid.txt)
  [ "$n" = 4 ] && pass "the text history names the 4 runtime launches" ||
    fail "text: $n of 4 named: $(grep cudaLaunchKernel ps_$pid.txt | head -4)"
  n=$(grep -cE '^    cuLaunchKernel\(f=0x[0-9a-f]+, .*kernel_name="add_one\(int\*, int\)"\) -> CUDA_SUCCESS' ps_$pid.txt)
  [ "$n" = 2 ] && pass "the text history names the 2 driver launches" ||
    fail "text: $n of 2 driver launches named: $(grep cuLaunchKernel ps_$pid.txt | head -3)"
  grep -q "found no room" ps_$pid.txt && fail "a name found no room: $(grep 'no room' ps_$pid.txt)" ||
    pass "no name found no room"
  ;;
live_ps_counts_each_launched_kernel_whose_name_found_no_room)
  # 1,500 kernels launched (of 5,000 registered) for a table of 1,024 entries: the count of
  # names that found no room is the number of launches shown without a name, each name
  # shown is its own launch's; past 16,384 launched kernels the count is a lower bound.
  for run in "5000 1500 exact" "17000 17000 bound"; do
    set -- $run
    HOLD="$dir/hold"
    touch "$HOLD"
    rm -f "$dir/r1"
    rm -rf "$L"
    env $(live_env) CUAUDIT_LIVE_CALLS=4096 "$PROG" many "$dir/r1" $1 $2 "$HOLD" >out.txt 2>err.txt &
    pid=$!
    for _ in $(seq 3000); do [ -e "$dir/r1" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.02; done
    [ -e "$dir/r1" ] || { rm -f "$HOLD"; fail "$3: the program did not get ready: $(cat err.txt)"; continue; }
    timeout 60 "$CLI" ps --dir "$L" --json --last 4096 "$pid" >ps.json 2>ps.err || fail "$3: ps --json: $(cat ps.err)"
    timeout 60 "$CLI" ps --dir "$L" --last 1 "$pid" >ps.txt 2>&1 || fail "$3: ps: $(cat ps.txt)"
    rm -f "$HOLD"
    wait $pid; rc=$?
    [ $rc = 0 ] && pass "$3: the program exits 0" || fail "$3: the program exited $rc: $(head -3 err.txt)"
    "$PYTHON" - ps.json ps.txt $2 $3 <<'PY' >check.txt 2>&1
import json, re, sys
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
p = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
n, mode = int(sys.argv[3]), sys.argv[4]
calls = [c for th in p["threads"] for c in th["last_calls"]]
rt = [c.get("kernel") for c in calls if c["name"] == "cudaLaunchKernel"][::-1]
m = re.search(r"^note: (at least )?(\d+) launched kernel\(s\) found no room", text, re.M)
if mode == "exact":
    # Every launch is in the history (2 records each, 4,096 kept): launch i launched kernel i.
    check(len(rt) == n, f"{len(rt)} of {n} launches in the history")
    wrong = [(i, k) for i, k in enumerate(rt) if k is not None and k != f"void unused<{i}>()"]
    check(not wrong, f"each name shown is its own launch's: {wrong[:3]}")
    unnamed = sum(k is None for k in rt)
    check(1000 <= n - unnamed <= 1024, f"{n - unnamed} names kept in a table of 1,024")
    check(m is not None and not m.group(1) and int(m.group(2)) == unnamed,
          f"the count of names without room is the launches shown unnamed, {unnamed}: {m and m.group(0)}")
else:
    # 16,384 keys kept: the ones past them are no longer counted.
    check(m is not None and m.group(1) == "at least " and n - 16384 - 1024 <= int(m.group(2)) <= n - 1000,
          f"a lower bound, said as such: {m and m.group(0)}")
    wrong = [k for k in rt if k is not None and not re.fullmatch(r"void unused<\d+>\(\)", k)]
    check(not wrong, f"only registered names shown: {wrong[:3]}")
sys.exit(1 if fails else 0)
PY
    rc=$?
    cat check.txt
    [ $rc = 0 ] && pass "$3: names kept and names without room counted" || fail "$3: $(grep -c FAIL check.txt) failed"
  done
  ;;
esac
finish
