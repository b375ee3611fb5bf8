#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-livegpu.sh: on a GPU machine, the GPU times `cuaudit ps` shows on a PyTorch process's recent launches are the trace's GPU times of the same kernels, exact or bounded alike.
# Usage: scripts/gpu-check-livegpu.sh   (no arguments; needs a CUDA driver, cmake, and python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-livegpu
rm -rf "$R"
mkdir -p "$R"
L=$R/live
mkdir -m 700 "$L"
source "$ROOT/scripts/gpu-lib.sh"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/gpu, driver: /'
  echo "python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1 | tail -1)"
} | tee "$R/versions.txt"
gpu_build "$ROOT" "$B" "$R/build.log" cuaudit cuaudit_cli || { tail -30 "$R/build.log"; echo "build failed"; exit 1; }

# Two kernels of different lengths, queued (exact) and after idle gaps (bounded), then
# ready: the view is read while the process waits.
cat >"$R/work.py" <<'PY'
import os, sys, time, torch
r = sys.argv[1]
a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
for i in range(60):
    c = a @ b                # about 0.1 ms, queued behind the one before
    d = a + 1.0              # a few microseconds
    if i % 10 == 9:
        torch.cuda.synchronize()
        time.sleep(0.002)    # the next launch finds the stream idle: bounded
torch.cuda.synchronize()
for i in range(24):          # harvests what the loop left (every 8 timed calls)
    d = a + 2.0
torch.cuda.synchronize()
open(os.path.join(r, "ready"), "w").close()
t0 = time.time()
while not os.path.exists(os.path.join(r, "go")) and time.time() - t0 < 60:
    time.sleep(0.01)
PY

LD_AUDIT="$B/libcuaudit.so" CUAUDIT_GPU_TIME=on CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" CUAUDIT_LIVE_CALLS=4096 \
  CUAUDIT_TRACE="$R/trace.json" CUAUDIT_LOG=warn python3 "$R/work.py" "$R" >"$R/work.out" 2>"$R/work.err" &
pid=$!
for _ in $(seq 3000); do [ -e "$R/ready" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.02; done
"$B/cuaudit" ps --dir "$L" --json --last 4096 "$pid" >"$R/ps.json" 2>"$R/ps.err"
ps_rc=$?
"$B/cuaudit" ps --dir "$L" --last 40 "$pid" >"$R/ps.txt" 2>&1
touch "$R/go"
wait $pid
rc=$?

python3 - "$R/ps.json" "$R/trace.json" "$rc" "$ps_rc" <<'PY' >"$R/table.txt" 2>&1
import collections, json, sys
rows = []
def row(check, ok, detail):
    rows.append((check, "pass" if ok else "FAIL", detail))
row("program exits 0", sys.argv[3] == "0", "rc " + sys.argv[3])
row("ps --json", sys.argv[4] == "0", "rc " + sys.argv[4])
try:
    ps = json.load(open(sys.argv[1]))
    tr = json.load(open(sys.argv[2]))["traceEvents"]
except Exception as e:
    row("outputs readable", False, str(e)[:80])
    ps, tr = {"threads": []}, []
# The trace's GPU slices by kernel name: exact durations (ns, rounded as printed) and bounds.
exact, bound = collections.defaultdict(list), collections.defaultdict(list)
for e in tr:
    if e.get("cat") == "gpu" and e.get("ph") == "X" and e["args"].get("op") == "kernel":
        name = e["name"]
        (exact if e["args"].get("exact") else bound)[name].append(round(e["dur"] * 1000))
shown = timed_exact = timed_bound = wrong = 0
every_exact = [d for v in exact.values() for d in v]
every_bound = [d for v in bound.values() for d in v]
for th in ps["threads"]:
    for c in th["last_calls"]:
        # The launches GPU timing times: the program's own (depth 0).
        if c["depth"] != 0 or "aunchKernel" not in c["name"]:
            continue
        shown += 1
        # By kernel name where the view has it (its name table may be full: then against
        # every kernel); the view's table cuts long names, compared by their start.
        name = c.get("kernel")
        if name is not None and name not in exact and name not in bound:
            name = next((n for n in list(exact) + list(bound) if n.startswith(name[:80])), name)
        if "gpu_ns" in c:
            timed_exact += 1
            if not any(abs(c["gpu_ns"] - d) <= 1 for d in (exact.get(name, []) if name else every_exact)):
                wrong += 1
        elif "gpu_ns_max" in c:
            timed_bound += 1
            if not any(abs(c["gpu_ns_max"] - d) <= 1 for d in (bound.get(name, []) if name else every_bound)):
                wrong += 1
# Call by call: the trace's kernel slices in call order (correlation ids grow with the
# thread's calls) end with the launches the view holds, so the k-th from the end is the
# same launch in both; each time the view shows must be that slice's.
order = sorted((e for e in tr if e.get("cat") == "gpu" and e.get("ph") == "X" and
                e["args"].get("op") == "kernel"), key=lambda e: e["args"]["correlation"])
mine = [c for th in ps["threads"] for c in reversed(th["last_calls"])
        if c["depth"] == 0 and "aunchKernel" in c["name"]]
mism = same = 0
for c, e in zip(reversed(mine), reversed(order)):
    v = c.get("gpu_ns", c.get("gpu_ns_max"))
    if v is None:
        continue
    ok = abs(v - round(e["dur"] * 1000)) <= 1 and ("gpu_ns" in c) == bool(e["args"].get("exact"))
    same += ok
    mism += not ok
row("the same launch's slice", mism == 0 and same > 0 and len(order) >= len(mine),
    f"{same} equal to the slice of the same call, {mism} not ({len(order)} slices)")
row("launches in the history", shown >= 100, f"{shown} at depth 0")
# PyTorch registers some 20,000 kernels: the view names the ones launched (at their first
# launch), whatever the number registered.
named = sum(1 for c in mine if c.get("kernel"))
row("launches named", shown > 0 and named == len(mine), f"{named} of {len(mine)} with a kernel name")
row("with a GPU time", timed_exact + timed_bound >= shown // 2,
    f"{timed_exact} exact, {timed_bound} bounded of {shown}")
row("each one the trace's", wrong == 0 and timed_exact > 0,
    f"{wrong} not among the trace's slices of the same kernel and kind")
print()
print(f"{'check':28} {'verdict':8} detail")
for r in rows:
    print(f"{r[0]:28} {r[1]:8} {r[2]}")
fails = sum(r[1] != "pass" for r in rows)
print(f"{len(rows) - fails} passed, {fails} failed")
sys.exit(1 if fails else 0)
PY
verdict=$?
cat "$R/table.txt"
exit $verdict
