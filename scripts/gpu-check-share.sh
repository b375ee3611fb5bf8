#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-share.sh: on a GPU machine, a compute share per group (issue 40): two compute-bound PyTorch processes in two groups on one GPU, each group's achieved share from its own throughput against its solo run and, as a cross-check, from CUPTI's kernel times (tests/gpu/cupti_busy.c; NVML's sampled per-process SM % from nvidia-smi pmon shown beside, not judged) (caps 30/70, 10/90, 50/50, CUDA graphs, a launch-then-synchronise loop, share mode, kill -9). Prints a table last.
# Usage: scripts/gpu-check-share.sh [SECONDS]   (each pair's, share mode's and kill's loop, 30 by default as the issue asks;
#   needs a GPU, cmake, a C compiler, python3 with torch). Solo rates and the 100% cap run SOLO_S seconds (5: a rate
#   from 1 s to the end, steady from the first second). PHASES="solo pairs cap100 share kill" (the default: all, in
#   that order), PAIRS (cap30_70 cap50_50 graph sync cap10_90 by default, in that order), SOLO_MODES pick runs
#   (cap100 runs each of mm and sync that had a solo run);
#   SHARE_S and KILL_S (SECONDS by default) are share mode's and the kill run's loops;
#   BUDGET_S=N skips (never passes) a run that would end past N s of the script, so the table always prints;
#   GPU_PREBUILT=DIR uses DIR's libcuaudit.so and cuaudit (and DIR/zydis, where libZydis is) instead of building.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu-share}
R=$B/out-share
D=${1:-30}
SOLO_S=${SOLO_S:-5}
SHARE_S=${SHARE_S:-$D}
KILL_S=${KILL_S:-$D}
rm -rf "$R"
mkdir -p "$R/share"
AUDIT=$B/libcuaudit.so
CLI=$B/cuaudit
SHARE=$R/share
rows=()
passed=0
failed=0
export OMP_NUM_THREADS=1
unset LD_AUDIT $(compgen -v CUAUDIT_)

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1
  echo "loop: $D s (solo and cap100: $SOLO_S s, share mode: $SHARE_S s, kill: $KILL_S s)"
} | tee "$R/versions.txt"

record() { # NAME CHECK VERDICT (pass, FAIL, skip or info: neither a skip nor an info is counted as a pass)
  rows+=("$(printf '%-10s %-80s %s' "$1" "$2" "$3")")
  case $3 in pass) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; esac
}
finish() {
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  echo
  printf '%-10s %-80s %s\n' run check result
  printf '%s\n' "${rows[@]}"
  echo "$passed passed, $failed failed"
  [ $failed -eq 0 ]
  exit $?
}

