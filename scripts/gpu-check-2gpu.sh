#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-2gpu.sh: on a 2-GPU machine, DDP training over NCCL natively, under cuaudit with per-rank outputs, under a memory limit, with GPU timing, with the live view of a rank waiting in a collective, and with the static runtime patched; prints a table.
# Usage: scripts/gpu-check-2gpu.sh   (no arguments; needs 2 GPUs, cmake, a C compiler, python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu2}
R=$B/out2
rm -rf "$R"
mkdir -p "$R"
AUDIT=$B/libcuaudit.so
CLI=$B/cuaudit
TRAIN=$ROOT/tests/gpu/ddp_train.py
rows=()
passed=0
failed=0
# The 2-GPU machine needs NCCL's NVLink multicast off; one OpenMP thread keeps the runs quiet.
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
unset LD_AUDIT $(compgen -v CUAUDIT_)

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  echo "glibc: $(ldd --version | head -1)"
  python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "gpus", torch.cuda.device_count())' 2>&1 | tail -1
} | tee "$R/versions.txt"

record() { # NAME CHECK VERDICT
  rows+=("$(printf '%-14s %-70s %s' "$1" "$2" "$3")")
  if [ "$3" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
finish() {
  echo
  printf '%-14s %-70s %s\n' run check result
  printf '%s\n' "${rows[@]}"
  echo "$passed passed, $failed failed"
  [ $failed -eq 0 ]
  exit $?
}

# ---------------------------------------------------------------- build (scripts/gpu-lib.sh)
# Every core (nproc alone counts the OMP_NUM_THREADS=1 above), the benchmark off (no nvcc
# detection), Zydis from zydis-debs/ where the machine has none.
. "$ROOT/scripts/gpu-lib.sh"
: >"$R/build.log"
gpu_build "$ROOT" "$B" "$R/build.log" cuaudit cuaudit_cli ||
  { tail -30 "$R/build.log"; record build "cmake --build" FAIL; finish; }
if [ "$(python3 -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null)" -lt 2 ] 2>/dev/null; then
  record setup "torch sees 2 GPUs" FAIL; finish
fi
if command -v torchrun >/dev/null; then LAUNCH=(torchrun); else LAUNCH=(python3 -m torch.distributed.run); fi
LAUNCH+=(--standalone --nproc-per-node 2)

# ddp NAME [VAR=VALUE...]: one torchrun of the training, 5 minutes at most; stdout sorted
# (the ranks print in any order) in $R/NAME.out, status in $R/NAME.rc.
ddp() {
  local name=$1; shift
  env "$@" timeout 300 "${LAUNCH[@]}" "$TRAIN" >"$R/$name.raw" 2>"$R/$name.err"
  echo $? >"$R/$name.rc"
  grep -E '^(rank|probe) ' "$R/$name.raw" | sort >"$R/$name.out"
}
same_as_native() { # NAME: the training lines (not the probe's) equal the native run's
  [ "$(cat "$R/$1.rc")" = 0 ] && grep -c '^rank ' "$R/$1.out" | grep -qx 42 &&
    cmp -s <(grep '^rank ' "$R/native.out") <(grep '^rank ' "$R/$1.out")
}

# ---------------------------------------------------------------- 1. native
ddp native
if [ "$(cat "$R/native.rc")" = 0 ] && [ "$(grep -c '^rank ' "$R/native.out")" = 42 ]; then
  record native "20 steps x 2 ranks + checksums; $(grep '^rank 0 step 19' "$R/native.out" | cut -d' ' -f4-)" pass
else
  record native "torchrun exit $(cat "$R/native.rc"): $(tail -1 "$R/native.err" | cut -c1-50)" FAIL
fi

# ---------------------------------------------------------------- 2. summary and trace named by rank
ddp hooks LD_AUDIT="$AUDIT" CUAUDIT_SUMMARY="$R/ddp.%q{RANK}.json" CUAUDIT_TRACE="$R/ddp.%q{RANK}.trace.json"
same_as_native hooks && v=pass || v=FAIL
record hooks "loss identical to native with summary+trace" "$v"
[ -s "$R/ddp.0.json" ] && [ -s "$R/ddp.1.json" ] && [ -s "$R/ddp.0.trace.json" ] && [ -s "$R/ddp.1.trace.json" ] &&
  v=pass || v=FAIL
record hooks "%q{RANK}: ddp.0/ddp.1 .json and .trace.json: $(cd "$R" && ls ddp.*json 2>/dev/null | tr '\n' ' ' | cut -c1-40)" "$v"
"$CLI" report --json="$R/merged.json" "$R/ddp.0.json" "$R/ddp.1.json" >"$R/report.txt" 2>&1
rc=$?
merged=$(python3 - "$R/merged.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
procs = len(d["processes"])
vmm = [a for a in d["apis"] if a["name"] == "cuMemCreate" and not a["nested"]]
calls = sum(a["calls"] for a in vmm)
both = max([a.get("processes", 0) for a in vmm] or [0])
print(f"processes={procs} cuMemCreate calls={calls} in {both} processes")
PY
)
[ $rc = 0 ] && echo "$merged" | grep -qE '^processes=2 cuMemCreate calls=[1-9][0-9]* in 2 processes$' && v=pass || v=FAIL
record report "cuaudit report merges both ranks: $merged" "$v"

# ---------------------------------------------------------------- 3. memory limit
# First a limit far above need, to learn each device's peak; then a quota 512 MiB above the
# higher peak, which the job must fit in unchanged while an allocation past it is refused.
ddp measure LD_AUDIT="$AUDIT" CUAUDIT_MEM_LIMIT=1TiB CUAUDIT_LOG=info CUAUDIT_LOG_FILE="$R/measure.%q{RANK}.%p.log"
same_as_native measure && v=pass || v=FAIL
peaks=$(cat "$R"/measure.[01].*.log 2>/dev/null | grep -oE 'memory limit: device [01] .* peak [0-9]+ cuMemCreate_bytes [0-9]+' |
  sed -E 's/.*device ([01]) .* peak ([0-9]+) cuMemCreate_bytes ([0-9]+)/\1 \2 \3/' | sort -u)
echo "$peaks" >"$R/peaks.txt"
p0=$(awk '$1 == 0 {print $2}' "$R/peaks.txt" | head -1); p1=$(awk '$1 == 1 {print $2}' "$R/peaks.txt" | head -1)
v0=$(awk '$1 == 0 {print $3}' "$R/peaks.txt" | head -1); v1=$(awk '$1 == 1 {print $3}' "$R/peaks.txt" | head -1)
record measure "limit 1TiB: loss identical; peak MiB dev0=$((${p0:-0} >> 20)) dev1=$((${p1:-0} >> 20))" "$v"
[ "${v0:-0}" -gt 0 ] && [ "${v1:-0}" -gt 0 ] && v=pass || v=FAIL
record measure "NCCL cuMemCreate counted: MiB dev0=$((${v0:-0} >> 20)) dev1=$((${v1:-0} >> 20))" "$v"

if [ -n "${p0:-}" ] && [ -n "${p1:-}" ]; then
  top=$((p0 > p1 ? p0 : p1))
  quota_mib=$(((top >> 20) + 512))
  ddp limit LD_AUDIT="$AUDIT" CUAUDIT_MEM_LIMIT="${quota_mib}MiB" CUAUDIT_LOG=info \
    CUAUDIT_LOG_FILE="$R/limit.%q{RANK}.%p.log" DDP_PROBE=1
  same_as_native limit && v=pass || v=FAIL
  record limit "quota ${quota_mib}MiB (peak+512MiB): loss identical, job finishes" "$v"
  q=$((quota_mib << 20))
  ok=0
  for r in 0 1; do
    grep -qx "probe rank $r total $q free [0-9]*" "$R/limit.out" &&
      grep -qx "probe rank $r over-quota allocation refused" "$R/limit.out" &&
      grep -qx "probe rank $r half of free allocated" "$R/limit.out" && ok=$((ok + 1))
  done
  [ $ok = 2 ] && v=pass || v=FAIL
  record limit "both devices: total = quota, free+256MiB refused, free/2 fits" "$v"
  refused=$(cat "$R"/limit.[01].*.log 2>/dev/null | grep -oE 'memory limit: device [01] .* refused [0-9]+' |
    sed -E 's/.*device ([01]) .* refused ([0-9]+)/dev\1=\2/' | sort -u | tr '\n' ' ')
  echo "$refused" | grep -qE 'dev0=[1-9][0-9]* dev1=[1-9]' && v=pass || v=FAIL
  record limit "refusals counted per device: $refused" "$v"
else
  record limit "no peaks in the measure logs ($(ls "$R" | grep -c measure) files)" FAIL
fi

# ---------------------------------------------------------------- 4. GPU timing on both ranks
ddp gputime LD_AUDIT="$AUDIT" CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY="$R/gt.%q{RANK}.json"
same_as_native gputime && v=pass || v=FAIL
record gputime "CUAUDIT_GPU_TIME=on: loss identical to native" "$v"
for r in 0 1; do
  got=$(python3 - "$R/gt.$r.json" <<'PY' 2>&1
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
nccl = [k for k in g["kernels"] if "nccl" in k["name"].lower()]
# Each kernel's GPU time is a range (docs/summary-schema.json): its greatest total must be
# above 0, its least at most that.
timed = [k for k in nccl if k["instances"] > 0 and 0 <= k["total_min_ns"] <= k["total_max_ns"]
         and k["total_max_ns"] > 0]
print(f"nccl_kernels={len(nccl)} timed={len(timed)} instances={sum(k['instances'] for k in nccl)} "
      f"ms=[{sum(k['total_min_ns'] for k in nccl) / 1e6:.1f}, {sum(k['total_max_ns'] for k in nccl) / 1e6:.1f}] "
      f"exact={sum(k['exact_instances'] for k in nccl)} all_kernels={len(g['kernels'])} untimed={g.get('untimed')}")
PY
)
  echo "$got" | grep -qE '^nccl_kernels=([1-9][0-9]*) timed=\1 instances=[1-9]' && v=pass || v=FAIL
  record gputime "rank $r: NCCL's kernels timed: $(echo "$got" | cut -c1-56)" "$v"
done
"$CLI" report --json="$R/gt.merged.json" "$R/gt.0.json" "$R/gt.1.json" >"$R/gt.report.txt" 2>&1
rc=$?
got=$(python3 - "$R/gt.merged.json" <<'PY' 2>&1
import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
nccl = [k for k in g["kernels"] if "nccl" in k["name"].lower()]
print(f"nccl_kernels={len(nccl)} in_both={sum(1 for k in nccl if k['processes'] == 2)}")
PY
)
[ $rc = 0 ] && echo "$got" | grep -qE 'in_both=[1-9]' && v=pass || v=FAIL
record report "GPU tables of both ranks merged: $got" "$v"

# ---------------------------------------------------------------- 5. live view, a rank waiting
# Rank 1 sleeps 8 s before step 10's all-reduce; rank 0 waits in a CUDA call meanwhile.
ddp live LD_AUDIT="$AUDIT" CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$R/live" DDP_STALL=8 &
bg=$!
seen="" listed=0
for _ in $(seq 240); do
  sleep 0.5
  "$CLI" ps --dir "$R/live" >"$R/live.ps" 2>&1 || continue
  n=$(awk '$2 == "running"' "$R/live.ps" | wc -l)
  [ "$n" -gt "$listed" ] && listed=$n && cp "$R/live.ps" "$R/live.most.ps"
  for pid in $(awk '$2 == "running" {print $1}' "$R/live.ps"); do
    "$CLI" ps --dir "$R/live" --json "$pid" >"$R/live.$pid.json" 2>/dev/null || continue
    seen=$(python3 - "$R/live.$pid.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["threads"]:
    for f in t["in_flight"]:
        if f["depth"] == 0 and f["elapsed_ns"] > 2e9:
            print(f"pid {d['pid']} thread {t['tid']}: {f['name']}({f['args'][:40]}) for {f['elapsed_ns'] / 1e9:.1f} s")
            sys.exit(0)
PY
)
    [ -n "$seen" ] && cp "$R/live.$pid.json" "$R/live.waiting.json" && "$CLI" ps --dir "$R/live" "$pid" >"$R/live.waiting.txt" 2>&1 && break
  done
  [ -n "$seen" ] && break
done
wait $bg
ranks=$(grep 'ddp_train\.py' "$R/live.most.ps" 2>/dev/null | grep -vcE 'torchrun|torch\.distributed\.run')
launcher=$(grep -cE 'torchrun|torch\.distributed\.run' "$R/live.most.ps" 2>/dev/null)
[ "${ranks:-0}" -ge 2 ] && [ "${launcher:-0}" -ge 1 ] && v=pass || v=FAIL
record live "cuaudit ps lists the launcher and both ranks running (${launcher:-0} + ${ranks:-0} of $listed)" "$v"
[ -n "$seen" ] && v=pass || v=FAIL
record live "the waiting rank's blocking call: ${seen:-none seen for 2 s}" "$v"
same_as_native live && v=pass || v=FAIL
record live "with the live view and the stall: loss identical, files removed ($(ls "$R/live" 2>/dev/null | wc -l) left)" "$v"

# ---------------------------------------------------------------- 6. static runtime
ddp static LD_AUDIT="$AUDIT" CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_SUMMARY="$R/st.%q{RANK}.json"
same_as_native static && v=pass || v=FAIL
record static "CUAUDIT_STATIC_RUNTIME=1: loss identical to native" "$v"
for r in 0 1; do
  got=$(python3 - "$R/st.$r.json" <<'PY' 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
o = [x for x in s.get("entry_objects", []) if "nccl" in x["object"]]
print(" ".join(f"{x['object'].split('/')[-1]}={x['calls']}" for x in o) or "no NCCL copy")
PY
)
  echo "$got" | grep -qE 'nccl[^=]*=[1-9]' && v=pass || v=FAIL
  record static "rank $r: NCCL's runtime calls seen through its copy: $got" "$v"
done

# ---------------------------------------------------------------- table
finish
