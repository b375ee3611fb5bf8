#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-tracering.sh: on a GPU machine, the trace of a PyTorch process holds every call the exact summary counted, with the live view on (the calls kept in the view's ring records, whole records where they do not fit) as without it, and a raw file a SIGKILL left converts.
# Usage: scripts/gpu-check-tracering.sh   (no arguments; needs a CUDA driver, cmake, and python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-tracering
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

# A small training loop on two threads (a data thread copies batches in): some thousands
# of driver and runtime calls, nested ones among them, several rings' worth per thread.
cat >"$R/work.py" <<'PY'
import os, sys, threading, time, torch
r, steps = sys.argv[1], int(sys.argv[2])
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def loader(out):
    torch.cuda.set_device(0)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(steps):
            out.append(torch.randn(64, 256).pin_memory().cuda(non_blocking=True))
    s.synchronize()
batches = []
t = threading.Thread(target=loader, args=(batches,))
t.start(); t.join()
for i, x in enumerate(batches):
    loss = model(x).square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if i == steps // 2:
        torch.cuda.synchronize()
        open(os.path.join(r, "half"), "w").close()
        if len(sys.argv) > 3:
            time.sleep(float(sys.argv[3]))   # the kill comes here
torch.cuda.synchronize()
print("steps", len(batches))
PY

run() { # NAME VAR=VALUE... : the loop under cuaudit with the trace and the exact summary
  local name=$1
  shift
  env LD_AUDIT="$B/libcuaudit.so" CUAUDIT_LOG=warn CUAUDIT_TRACE="$R/$name.json" \
    CUAUDIT_SUMMARY="$R/$name.sum.json" CUAUDIT_SUMMARY_SAMPLE=0 "$@" \
    python3 "$R/work.py" "$R" 400 >"$R/$name.out" 2>"$R/$name.err"
  echo $? >"$R/$name.rc"
}
run alone
run view CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L"
run view16 CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" CUAUDIT_LIVE_CALLS=16
run view4096 CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" CUAUDIT_LIVE_CALLS=4096

# Killed at the loop's middle, after a flush interval has passed: the raw file converts.
rm -f "$R/half"
env LD_AUDIT="$B/libcuaudit.so" CUAUDIT_LOG=warn CUAUDIT_TRACE="$R/killed.json" CUAUDIT_LIVE=1 \
  CUAUDIT_LIVE_DIR="$L" CUAUDIT_FLUSH_INTERVAL=100ms python3 "$R/work.py" "$R" 400 3 >"$R/killed.out" 2>"$R/killed.err" &
pid=$!
for _ in $(seq 3000); do [ -e "$R/half" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.02; done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
raw=$(ls "$R"/killed.json.*.raw 2>/dev/null | head -1)
if [ -n "$raw" ]; then
  "$B/cuaudit" trace -o "$R/killed.conv.json" "$raw" >"$R/killed.conv.out" 2>&1
  echo $? >"$R/killed.conv.rc"
else
  echo none >"$R/killed.conv.rc"
fi

python3 - "$R" <<'PY' >"$R/table.txt" 2>&1
import collections, json, os, sys
r = sys.argv[1]
rows = []
def row(check, ok, detail):
    rows.append((check, "pass" if ok else "FAIL", detail))
def counts(path):
    n = collections.Counter()
    for e in json.load(open(path))["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in ("driver", "runtime"):
            n[e["name"]] += 1
    return n
for name in ("alone", "view", "view16", "view4096"):
    rc = open(os.path.join(r, name + ".rc")).read().strip()
    try:
        tr = counts(os.path.join(r, name + ".json"))
        su = collections.Counter()
        for a in json.load(open(os.path.join(r, name + ".sum.json")))["apis"]:
            su[a["name"]] += a["calls"]
    except Exception as e:
        row(name + ": outputs", False, str(e)[:80])
        continue
    diff = {k: (tr[k], su[k]) for k in set(tr) | set(su) if tr[k] != su[k]}
    lost = [l for l in open(os.path.join(r, name + ".err")) if "not recorded" in l]
    row(name + ": exits 0", rc == "0", "rc " + rc)
    row(name + ": trace = summary per API", not diff and sum(tr.values()) > 2000,
        "%d calls, %d APIs%s" % (sum(tr.values()), len(tr), (", differ: " + str(sorted(diff.items())[:3])) if diff else ""))
    row(name + ": nothing said lost", not lost, lost[0].strip()[:80] if lost else "")
try:
    a, v = counts(os.path.join(r, "alone.json")), counts(os.path.join(r, "view.json"))
    row("same APIs with and without the view", set(a) == set(v), "%d / %d APIs" % (len(a), len(v)))
except Exception as e:
    row("same APIs with and without the view", False, str(e)[:80])
rc = open(os.path.join(r, "killed.conv.rc")).read().strip()
try:
    k = counts(os.path.join(r, "killed.conv.json"))
    row("killed: raw file converts", rc == "0" and sum(k.values()) > 500, "rc %s, %d calls" % (rc, sum(k.values())))
except Exception as e:
    row("killed: raw file converts", False, "rc %s %s" % (rc, str(e)[:60]))
print("%-42s %-6s %s" % ("check", "verdict", "detail"))
for c, v, d in rows:
    print("%-42s %-6s %s" % (c, v, d))
print("%d passed, %d failed" % (sum(v == "pass" for _, v, _ in rows), sum(v != "pass" for _, v, _ in rows)))
PY
cat "$R/table.txt"
grep -q ' 0 failed$' "$R/table.txt"
