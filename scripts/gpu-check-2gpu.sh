#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-2gpu.sh: on a 2-GPU machine, DDP training over NCCL natively, under cuaudit with per-rank outputs, and under a memory limit; prints a table.
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

# ---------------------------------------------------------------- build (one call)
cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$R/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target cuaudit cuaudit_cli >>"$R/build.log" 2>&1 ||
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

# ---------------------------------------------------------------- table
finish
