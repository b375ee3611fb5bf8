#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-group.sh: on a GPU machine, a memory group (issue 37): PyTorch processes sharing one quota never pass it together, one more is refused with an out-of-memory error, nvidia-smi and mem_get_info inside show the quota, kill -9 returns a share; with 2 GPUs, a DDP job in one group. Prints a table last.
# Usage: scripts/gpu-check-group.sh   (no arguments; needs a GPU, cmake, a C compiler, python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu-group}
R=$B/out-group
rm -rf "$R"
mkdir -p "$R/share"
AUDIT=$B/libcuaudit.so
CLI=$B/cuaudit
rows=()
passed=0
failed=0
MiB=$((1 << 20))
# 4352 MiB shared, 512 MiB tensors. Each worker also holds PyTorch's first small segment
# (o MiB, 2 with the default allocator): with o <= 64, three workers of 2 tensors leave room
# for exactly 2 more, whatever o is (4352 - 3(1024 + o) >= 1024 + o, < 1536 + o).
QUOTA_MIB=4352
CHUNK_MIB=512
export OMP_NUM_THREADS=1 NCCL_NVLS_ENABLE=0
unset LD_AUDIT $(compgen -v CUAUDIT_)
GROUP=gpucheck-$$
SHARE=$R/share
# in_group CMD...: CMD under cuaudit, in the group $GROUP. In the background, use
# "${G[@]}" CMD &: env execs CMD, so $! is CMD's own pid (kill -9 must reach the worker).
group_cmd() {
  G=(env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=${QUOTA_MIB}MiB CUAUDIT_MEM_GROUP=$GROUP
    CUAUDIT_SHARE_DIR="$SHARE")
}
in_group() { group_cmd; "${G[@]}" "$@"; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count())' 2>&1 | tail -1
} | tee "$R/versions.txt"

