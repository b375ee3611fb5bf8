#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-startup.sh: on a GPU machine, how much cuaudit adds to the start of a short CUDA
# program: the child numba-cuda's IPC tests spawn (Python, `from numba import cuda`, a
# context, a 10-element copy there and back), natively, under LD_AUDIT with no hook, under each
# hook alone and under all of them, RUNS times each in turns (one run of each configuration a
# round), one at a time. Prints the median wall, user and system seconds of each and its
# ratio to native. Usage: scripts/gpu-startup.sh   (environment: RUNS=7, OLD=tree.tgz: the
# same for that tree's module, as old-CONFIG)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/gpu-lib.sh"
B=${GPU_BUILD_DIR:-$ROOT/build-startup}
R=$B/out
rm -rf "$R"
mkdir -p "$R"
RUNS=${RUNS:-7}
gpu_build "$ROOT" "$B" "$R/build.log" cuaudit || { tail -20 "$R/build.log"; echo "build failed"; exit 1; }
audits=("new=$B/libcuaudit.so")
if [ -n "${OLD:-}" ]; then
  mkdir -p "$B/old-src" && tar xzf "$OLD" -C "$B/old-src" && cp -r "$ROOT/zydis-debs" "$B/old-src/" 2>/dev/null
  if gpu_build "$B/old-src" "$B/old" "$R/old-build.log" cuaudit; then
    audits+=("old=$B/old/libcuaudit.so")
  else
    tail -20 "$R/old-build.log"
    echo "build of OLD failed"
  fi
fi
mkdir -p "$R/site"
cat >"$R/site/sitecustomize.py" <<'PY'
import numpy
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack
PY
cat >"$R/child.py" <<'PY'
import numpy as np
from numba import cuda
a = cuda.to_device(np.arange(10))
assert (a.copy_to_host() == np.arange(10)).all()
PY
PYTHONPATH="$R/site" python3 - "$R" "$RUNS" "${audits[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time
r, runs, audits = sys.argv[1], int(sys.argv[2]), dict(a.split("=", 1) for a in sys.argv[3:])
def env_of(audit, hooks, d):
    e = dict(os.environ)
    if audit is None:
        return e
    e["LD_AUDIT"] = audit
    live = os.path.join(d, "live")
    os.makedirs(live, mode=0o700, exist_ok=True)
    os.chmod(live, 0o700)
    every = {
        "log": {"CUAUDIT_LOG": "verbose", "CUAUDIT_LOG_FILE": f"{d}/log.%p"},
        "summary": {"CUAUDIT_SUMMARY": f"{d}/summary.%p.json"},
        "trace": {"CUAUDIT_TRACE": f"{d}/trace.%p.json"},
        "metrics": {"CUAUDIT_METRICS": f"{d}/metrics.%p.prom"},
        "live": {"CUAUDIT_LIVE": "1", "CUAUDIT_LIVE_DIR": live},
        "gpu": {"CUAUDIT_GPU_TIME": "on", "CUAUDIT_SUMMARY": f"{d}/summary.%p.json"},
        "static": {"CUAUDIT_STATIC_RUNTIME": "1"},
    }
    for h in hooks:
        e.update(every[h])
    return e
configs = [("native", None, [])]
for tree, audit in audits.items():
    p = "" if tree == "new" else "old-"
    configs += [(p + "audit", audit, [])] + [(p + h, audit, [h]) for h in
                ("log", "summary", "trace", "metrics", "live", "gpu", "static")]
    configs.append((p + "all", audit, ["log", "summary", "trace", "metrics", "live", "gpu", "static"]))
res = {c[0]: [] for c in configs}
bad = []
for i in range(runs):
    for name, audit, hooks in configs:
        d = os.path.join(r, name)
        os.makedirs(d, exist_ok=True)
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, os.path.join(r, "child.py")], env=env_of(audit, hooks, d),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t = time.perf_counter() - t0
        u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        errs = [l for l in p.stderr.splitlines() if l.startswith("cuaudit:") and ("not valid" in l or "error" in l)]
        if p.returncode != 0 or errs:
            bad.append(f"{name} run {i}: status {p.returncode} {p.stderr.strip()[-300:]}")
        res[name].append((t, u1.ru_utime - u0.ru_utime, u1.ru_stime - u0.ru_stime))
base = statistics.median(x[0] for x in res["native"])
print()
print(f"{'config':<14} {'wall s':>7} {'user s':>7} {'sys s':>7} {'x native':>8}   (median of {runs})")
for name, _, _ in configs:
    w = statistics.median(x[0] for x in res[name])
    u = statistics.median(x[1] for x in res[name])
    s = statistics.median(x[2] for x in res[name])
    print(f"{name:<14} {w:7.3f} {u:7.3f} {s:7.3f} {w / base:8.2f}")
for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
PY