# ---------------------------------------------------------------- build (scripts/gpu-lib.sh)
PHASES=${PHASES:-solo pairs cap100 share kill}
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# room NAME SECONDS: whether a run of about SECONDS still fits BUDGET_S (the script's own
# limit, so that its table always prints inside the caller's timeout); else a skip row.
room() {
  [ -z "${BUDGET_S:-}" ] || [ $((SECONDS + $2)) -le "$BUDGET_S" ] && return 0
  record "$1" "not run: ${2} s more would pass BUDGET_S=$BUDGET_S (at ${SECONDS} s)" skip
  return 1
}
if [ -n "${GPU_PREBUILT:-}" ]; then
  AUDIT=$GPU_PREBUILT/libcuaudit.so CLI=$GPU_PREBUILT/cuaudit
  export LD_LIBRARY_PATH=$GPU_PREBUILT/zydis${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  "$CLI" --version >"$R/build.log" 2>&1 || { cat "$R/build.log"; record build "prebuilt $CLI runs" FAIL; finish; }
else
  source "$ROOT/scripts/gpu-lib.sh"
  gpu_build "$ROOT" "$B" "$R/build.log" cuaudit cuaudit_cli ||
    { tail -30 "$R/build.log"; record build "cmake --build" FAIL; finish; }
  tail -1 "$R/build.log"
fi

# The cross-check from outside, CUPTI: tests/gpu/cupti_busy.c, loaded by the driver into each
# pair's workers (CUDA_INJECTION64_PATH), writes each kernel's GPU time; a machine without
# CUPTI's header and library gives a skip row, never a pass.
CUPTI_SO=""
cupti_h=$(ls /usr/local/cuda/include/cupti.h /usr/local/cuda/extras/CUPTI/include/cupti.h \
  /usr/local/cuda*/targets/*/include/cupti.h 2>/dev/null | head -1)
cupti_l=$(ls /usr/local/cuda/lib64/libcupti.so /usr/local/cuda/lib/libcupti.so \
  /usr/local/cuda/extras/CUPTI/lib64/libcupti.so /usr/local/cuda*/targets/*/lib/libcupti.so 2>/dev/null | head -1)
if [ -n "$cupti_h" ] && [ -n "$cupti_l" ] &&
  cc -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC -I"$(dirname "$cupti_h")" -o "$R/cupti_busy.so" \
    "$ROOT/tests/gpu/cupti_busy.c" -L"$(dirname "$cupti_l")" -lcupti -Wl,-rpath,"$(dirname "$cupti_l")" \
    >"$R/cupti_build.log" 2>&1; then
  CUPTI_SO=$R/cupti_busy.so
else
  echo "no CUPTI cross-check: header '$cupti_h', library '$cupti_l', build: $(tail -1 "$R/cupti_build.log" 2>/dev/null)"
fi

# The worker: MODE mm (10 fp32 4096x4096 matmuls, then a synchronise: a training step), graph
# (the same 10 captured in a torch.cuda.CUDAGraph, replayed) or sync (one matmul, then a
# synchronise). Warms up, says "ready", waits for GO, then for SECONDS writes "t steps" after
# every step to OUT.
cat >"$R/worker.py" <<'PY'
import os, sys, time
import torch
mode, secs, go, out = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
c = torch.empty(4096, 4096, device="cuda")
def step():
    for _ in range(10):
        torch.matmul(a, b, out=c)
if mode == "graph":
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step()
    run = g.replay
elif mode == "sync":
    run = lambda: torch.matmul(a, b, out=c)
else:
    run = step
for _ in range(3):
    run()
    torch.cuda.synchronize()
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.005)
t0 = time.time()
n = 0
with open(out, "w") as f:
    while time.time() - t0 < secs:
        run()
        torch.cuda.synchronize()
        n += 1
        f.write(f"{time.time() - t0:.4f} {n}\n")
        f.flush()
PY
# rate FILE FROM TO: steps per second between FROM and TO seconds after GO.
rate() {
  python3 - "$@" <<'PY'
import sys
f, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
pts = [tuple(map(float, l.split())) for l in open(f) if len(l.split()) == 2]
a = [p for p in pts if p[0] >= lo]
b = [p for p in pts if p[0] <= hi]
if not a or not b or b[-1][0] <= a[0][0]:
    print(0); sys.exit()
print("%.3f" % ((b[-1][1] - a[0][1]) / (b[-1][0] - a[0][0])))
PY
}
pct() { python3 -c "print(round(100 * $1 / $2, 1) if $2 else 0)"; }
# positive X: X is a number above 0 (a measured fraction, not -1 or empty).
positive() { python3 -c "import sys; sys.exit(0 if float('${1:--1}') > 0 else 1)" 2>/dev/null; }
within() { python3 -c "import sys; sys.exit(0 if abs($1 - $2) <= $3 else 1)"; }
# busy FILE FROM TO: CUPTI's kernel time of one worker (its .busy file) in percent of the
# wall time between FROM and TO seconds after GO (the 10 ms buckets wholly inside), or
# "-1 why" where the file is missing, empty, or dropped records.
busy() {
  python3 - "$1" "$(cat "$R/go.time")" "$2" "$3" <<'PY'
import sys
f, go, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
w0, w1 = int((go + lo) * 1e9), int((go + hi) * 1e9)
try:
    lines = open(f).read().split("\n")
    base, width, kernels, dropped, status = lines[0].split()
    base, width = int(base), int(width)
    if status != "ok" or int(kernels) == 0 or int(dropped) != 0:
        print(-1, "%s: %s, %s kernels, %s dropped" % (f.rsplit("/", 1)[-1], status, kernels, dropped))
        sys.exit()
    b0, b1 = -((base - w0) // width), (w1 - base) // width  # the buckets wholly inside
    t = sum(ns for b, ns in (map(int, l.split()) for l in lines[1:] if l) if b0 <= b < b1)
    print("%.1f -" % (100.0 * t / ((b1 - b0) * width)))
except (OSError, ValueError) as e:
    print(-1, "%s: %s" % (f.rsplit("/", 1)[-1], e))
PY
}
wait_ready() { for _ in $(seq 1200); do grep -q '^ready' "$R/$1.out" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# start NAME MODE SECONDS [LIMIT GROUP]: a worker, under cuaudit with a compute limit if LIMIT.
start() {
  local -a pre=()
  [ -n "${4:-}" ] && pre=(env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_SHARE_DIR="$SHARE"
    CUAUDIT_COMPUTE_LIMIT="$4" CUAUDIT_MEM_GROUP="$5" CUAUDIT_SUMMARY="$R/$1.summary.json")
  # CUPTI in every run with a limit and in the solo runs (the cross-check's denominator).
  if [ -n "$CUPTI_SO" ] && { [ -n "${4:-}" ] || [ "${1#solo_}" != "$1" ]; }; then
    mkdir -p "$R/$1.cupti"
    [ ${#pre[@]} -eq 0 ] && pre=(env)
    pre+=(CUDA_INJECTION64_PATH="$CUPTI_SO" CUPTI_BUSY_DIR="$R/$1.cupti")
  fi
  rm -f "$R/$1.rate"
  "${pre[@]}" python3 "$R/worker.py" "$2" "$3" "$R/go" "$R/$1.rate" >"$R/$1.out" 2>"$R/$1.err" &
  eval "pid_$1=$!"
}
go() { date +%s.%N >"$R/go.time"; touch "$R/go"; }
stop_go() { rm -f "$R/go"; }

# ---------------------------------------------------------------- solo runs (no cuaudit)
declare -A SOLO SOLO_BUSY
# SOLO_MODES: the modes timed alone (a pair needs its modes' solo rates).
solo_modes=${SOLO_MODES:-mm graph sync}
has solo || solo_modes=""
for m in $solo_modes; do
  stop_go
  start solo_$m $m "$SOLO_S"
  wait_ready solo_$m || { record solo "$m: worker did not start: $(tail -1 "$R/solo_$m.err")" FAIL; finish; }
  go; wait
  SOLO[$m]=$(rate "$R/solo_$m.rate" 1 "$SOLO_S")
  SOLO_BUSY[$m]=-1
  eval "sp=\$pid_solo_$m"
  [ -n "$CUPTI_SO" ] && read -r SOLO_BUSY[$m] _ < <(busy "$R/solo_$m.cupti/$sp.busy" 1 "$SOLO_S")
  record solo "$m alone, no cuaudit: ${SOLO[$m]} steps/s, CUPTI kernel time ${SOLO_BUSY[$m]}% ($SOLO_S s)" pass
done

# pair NAME MODE_A LIMIT_A MODE_B LIMIT_B: both in their groups for D seconds; shares from
# [2, D] s (the first second fills the window), against each mode's solo rate; cuaudit's own
# figures from ps --groups at D-1 s.
pair() {
  local n=$1
  room $n $((D + 12)) || return
  stop_go
  start ${n}_a "$2" "$D" "$3" ga-$n
  start ${n}_b "$4" "$D" "$5" gb-$n
  wait_ready ${n}_a && wait_ready ${n}_b || { record $n "workers did not start: $(tail -1 "$R/${n}_a.err")" FAIL; return; }
  go
  # The cross-check from outside: NVML's per-process SM utilisation (nvidia-smi pmon, one
  # sample a second on the pair's GPU), which knows nothing of cuaudit.
  local gpu_index=${CUDA_VISIBLE_DEVICES:-0}
  nvidia-smi pmon -i "${gpu_index%%,*}" -s u -d 1 -c $((D - 1)) >"$R/$n.pmon" 2>&1 &
  for t in $(seq 2 $((D - 1))); do
    sleep 1
    "$CLI" ps --groups --share-dir "$SHARE" --json >"$R/$n.ps.$t.json" 2>&1
  done
  wait
  local ra rb pa pb ca cb na nb pida pidb
  eval "pida=\$pid_${n}_a pidb=\$pid_${n}_b"
  # NVML's mean SM % of each worker over the samples after the first two (the window fills).
  read -r na nb < <(python3 - "$R/$n.pmon" "$pida" "$pidb" <<'PY'
import sys
f, a, b = sys.argv[1:4]
s = {a: [], b: []}
for line in open(f, errors="replace"):
    w = line.split()
    if len(w) >= 4 and not line.startswith("#") and w[1] in s and w[3].isdigit():
        s[w[1]].append(int(w[3]))
m = [sum(v[2:]) / len(v[2:]) if len(v) > 2 else -1 for v in (s[a], s[b])]
print("%.1f %.1f" % tuple(m))
PY
  )
  ra=$(rate "$R/${n}_a.rate" 2 "$D"); rb=$(rate "$R/${n}_b.rate" 2 "$D")
  pa=$(pct "$ra" "${SOLO[$2]}"); pb=$(pct "$rb" "${SOLO[$4]}")
  # cuaudit's own figure: the mean of its achieved share over the snapshots from 3 s on.
  read -r ca cb < <(python3 - "$R" "$n" ga-$n gb-$n 3 $((D - 1)) <<'PY'
import json, sys
r, n, a, b, lo, hi = sys.argv[1:7]
va, vb = [], []
for t in range(int(lo), int(hi) + 1):
    try:
        g = {x["compute_group"]: x for x in json.load(open(f"{r}/{n}.ps.{t}.json")) if "compute_group" in x}
        va.append(g[a]["achieved_permille"] / 10)
        vb.append(g[b]["achieved_permille"] / 10)
    except Exception:
        pass
print("%.1f %.1f" % (sum(va) / len(va), sum(vb) / len(vb)) if va else "-1 -1")
PY
  )
  local ka=${3%%:*} kb=${5%%:*} v=pass
  within "$pa" "$ka" 5 && within "$pb" "$kb" 5 || v=FAIL
  record $n "$2 $3 / $4 $5: throughput $pa% / $pb% of solo (cuaudit: $ca% / $cb%)" $v
  # The cross-check's row: CUPTI's kernel time of each worker over [2, D-1] s after GO
  # against the same mode's kernel time alone (its solo run's), within 5 points of its cap:
  # the throughput's measure, taken from the GPU's side. A loop that synchronises after each
  # kernel leaves the GPU idle between them even alone (98.5% busy alone on an H200, 2026-11-28 22:12), and turns
  # share out the GPU's time, so its kernel time against the wall is its cap times that
  # fraction (2026-11-28, docs/gpu-validation.md). The figure against the wall is printed
  # beside. No CUPTI, or a file missing or empty, is a skip, never a pass.
  local ua ub wa wb why
  if [ -z "$CUPTI_SO" ]; then
    record $n "CUPTI: not built on this machine (see above)" skip
  else
    read -r wa why < <(busy "$R/${n}_a.cupti/$pida.busy" 2 $((D - 1)))
    [ "$wa" = -1 ] || read -r wb why < <(busy "$R/${n}_b.cupti/$pidb.busy" 2 $((D - 1)))
    if [ "$wa" = -1 ] || [ "$wb" = -1 ]; then
      record $n "CUPTI: no kernel time for a worker: $why" skip
    elif ! positive "${SOLO_BUSY[$2]:--1}" || ! positive "${SOLO_BUSY[$4]:--1}"; then
      record $n "CUPTI: no solo kernel time for $2 or $4 (the solo phase's CUPTI run); $wa% / $wb% of the wall" skip
    else
      ua=$(pct "$wa" "${SOLO_BUSY[$2]}"); ub=$(pct "$wb" "${SOLO_BUSY[$4]}")
      v=pass
      within "$ua" "$ka" 5 && within "$ub" "$kb" 5 || v=FAIL
      record $n "CUPTI kernel time [2, $((D - 1))] s (cross-check): $ua% / $ub% of solo's ($wa% / $wb% of the wall)" $v
    fi
  fi
  # NVML's per-process SM % (nvidia-smi pmon) is shown, not judged: it is sampled, and on an
  # H200 it was 9 points off at 30/70 and 5 at 10/90 where CUPTI and the throughput agree
  # (docs/gpu-validation.md).
  if [ "$na" = -1.0 ] || [ "$nb" = -1.0 ]; then
    record $n "NVML (nvidia-smi pmon): no samples of the workers: $(grep -v '^#' "$R/$n.pmon" | head -1)" info
  else
    record $n "NVML SM % (nvidia-smi pmon, sampled; shown, not judged): $na% / $nb%" info
  fi
}
PAIRS=${PAIRS-cap30_70 cap50_50 graph sync cap10_90}
has pairs || PAIRS=""
for p in $PAIRS; do
  case $p in
    cap30_70) pair cap30_70 mm 30 mm 70 ;;
    cap10_90) pair cap10_90 mm 10 mm 90 ;;
    cap50_50) pair cap50_50 mm 50 mm 50 ;;
    graph) pair graph mm 70 graph 30 ;;
    sync) pair sync sync 30 sync 70 ;;
  esac
done

# A group alone under a 100% cap runs at native speed: the mm loop (few calls a second), and
# the sync loop where its solo rate was measured (some 360 launches and synchronises a
# second: cuaudit's own cost on each shows there, and in the sync pair's throughput).
for m in mm sync; do
  [ -n "${SOLO[$m]:-}" ] || continue
  n=cap100; [ $m = mm ] || n=cap100_$m
  has cap100 && room $n $((SOLO_S + 8)) || continue
  stop_go; start $n $m "$SOLO_S" 100 alone-$m; wait_ready $n; go; wait
  r=$(rate "$R/$n.rate" 1 "$SOLO_S"); p=$(pct "$r" "${SOLO[$m]}")
  within "$p" 100 3 && v=pass || v=FAIL
  record $n "$m alone under a 100% cap: $p% of native ($SOLO_S s)" $v
done

# ---------------------------------------------------------------- share mode
# a alone (25:share) gets the GPU; b (75:share) joins: both converge to their weights. b's
# start-up (torch, cuBLAS) takes seconds: b waits for its own go file, so a's alone time and
# the time both run are measured on a's clock from when b really starts.
if has share && room share $((SHARE_S + 16)); then
stop_go
start sh_a mm $((SHARE_S + 5)) 25:share sa
rm -f "$R/sh_b.rate" "$R/go_b"
env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_SHARE_DIR="$SHARE" CUAUDIT_COMPUTE_LIMIT=75:share \
  CUAUDIT_MEM_GROUP=sb python3 "$R/worker.py" mm "$SHARE_S" "$R/go_b" "$R/sh_b.rate" >"$R/sh_b.out" 2>"$R/sh_b.err" &
wait_ready sh_a; wait_ready sh_b; go
sleep 3
joined=$(tail -1 "$R/sh_a.rate" | cut -d' ' -f1)
touch "$R/go_b"
wait
r=$(rate "$R/sh_a.rate" 0.5 2.5); p=$(pct "$r" "${SOLO[mm]}")
within "$p" 100 5 && record share "a alone (25:share): $p% of solo" pass || record share "a alone (25:share): $p% of solo" FAIL
ra=$(rate "$R/sh_a.rate" "$(python3 -c "print($joined + 3)")" "$(python3 -c "print($joined + $SHARE_S - 1)")")
rb=$(rate "$R/sh_b.rate" 3 $((SHARE_S - 1)))
pa=$(pct "$ra" "${SOLO[mm]}"); pb=$(pct "$rb" "${SOLO[mm]}")
within "$pa" 25 5 && within "$pb" 75 5 && v=pass || v=FAIL
record share "b (75:share) joins: from 3 s after, a $pa% / b $pb% of solo" $v
fi

# ---------------------------------------------------------------- kill -9
has kill && room kill $((KILL_S + 10)) || finish
stop_go
start k_a mm "$KILL_S" 50:share ka
start k_b mm 60 50:share kb
wait_ready k_a && wait_ready k_b
go
sleep 3
kill -9 $pid_k_b
wait
r=$(rate "$R/k_a.rate" 5 "$KILL_S"); p=$(pct "$r" "${SOLO[mm]}")
n=$(wc -l <"$R/k_a.rate")
within "$p" 100 7 && v=pass || v=FAIL
record kill "b killed (-9) at 3 s: a from 5 s on $p% of solo ($n steps, ran to the end)" $v
finish
