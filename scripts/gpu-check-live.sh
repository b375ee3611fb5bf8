#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-live.sh: on a GPU machine, a PyTorch process hung on purpose in a synchronisation shows its blocking call in `cuaudit ps` (running, then after SIGKILL), and `cuaudit ctl` starts and stops its trace.
# Usage: scripts/gpu-check-live.sh   (no arguments; needs a CUDA driver, cmake, and python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-live
rm -rf "$R"
mkdir -p "$R"
AUDIT=$B/libcuaudit.so
CLI=$B/cuaudit
L=$R/live
rows=()
passed=0
failed=0

record() { # NAME DETAIL VERDICT
  rows+=("$(printf '%-34s %-8s %s' "$1" "$3" "$2")")
  if [ "$3" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
finish() {
  echo
  printf '%-34s %-8s %s\n' check verdict detail
  for r in "${rows[@]}"; do echo "$r"; done
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit $?
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/gpu, driver: /'
  echo "python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1 | tail -1)"
} | tee "$R/versions.txt"

# ---------------------------------------------------------------- build (reused when there)
if [ ! -x "$CLI" ] || [ ! -f "$AUDIT" ] || ! "$CLI" ps --help >/dev/null 2>&1; then
  cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; record build "see $R/build.log" FAIL; finish; }
fi
python3 -c 'import torch; assert torch.cuda.is_available()' 2>"$R/torch.err" || { record torch "$(tail -1 "$R/torch.err")" FAIL; finish; }

# The workload: phase 1 (7 synchronisations) with the trace off; `cuaudit ctl` starts it;
# phase 2 (50 synchronisations and some matmuls); ctl stops it; then a kernel that spins for
# HANG seconds and torch.cuda.synchronize() waits for it: the hung call.
cat >"$R/hang.py" <<'PY'
import os, sys, time, torch
r, hang = sys.argv[1], float(sys.argv[2])
def wait(name):
    while not os.path.exists(os.path.join(r, name)):
        time.sleep(0.01)
x = torch.randn(512, 512, device="cuda")
# Cycles per second of torch.cuda._sleep, measured.
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record(); torch.cuda._sleep(50_000_000); e.record(); e.synchronize()
rate = 50_000_000 / (s.elapsed_time(e) / 1000)
for _ in range(7):
    torch.cuda.synchronize()
print("phase1", flush=True)
wait("go1")
for _ in range(50):
    y = x @ x
    torch.cuda.synchronize()
print("phase2", flush=True)
wait("go2")
torch.cuda._sleep(int(rate * hang))
print("syncing", flush=True)
torch.cuda.synchronize()
print("done", y.sum().item() != 0, flush=True)
PY

wait_out() { # FILE TEXT SECONDS
  for _ in $(seq $(( ${3:-120} * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
SYNC_RE='(cudaDeviceSynchronize|cudaStreamSynchronize|cuCtxSynchronize|cuStreamSynchronize|cuEventSynchronize)'

# ---------------------------------------------------------------- A: running, ctl, normal exit
env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" \
  CUAUDIT_TRACE="$R/trace.%p.json" CUAUDIT_CAPTURE=ctl python3 "$R/hang.py" "$R" 20 >"$R/a.out" 2>"$R/a.err" &
pid=$!
if wait_out "$R/a.out" phase1 180; then
  "$CLI" ctl --dir "$L" $pid trace start >"$R/ctl1.txt" 2>&1 && record "ctl trace start" "$(cat "$R/ctl1.txt")" pass ||
    record "ctl trace start" "$(cat "$R/ctl1.txt")" FAIL
  touch "$R/go1"
  wait_out "$R/a.out" phase2 120
  "$CLI" ctl --dir "$L" $pid trace stop >"$R/ctl2.txt" 2>&1 && record "ctl trace stop" "$(cat "$R/ctl2.txt")" pass ||
    record "ctl trace stop" "$(cat "$R/ctl2.txt")" FAIL
  touch "$R/go2"
  wait_out "$R/a.out" syncing 60
  sleep 3
  "$CLI" ps --dir "$L" $pid >"$R/ps_a.txt" 2>&1
  line=$(grep -E "in flight: $SYNC_RE" "$R/ps_a.txt" | head -1)
  if [ -n "$line" ] && grep -qE "in flight: $SYNC_RE.* for [0-9.]+s$" "$R/ps_a.txt"; then
    record "ps PID shows the blocking call" "$(echo "$line" | sed 's/^ *//' | cut -c1-90)" pass
  else
    record "ps PID shows the blocking call" "see $R/ps_a.txt" FAIL
  fi
  "$CLI" ps --dir "$L" >"$R/ps_list.txt" 2>&1
  grep -qE "^$pid +running .*$SYNC_RE" "$R/ps_list.txt" && record "ps lists it with the call" "$(grep -E "^$pid" "$R/ps_list.txt" | cut -c1-90)" pass ||
    record "ps lists it with the call" "see $R/ps_list.txt" FAIL
  "$CLI" ps --dir "$L" --json $pid >"$R/ps_a.json" 2>&1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(a["calls"] for a in d["apis"]), "calls;", d["memory"])' "$R/ps_a.json" >"$R/json.txt" 2>&1 &&
    record "ps --json" "$(cat "$R/json.txt" | cut -c1-90)" pass || record "ps --json" "$(tail -1 "$R/json.txt")" FAIL
  wait $pid; rc=$?
  [ $rc = 0 ] && grep -q 'done True' "$R/a.out" && record "hung process ends normally" "status 0 after the kernel" pass ||
    record "hung process ends normally" "status $rc: $(tail -2 "$R/a.err")" FAIL
  ls "$L" | grep -q "^$pid-" && record "exit removes its file" "$(ls "$L")" FAIL ||
    record "exit removes its file" "none left" pass
  t=$R/trace.$pid.json
  n=$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
print(sum(1 for e in ev if e["name"] == "cudaDeviceSynchronize"), len(ev))' "$t" 2>"$R/trace.err")
  [ "${n%% *}" = 50 ] && record "trace holds only the ctl window" "cudaDeviceSynchronize=50 (7 before, 1 after), events=${n##* }" pass ||
    record "trace holds only the ctl window" "cudaDeviceSynchronize/events: '${n:-none}' $(tail -1 "$R/trace.err")" FAIL
else
  record "workload A starts" "$(tail -3 "$R/a.err")" FAIL
  kill -9 $pid 2>/dev/null
fi

# ---------------------------------------------------------------- B: SIGSTOP, then SIGKILL (post-mortem)
rm -f "$R/go1" "$R/go2"
touch "$R/go1" "$R/go2"
env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" python3 "$R/hang.py" "$R" 120 >"$R/b.out" 2>"$R/b.err" &
pid=$!
if wait_out "$R/b.out" syncing 180; then
  sleep 2
  kill -STOP $pid
  "$CLI" ps --dir "$L" $pid >"$R/ps_b_stop.txt" 2>&1
  grep -q "(stopped)" "$R/ps_b_stop.txt" && grep -qE "in flight: $SYNC_RE" "$R/ps_b_stop.txt" &&
    record "stopped: the call is shown" "$(grep -E "in flight" "$R/ps_b_stop.txt" | head -1 | sed 's/^ *//' | cut -c1-90)" pass ||
    record "stopped: the call is shown" "see $R/ps_b_stop.txt" FAIL
  kill -KILL $pid; wait $pid 2>/dev/null
  "$CLI" ps --dir "$L" $pid >"$R/ps_b.txt" 2>&1
  grep -q "(dead)" "$R/ps_b.txt" && grep -qE "in flight: $SYNC_RE" "$R/ps_b.txt" &&
    record "after SIGKILL: dead, call shown" "$(grep -E "in flight" "$R/ps_b.txt" | head -1 | sed 's/^ *//' | cut -c1-90)" pass ||
    record "after SIGKILL: dead, call shown" "see $R/ps_b.txt" FAIL
  "$CLI" ps --dir "$L" --clean >"$R/clean.txt" 2>&1
  ls "$L" | grep -q "^$pid-" && record "ps --clean" "$(ls "$L")" FAIL || record "ps --clean" "$(head -1 "$R/clean.txt" | cut -c1-90)" pass
else
  record "workload B starts" "$(tail -3 "$R/b.err")" FAIL
  kill -9 $pid 2>/dev/null
fi
finish