record() { # NAME CHECK VERDICT (pass, FAIL or skip: a skip is never counted as a pass)
  rows+=("$(printf '%-12s %-72s %s' "$1" "$2" "$3")")
  case $3 in pass) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; esac
}
cleanup() {
  touch "$R/release"
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
}
finish() {
  cleanup
  echo
  printf '%-12s %-72s %s\n' run check result
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
NGPU=$(python3 -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
[ "$NGPU" -ge 1 ] 2>/dev/null || { record setup "torch sees a GPU" FAIL; finish; }

# The worker: a context, what mem_get_info says, then WANT tensors of CHUNK_MIB until an
# out-of-memory error; holds them until $R/release appears (or 600 s).
cat >"$R/worker.py" <<'PY'
import os, sys, time
import torch
want, chunk_mib, release, dev = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
torch.cuda.set_device(dev)
torch.empty(1, device="cuda")  # the context
free, total = torch.cuda.mem_get_info()
print(f"meminfo free {free} total {total}", flush=True)
held = []
for i in range(want):
    try:
        held.append(torch.empty(chunk_mib << 20, dtype=torch.uint8, device="cuda"))
    except RuntimeError as e:  # torch.OutOfMemoryError is a RuntimeError
        oom = isinstance(e, getattr(torch, "OutOfMemoryError", ())) or "out of memory" in str(e)
        print(f"oom after {i} {'OutOfMemoryError' if oom else type(e).__name__}", flush=True)
        break
print(f"held {len(held)} reserved {torch.cuda.memory_reserved()}", flush=True)
end = time.time() + 600
while not os.path.exists(release) and time.time() < end:
    time.sleep(0.1)
PY

# worker NAME WANT [DEV]: starts one worker in the group; its output in $R/NAME.out.
worker() {
  group_cmd
  "${G[@]}" python3 "$R/worker.py" "$2" $CHUNK_MIB "$R/release" "${3:-0}" >"$R/$1.out" 2>"$R/$1.err" &
  eval "pid_$1=$!"
}
wait_line() { # NAME REGEX: up to 120 s
  for _ in $(seq 1200); do grep -qE "$2" "$R/$1.out" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
held_of() { sed -n 's/^held \([0-9]*\) .*/\1/p' "$R/$1.out"; }
reserved_of() { sed -n 's/^held [0-9]* reserved \([0-9]*\)$/\1/p' "$R/$1.out"; }
# smi_used PID...: the device memory nvidia-smi sees these processes use, in MiB (from outside).
smi_used() {
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v pids=" $* " 'index(pids, " " $1 " ") { s += $2 } END { print s + 0 }'
}
group_used_mib() { # the group's use of device 0 from `cuaudit ps --groups --json`, MiB
  "$CLI" ps --groups --share-dir "$SHARE" --json 2>/dev/null |
    python3 -c 'import json,sys; g=json.load(sys.stdin); print(g[0]["devices"][0]["used"] >> 20 if g else -1)'
}

# ---------------------------------------------------------------- 0. a context's own size
# What one process uses with no tensor (context, cuBLAS-less): nvidia-smi's per-process figure
# of the three workers below then exceeds the quota by at most three of these.
rm -f "$R/release"
python3 "$R/worker.py" 0 $CHUNK_MIB "$R/release" 0 >"$R/base.out" 2>"$R/base.err" &
pid_base=$!
wait_line base '^held ' || { record base "a worker without cuaudit starts: $(tail -1 "$R/base.err")" FAIL; finish; }
sleep 1
CTX_MIB=$(smi_used $pid_base)
touch "$R/release"; wait $pid_base 2>/dev/null; rm -f "$R/release"
record base "one PyTorch context alone: ${CTX_MIB} MiB (nvidia-smi)" pass

# ---------------------------------------------------------------- 1. three workers, one quota
# Each wants 2 tensors (1 GiB): 6 of the 8 the group holds.
for w in w1 w2 w3; do worker $w 2; done
ok=yes
for w in w1 w2 w3; do wait_line $w '^held ' || ok=no; done
total_held=$(( $(held_of w1) + $(held_of w2) + $(held_of w3) ))
[ $ok = yes ] && [ $total_held = 6 ] && record three "3 workers hold 2 x ${CHUNK_MIB} MiB each" pass ||
  record three "3 workers: held $total_held, $(cat "$R"/w?.err | grep -v '^$' | tail -1 | cut -c1-40)" FAIL
# mem_get_info inside: total is the quota.
tot=$(sed -n 's/^meminfo free [0-9]* total \([0-9]*\)$/\1/p' "$R/w1.out")
[ "$tot" = $((QUOTA_MIB * MiB)) ] && record meminfo "torch.cuda.mem_get_info() total = quota ($QUOTA_MIB MiB)" pass ||
  record meminfo "mem_get_info total $tot, want $((QUOTA_MIB * MiB))" FAIL

# ---------------------------------------------------------------- 2. a fourth: 2 more fit, then OOM
worker w4 4
wait_line w4 '^held ' || true
if grep -q '^oom after 2 OutOfMemoryError$' "$R/w4.out" && [ "$(held_of w4)" = 2 ]; then
  record fourth "a 4th worker gets the 2 tensors left, then torch.OutOfMemoryError" pass
else
  record fourth "4th worker: $(tr '\n' ' ' <"$R/w4.out" | cut -c1-60) $(tail -1 "$R/w4.err" | cut -c1-30)" FAIL
fi
sum_res=0
for w in w1 w2 w3 w4; do sum_res=$((sum_res + $(reserved_of $w))); done
# Exact: never past the quota, and the refusal came only when a tensor no longer fit.
[ $sum_res -le $((QUOTA_MIB * MiB)) ] && [ $((QUOTA_MIB * MiB - sum_res)) -lt $((CHUNK_MIB * MiB)) ] &&
  record together "PyTorch's reserved bytes of the 4: $((sum_res / MiB)) MiB <= $QUOTA_MIB, < 1 tensor left" pass ||
  record together "reserved together $((sum_res / MiB)) MiB, quota $QUOTA_MIB MiB" FAIL
sleep 1
seen=$(smi_used $pid_w1 $pid_w2 $pid_w3 $pid_w4)
limit=$((QUOTA_MIB + 4 * CTX_MIB + 4 * 64))
[ "$seen" -gt 0 ] && [ "$seen" -le $limit ] &&
  record outside "nvidia-smi: the 4 use ${seen} MiB <= quota + 4 contexts (+64 MiB each) = $limit" pass ||
  record outside "nvidia-smi sees ${seen} MiB for the 4, more than $limit" FAIL

# ---------------------------------------------------------------- 3. nvidia-smi inside the group
gu=$(group_used_mib)
in_group nvidia-smi -i 0 --query-gpu=memory.total,memory.used,memory.free --format=csv,noheader,nounits \
  >"$R/smi_inside.out" 2>"$R/smi_inside.err"
read -r s_total s_used s_free < <(tr -d ',' <"$R/smi_inside.out")
if [ "${s_total:-}" = $QUOTA_MIB ] && [ $(( ${s_used:-0} - gu )) -le 1 ] && [ $(( gu - ${s_used:-0} )) -le 1 ]; then
  record nvidia-smi "inside: total ${s_total} MiB (quota), used ${s_used} = group's ${gu} MiB" pass
else
  record nvidia-smi "inside: '$(cat "$R/smi_inside.out")' group use ${gu} MiB $(head -c 60 "$R/smi_inside.err")" FAIL
fi
real_total=$(nvidia-smi -i 0 --query-gpu=memory.total --format=csv,noheader,nounits)
[ "$real_total" -gt $QUOTA_MIB ] 2>/dev/null && record nvidia-smi "outside the group: the real ${real_total} MiB" pass ||
  record nvidia-smi "outside: '$real_total'" FAIL
if python3 -c 'import pynvml' 2>/dev/null; then
  got=$(in_group python3 -c 'import pynvml as n; n.nvmlInit(); h=n.nvmlDeviceGetHandleByIndex(0); m=n.nvmlDeviceGetMemoryInfo(h); print(m.total >> 20)' 2>&1 | tail -1)
  [ "$got" = $QUOTA_MIB ] && record pynvml "pynvml (vLLM's way) inside: total $got MiB" pass || record pynvml "pynvml inside: $got" FAIL
else
  record pynvml "pynvml is not installed" skip
fi

# ---------------------------------------------------------------- 4. kill -9 returns a share
"$CLI" ps --groups --share-dir "$SHARE" >"$R/ps_before.txt" 2>&1
kill -9 $pid_w2
wait $pid_w2 2>/dev/null
worker w5 3
wait_line w5 '^held ' || true
if [ "$(held_of w5)" = 2 ] && grep -q '^oom after 2 ' "$R/w5.out"; then
  record kill-9 "after kill -9 of a holder, a new worker gets its 2 tensors back" pass
else
  record kill-9 "new worker after kill -9: $(tr '\n' ' ' <"$R/w5.out" | cut -c1-60)" FAIL
fi
"$CLI" ps --groups --share-dir "$SHARE" >"$R/ps_after.txt" 2>&1
live_res=0
for w in w1 w3 w4 w5; do live_res=$((live_res + $(reserved_of $w))); done
gu=$(group_used_mib)
grep -qE "^$GROUP +0 +$QUOTA_MIB MiB +" "$R/ps_after.txt" && [ "$gu" = $((live_res / MiB)) ] &&
  record ps "ps --groups: quota $QUOTA_MIB MiB, use $gu MiB = the live workers' reserved bytes" pass ||
  record ps "ps --groups: use $gu MiB, workers reserve $((live_res / MiB)): $(sed -n 2p "$R/ps_after.txt")" FAIL
cleanup
rm -f "$R/release"

# ---------------------------------------------------------------- 5. VMM: expandable segments
# PyTorch's expandable segments allocate with cuMemCreate, NCCL's path: charged all the same.
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
GROUP=gpucheck-vmm-$$
worker v1 5
worker v2 5
wait_line v1 '^held ' && wait_line v2 '^held ' || true
vs=$(( $(held_of v1) + $(held_of v2) ))
vres=$(( $(reserved_of v1) + $(reserved_of v2) ))
[ "$vs" -ge 6 ] && [ $vres -le $((QUOTA_MIB * MiB)) ] && grep -q '^oom after' "$R/v1.out" "$R/v2.out" &&
  record vmm "expandable segments (cuMemCreate): 2 workers hold $vs tensors, $((vres / MiB)) MiB, one OOM" pass ||
  record vmm "expandable segments: held $vs, $((vres / MiB)) MiB; $(cat "$R"/v?.out | tr '\n' ' ' | cut -c1-50)" FAIL
cleanup
rm -f "$R/release"
unset PYTORCH_CUDA_ALLOC_CONF

# ---------------------------------------------------------------- 6. two GPUs: DDP in one group
if [ "$NGPU" -ge 2 ]; then
  if command -v torchrun >/dev/null; then LAUNCH=(torchrun); else LAUNCH=(python3 -m torch.distributed.run); fi
  GROUP=gpucheck-ddp-$$
  # Each process's exit report (CUAUDIT_LOG=info) names the group on the devices it used.
  in_group env CUAUDIT_MEM_LIMIT=0:8GiB,1:8GiB CUAUDIT_LOG=info CUAUDIT_LOG_FILE="$R/ddp.%p.log" \
    timeout 300 "${LAUNCH[@]}" --standalone --nproc-per-node 2 \
    "$ROOT/tests/gpu/ddp_train.py" >"$R/ddp.out" 2>"$R/ddp.err"
  rc=$?
  devs=0
  for d in 0 1; do
    cat "$R"/ddp.*.log 2>/dev/null | grep -q "memory limit: device $d .* group $GROUP group_in_use " && devs=$((devs + 1))
  done
  [ $rc = 0 ] && [ "$(grep -c '^rank ' "$R/ddp.out")" = 42 ] && [ "$devs" = 2 ] &&
    record ddp "torchrun 2 ranks in one group (0:8GiB,1:8GiB): 20 steps, both devices" pass ||
    record ddp "ddp: exit $rc, $(grep -c '^rank ' "$R/ddp.out") lines, $devs devices; $(tail -1 "$R/ddp.err" | cut -c1-40)" FAIL
else
  record ddp "one GPU only" skip
fi
finish
