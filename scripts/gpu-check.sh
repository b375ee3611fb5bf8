#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check.sh: on a GPU machine, builds cuaudit and the GPU programs, runs each natively and under cuaudit, and prints a table.
# Usage: scripts/gpu-check.sh   (no arguments; needs nvcc, a CUDA driver and, for the framework checks, python3 with torch)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out
rm -rf "$R"
mkdir -p "$B/gpu" "$R"
AUDIT=$B/libcuaudit.so
rows=()
passed=0
failed=0

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/gpu, driver: /'
  echo "nvcc: $(nvcc --version | tail -2 | head -1)"
  echo "glibc: $(ldd --version | head -1)"
  echo "python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1 | tail -1)"
} | tee "$R/versions.txt"

# ---------------------------------------------------------------- build
# CUAUDIT_STATIC_RUNTIME needs Zydis. A GPU machine without network gets it from .deb files
# carried along (apt-get download libzydis4.0 libzydis-dev libzycore-dev, into zydis-debs/),
# unpacked into the build folder; the build RPATH then finds the library.
zydis_args=()
if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$ROOT"/zydis-debs/*.deb >/dev/null 2>&1; then
  for d in "$ROOT"/zydis-debs/*.deb; do dpkg -x "$d" "$B/zydis"; done
  zydis_args=(-DZYDIS_INCLUDE_DIR="$B/zydis/usr/include"
    -DZYDIS_LIBRARY="$(ls "$B"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
fi
cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 "${zydis_args[@]}" >"$R/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "0 passed, 1 failed"; exit 1; }
G=$ROOT/tests/gpu
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
CUDA_INC=$CUDA_HOME/include
CUDA_LIB=$CUDA_HOME/lib64
nvcc -cubin -arch=native -o "$B/gpu/kernels.cubin" "$G/kernels.cu" &&
  nvcc -x c -o "$B/gpu/driver_api" "$G/driver_api.c" -lcuda &&
  nvcc -o "$B/gpu/vecadd_static" "$G/vecadd.cu" &&
  nvcc -cudart shared -o "$B/gpu/vecadd_shared" "$G/vecadd.cu" &&
  nvcc -o "$B/gpu/cublas_gemm" "$G/cublas_gemm.cu" -lcublas &&
  nvcc --default-stream per-thread -cudart shared -o "$B/gpu/threads_ptds" "$G/threads_ptds.cu" &&
  nvcc -o "$B/gpu/graph" "$G/graph.cu" &&
  nvcc -cudart shared -o "$B/gpu/cublas_gemm_shared" "$G/cublas_gemm.cu" -lcublas &&
  nvcc -cudart shared -o "$B/gpu/graph_shared" "$G/graph.cu" >>"$R/build.log" 2>&1 ||
  { tail -30 "$R/build.log"; echo "0 passed, 1 failed"; exit 1; }

# ---------------------------------------------------------------- checks
# run NAME CMD...: native and under CUAUDIT_LOG=verbose; sets $log, $same.
run() {
  local name=$1; shift
  log=$R/$name.log
  "$@" >"$R/$name.native.out" 2>"$R/$name.native.err"; local nrc=$?
  LD_AUDIT=$AUDIT CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$log "$@" >"$R/$name.audited.out" 2>"$R/$name.audited.err"
  local arc=$?
  if [ $nrc -eq 0 ] && [ $arc -eq 0 ] && cmp -s "$R/$name.native.out" "$R/$name.audited.out"; then
    same=yes
  else
    same="NO (rc $nrc/$arc)"
  fi
  calls=$(grep -c ' -> ' "$log" 2>/dev/null); calls=${calls:-0}
}
# expect NAME LABEL MIN REGEX: at least MIN log lines match REGEX.
expect() {
  local name=$1 label=$2 min=$3 re=$4 n
  n=$(grep -cE -- "$re" "$log" 2>/dev/null); n=${n:-0}
  if [ "$n" -ge "$min" ]; then
    verdict=pass
  else
    verdict=FAIL
  fi
  record "$name" "$label: $n (>= $min)" "$verdict"
}
record() {
  rows+=("$(printf '%-16s %-10s %-58s %s' "$1" "$same" "$2" "$3")")
  if [ "$3" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
outputs_same() {
  if [ "${same%% *}" = yes ]; then record "$1" "output identical, $calls calls logged" pass
  else record "$1" "output identical, $calls calls logged" FAIL; fi
}

run driver_api "$B/gpu/driver_api" "$B/gpu/kernels.cubin"
outputs_same driver_api
expect driver_api "cuLaunchKernel via plt/bindnow" 10 ' cuLaunchKernel\(.*\) -> CUDA_SUCCESS [0-9]+ns (plt|bindnow)$'
expect driver_api "cuModuleGetFunction via plt" 1 ' cuModuleGetFunction\(.*name="vecadd"\) -> CUDA_SUCCESS'

run vecadd_static "$B/gpu/vecadd_static"
outputs_same vecadd_static
expect vecadd_static "cuLaunchKernel* via procaddress" 10 ' cuLaunchKernel(_ptsz)?\(.*\) -> CUDA_SUCCESS [0-9]+ns procaddress$'

run vecadd_shared "$B/gpu/vecadd_shared"
outputs_same vecadd_shared
# CUDA 13's nvcc launches <<<>>> through __cudaLaunchKernel, not cudaLaunchKernel.
expect vecadd_shared "__cudaLaunchKernel via plt/bindnow" 10 ' __cudaLaunchKernel(_ptsz)?\(.*\) -> cudaSuccess [0-9]+ns (plt|bindnow)$'
expect vecadd_shared "cuLaunchKernel* via procaddress" 10 ' cuLaunchKernel(_ptsz)?\(.*\) -> CUDA_SUCCESS [0-9]+ns procaddress$'

if python3 -c 'import torch' 2>/dev/null; then
  run torch_matmul python3 "$G/torch_matmul.py"
  outputs_same torch_matmul
  expect torch_matmul "(__)cudaLaunchKernel via bindnow/plt" 1 ' (__)?cudaLaunchKernel(_ptsz)?\(.*\) -> [A-Za-z_]+ [0-9]+ns (bindnow|plt)$'
  expect torch_matmul "cuLaunchKernel* via procaddress/dlsym" 1 ' cuLaunchKernel(Ex)?(_ptsz)?\(.*\) -> [A-Za-z_]+ [0-9]+ns (procaddress|dlsym)$'
else
  skip torch_matmul "python3 cannot import torch"
fi

# ---------------------------------------------------------------- hooks on PyTorch
if python3 -c 'import torch' 2>/dev/null; then
  python3 "$G/torch_matmul.py" >"$R/hooks.native.out" 2>&1
  LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=$R/torch.summary.json CUAUDIT_TRACE=$R/torch.trace.json \
    python3 "$G/torch_matmul.py" >"$R/hooks.audited.out" 2>&1
  log=/dev/null; calls=-
  cmp -s "$R/hooks.native.out" "$R/hooks.audited.out" && same=yes || same=NO
  names=$(python3 - "$R/torch.summary.json" "$R/torch.trace.json" <<'PY' 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
names = {a["name"] for a in s["apis"]}
rt = sorted(n for n in names if n.lstrip("_").startswith("cudaLaunchKernel"))
drv = sorted(n for n in names if n.startswith("cuLaunchKernel"))
ev = sum(1 for e in t["traceEvents"] if e.get("ph") == "X")
print("runtime=%s driver=%s trace_events=%d" % (",".join(rt), ",".join(drv), ev))
PY
)
  echo "$names" >"$R/hooks.names.txt"
  case "$names" in
    runtime=?*driver=cuLaunchKernel*trace_events=[1-9]*) v=pass ;;
    *) v=FAIL ;;
  esac
  record torch_hooks "summary+trace: $names" "$v"
  same=-
  LD_AUDIT=$AUDIT CUAUDIT_MEM_LIMIT=2GiB python3 "$G/torch_hooks.py" memlimit >"$R/memlimit.out" 2>&1
  if grep -q 'mem_get_info total 2 GiB, free <= total: True' "$R/memlimit.out" &&
    grep -q '^1 GiB allocated' "$R/memlimit.out" && grep -q 'refused with torch.cuda.OutOfMemoryError' "$R/memlimit.out"; then
    v=pass; else v=FAIL; fi
  record torch_hooks "CUAUDIT_MEM_LIMIT=2GiB: $(tr '\n' ';' <"$R/memlimit.out" | cut -c1-60)" "$v"
  LD_AUDIT=$AUDIT CUAUDIT_FAULT='cudaMalloc=cudaErrorMemoryAllocation@every:1' \
    python3 "$G/torch_hooks.py" fault >"$R/fault.out" 2>&1
  grep -q 'OutOfMemoryError raised by the injected' "$R/fault.out" && v=pass || v=FAIL
  record torch_hooks "CUAUDIT_FAULT cudaMalloc: $(tail -1 "$R/fault.out" | cut -c1-50)" "$v"
else
  skip torch_hooks "python3 cannot import torch"
fi

# ---------------------------------------------------------------- kernel names on PyTorch (issue 12)
# Launches name their kernels in the log, the trace and the summary's kernel table.
if python3 -c 'import torch' 2>/dev/null; then
  LD_AUDIT=$AUDIT CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$R/names.log CUAUDIT_SUMMARY=$R/names.summary.json \
    CUAUDIT_TRACE=$R/names.trace.json python3 "$G/torch_matmul.py" >"$R/names.audited.out" 2>&1
  log=$R/names.log; calls=-
  cmp -s "$R/hooks.native.out" "$R/names.audited.out" && same=yes || same=NO
  expect torch_names "log: launches with kernel_name" 1 '(cudaLaunchKernel|cuLaunchKernel)[A-Za-z_]*\(.*kernel_name="[^"]+"\) -> '
  names=$(python3 - "$R/names.summary.json" "$R/names.trace.json" <<'PY' 2>&1
import json, re, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
launch = re.compile(r"^_*(cudaLaunchKernel|cudaLaunchCooperativeKernel|cuLaunchKernel|cuLaunchCooperativeKernel)")
ev = [e for e in t["traceEvents"] if e.get("ph") == "X" and launch.match(e["name"])]
rt = [e for e in ev if e["cat"] == "runtime"]
drv = [e for e in ev if e["cat"] == "driver"]
named = lambda es: sum(1 for e in es if e["args"].get("kernel_name"))
k = [x for x in s.get("kernels", []) if x["name"] != "(unknown)"]
unk = sum(x["launches"] for x in s.get("kernels", []) if x["name"] == "(unknown)")
print("trace_runtime=%d/%d trace_driver=%d/%d summary_kernels=%d unknown_launches=%d top=%s" % (
    named(rt), len(rt), named(drv), len(drv), len(k), unk, (k[0]["name"][:40] if k else "-")))
PY
)
  echo "$names" >"$R/names.txt"
  case "$names" in
    trace_runtime=[1-9]*trace_driver=[1-9]*summary_kernels=[1-9]*) v=pass ;;
    *) v=FAIL ;;
  esac
  record torch_names "$(echo "$names" | cut -c1-58)" "$v"
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["process"]; print(p["driver_version"], p["runtime_version"], p["command"])' \
    "$R/names.summary.json" >"$R/names.process.txt" 2>&1
  grep -qE '^[0-9]+ [0-9]+ .*torch_matmul' "$R/names.process.txt" && v=pass || v=FAIL
  record torch_names "summary process: $(cut -c1-40 "$R/names.process.txt")" "$v"
fi

# Debug-level lookups: no pointer for a function the headers know may be passed through.
known_passed() { # LOG: lookups passed through whose API name the manifest knows
  grep -o 'lookup "[A-Za-z0-9_]*".*passed through.*' "$1" | sed -E 's/lookup "([^"]*)".*/\1/' | sort -u |
    while read -r n; do awk -F'\t' -v n="$n" '$2 == n {print n; exit}' "$B/gen/manifest.tsv"; done
}
debug_run() { # NAME CMD...
  local name=$1; shift
  LD_AUDIT=$AUDIT CUAUDIT_LOG=debug CUAUDIT_LOG_FILE=$R/$name.debug.log "$@" >/dev/null 2>&1
  log=$R/$name.debug.log; same=-
  local bad lookups wrapped
  bad=$(known_passed "$log" | tr '\n' ' ')
  lookups=$(grep -c 'debug: lookup ' "$log"); wrapped=$(grep -c 'debug: lookup .*: wrapped' "$log")
  echo "$name: known functions passed through: ${bad:-none}" >>"$R/passed-through.txt"
  if [ -z "$bad" ] && [ "$wrapped" -gt 0 ]; then v=pass; else v=FAIL; fi
  record "$name" "lookups $lookups, wrapped $wrapped, known passed through: $(echo $bad | wc -w)" "$v"
}
# ---------------------------------------------------------------- programs and frameworks
# full NAME EXPECT CMD...: native; summary+trace; verbose; each output compared with native.
# EXPECT is a shell pattern the summary counts must match (see tests/gpu/summary_check.py).
full() {
  local name=$1 expect=$2; shift 2
  "$@" >"$R/$name.native.out" 2>"$R/$name.native.err"
  local nrc=$?
  LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=$R/$name.summary.json CUAUDIT_TRACE=$R/$name.trace.json \
    "$@" >"$R/$name.hooks.out" 2>"$R/$name.hooks.err"
  local hrc=$?
  LD_AUDIT=$AUDIT CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$R/$name.verbose.log \
    "$@" >"$R/$name.verbose.out" 2>"$R/$name.verbose.err"
  local vrc=$?
  if [ $nrc -eq 0 ] && [ $hrc -eq 0 ] && [ $vrc -eq 0 ] && cmp -s "$R/$name.native.out" "$R/$name.hooks.out" &&
    cmp -s "$R/$name.native.out" "$R/$name.verbose.out"; then same=yes; else same="NO($nrc/$hrc/$vrc)"; fi
  counts=$(python3 "$G/summary_check.py" "$R/$name.summary.json" "$R/$name.trace.json" 2>&1 | tail -1)
  v=FAIL
  local IFS='|'
  for e in $expect; do case "$counts" in $e) v=pass ;; esac; done
  unset IFS
  [ "${same%%(*}" = yes ] || v=FAIL
  record "$name" "$counts" "$v"
  debug_run "$name" "$@"
}
L1='driver_launches=[1-9]*'
full cublas_gemm "$L1 *" "$B/gpu/cublas_gemm"
full threads_ptds "driver_launches=[4-9][0-9]* runtime_launches=[4-9][0-9]* *" "$B/gpu/threads_ptds"
full graph "* graph_launches=[5-9]* *" "$B/gpu/graph"
# framework MODULE NAME PATTERN SCRIPT: a full check, or a skipped row where MODULE is missing.
framework() {
  if python3 -c "import $1" 2>/dev/null; then
    full "$2" "$3" python3 "$G/$4"
  else
    skip "$2" "python3 cannot import $1"
  fi
}
framework torch torch_train "$L1 runtime_launches=[1-9]* cudaMalloc=[1-9]* *" torch_train.py
framework cupy cupy_ops "driver_launches=[4-9]* *|driver_launches=[1-9][0-9]* *" cupy_ops.py
framework numba.cuda numba_kernel "$L1 *" numba_kernel.py
framework jax jax_matmul "$L1 *" jax_matmul.py

# ---------------------------------------------------------------- cuaudit run --error-exitcode
# A clean program keeps its status; an injected failure turns it into N (compute-sanitizer's
# convention). Calls made inside other calls (cudart probing the driver) must not count.
same=-; calls=-
for prog in vecadd_static vecadd_shared; do
  "$B/cuaudit" run -e 9 "$B/gpu/$prog" >"$R/$prog.exitcode.out" 2>"$R/$prog.exitcode.err"; rc=$?
  [ $rc = 0 ] && v=pass || v=FAIL
  record "$prog" "cuaudit run -e 9, no failure: status $rc (want 0)" "$v"
done
"$B/cuaudit" run -e 9 -f 'cudaMalloc=cudaErrorMemoryAllocation@every:1' "$B/gpu/vecadd_shared" \
  >"$R/vecadd_shared.fault.out" 2>"$R/vecadd_shared.fault.err"; rc=$?
[ $rc = 9 ] && v=pass || v=FAIL
record vecadd_shared "cuaudit run -e 9 + cudaMalloc fault: status $rc (want 9)" "$v"
# ---------------------------------------------------------------- statically linked runtime
# CUAUDIT_STATIC_RUNTIME=1 (issue 14): nvcc's default build seen at the runtime level.
# static_run NAME SHARED_PROG STATIC_PROG LAUNCH_LABEL LAUNCH_RE: native and patched outputs identical; verbose log
# of the static build with runtime calls of binding kind "entry" and driver calls nested in
# them; the summaries of the two builds compared call for call at the runtime layer
# (tests/cases/compare_summaries.py: calls and errors of every runtime row not nested,
# binding kinds ignored); the start-up cost of patching, from the info line.
static_run() {
  local name=$1 shared=$2 static=$3 launch_label=$4 launch_re=$5 v
  log=$R/$name.static.log
  "$static" >"$R/$name.static.native.out" 2>"$R/$name.static.native.err"
  local nrc=$?
  CUAUDIT_STATIC_RUNTIME=1 LD_AUDIT=$AUDIT CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$log \
    "$static" >"$R/$name.static.audited.out" 2>"$R/$name.static.audited.err"
  local arc=$?
  if [ $nrc -eq 0 ] && [ $arc -eq 0 ] && cmp -s "$R/$name.static.native.out" "$R/$name.static.audited.out"; then
    same=yes; else same="NO (rc $nrc/$arc)"; fi
  calls=$(grep -c ' -> ' "$log" 2>/dev/null); calls=${calls:-0}
  outputs_same "$name:static"
  local patched
  patched=$(grep -oE 'entries patched=[0-9]+ .* in [0-9]+ us' "$log" | head -1)
  [ -n "$patched" ] && v=pass || v=FAIL
  record "$name:static" "patching: ${patched:-no info line}" "$v"
  expect "$name:static" "cudaMalloc via entry" 1 ' cudaMalloc\(.*\) -> cudaSuccess [0-9]+ns entry@\(executable\)$'
  expect "$name:static" "cudaMemcpy* via entry" 1 ' cudaMemcpy(Async)?(_ptds|_ptsz)?\(.*\) -> cudaSuccess [0-9]+ns entry@\(executable\)$'
  expect "$name:static" "$launch_label" 1 "$launch_re"
  expect "$name:static" "driver calls nested in runtime calls" 1 'tid=[0-9]+   cu[A-Za-z0-9_]+\(.*\) -> CUDA_SUCCESS [0-9]+ns procaddress$'
  # The summaries: shared build (bindings plt/bindnow) against the static build (entry).
  LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=$R/$name.shared.summary.json "$shared" >/dev/null 2>&1
  CUAUDIT_STATIC_RUNTIME=1 LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=$R/$name.static.summary.json "$static" >/dev/null 2>&1
  if python3 "$ROOT/tests/cases/compare_summaries.py" "$R/$name.shared.summary.json" \
    "$R/$name.static.summary.json" runtime >"$R/$name.compare.txt" 2>&1; then v=pass; else v=FAIL; fi
  record "$name:static" "summary vs shared: $(tail -1 "$R/$name.compare.txt")" "$v"
  # Start-up cost: wall time of the patched run against the unpatched, 5 runs each.
  local t0 t1 t2 i
  t0=$(date +%s%N)
  for i in 1 2 3 4 5; do LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=/dev/null "$static" >/dev/null 2>&1; done
  t1=$(date +%s%N)
  for i in 1 2 3 4 5; do CUAUDIT_STATIC_RUNTIME=1 LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=/dev/null "$static" >/dev/null 2>&1; done
  t2=$(date +%s%N)
  record "$name:static" "run time, 5 runs: $(( (t1 - t0) / 5000000 )) ms off, $(( (t2 - t1) / 5000000 )) ms on" pass
}
if grep -q CUA_HAVE_ZYDIS "$B/CMakeCache.txt" 2>/dev/null || nm -D --undefined-only "$AUDIT" | grep -q Zydis; then
  entry_launch=' (__)?cudaLaunchKernel(_ptsz)?\(.*\) -> cudaSuccess [0-9]+ns entry@\(executable\)$'
  static_run vecadd "$B/gpu/vecadd_shared" "$B/gpu/vecadd_static" "__cudaLaunchKernel via entry" "$entry_launch"
  # cuBLAS launches from inside libcublas (its own runtime, stripped): driver level.
  static_run cublas_gemm "$B/gpu/cublas_gemm_shared" "$B/gpu/cublas_gemm" "cuLaunchKernel* from cuBLAS" \
    ' cuLaunchKernel(Ex)?(_ptsz)?\(.*\) -> CUDA_SUCCESS [0-9]+ns (procaddress|dlsym)$'
  static_run graph "$B/gpu/graph_shared" "$B/gpu/graph" "cudaGraphLaunch via entry" \
    ' cudaGraphLaunch(_ptsz)?\(.*\) -> cudaSuccess [0-9]+ns entry@\(executable\)$'
  expect graph:static "<<<>>> in capture via entry" 1 "$entry_launch"
else
  same=no; record static_runtime "built without Zydis: carry zydis-debs/ (see above)" FAIL
fi

debug_run vecadd_static "$B/gpu/vecadd_static"
if python3 -c 'import torch' 2>/dev/null; then
  debug_run torch_matmul python3 "$G/torch_matmul.py"
else
  skip torch_matmul "python3 cannot import torch"
fi

# ---------------------------------------------------------------- library lifecycle
# The mock cases of tests/cases/lifecycle.sh on the real driver and runtime: dlclose and
# reopen, a dlopened -fno-plt library with a function table, a wheel-renamed libcudart.
C=$ROOT/tests/cases
L=$B/gpu/lifecycle
mkdir -p "$L/hidden" "$L/wheel"
if gcc -O2 -I"$C" -I"$CUDA_INC" -o "$L/lifecycle_reload" "$C/lifecycle_reload.c" -ldl &&
  gcc -O2 -I"$C" -I"$CUDA_INC" -o "$L/lifecycle_loads" "$C/lifecycle_loads.c" -ldl &&
  gcc -O2 -I"$C" -I"$CUDA_INC" -o "$L/lifecycle_runtime" "$C/lifecycle_runtime.c" -ldl &&
  gcc -O2 -shared -fPIC -fno-plt -I"$CUDA_INC" -o "$L/liblifecycle_refs.so" "$C/lifecycle_refs.c" -L"$CUDA_LIB" -L"$CUDA_LIB/stubs" -lcuda &&
  gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$L/liblifecycle_lazyref.so" "$C/lifecycle_lazyref.c" &&
  gcc -O2 -shared -fPIC -o "$L/liblifecycle_notcuda.so" "$C/lifecycle_notcuda.c" &&
  gcc -O2 -shared -fPIC -o "$L/hidden/liblifecycle_missing.so" "$C/lifecycle_missing.c" &&
  gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$L/liblifecycle_probe.so" "$C/lifecycle_probe.c" \
    -L"$L/hidden" -llifecycle_missing -L"$CUDA_LIB" -L"$CUDA_LIB/stubs" -lcuda >>"$R/build.log" 2>&1; then
  run lc_reload "$L/lifecycle_reload" 20 libcuda.so.1
  outputs_same lc_reload
  expect lc_reload "cuMemAlloc_v2 via dlsym, once a round" 20 ' cuMemAlloc_v2\(.*\) -> CUDA_SUCCESS [0-9]+ns dlsym$'
  expect lc_reload "cuDeviceGetCount via procaddress, once a round" 20 ' cuDeviceGetCount\(.*\) -> CUDA_SUCCESS [0-9]+ns procaddress$'
  LD_LIBRARY_PATH="$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run lc_got "$L/lifecycle_loads"
  outputs_same lc_got
  expect lc_got "dlopened -fno-plt and tables via got (8 names)" 8 ' (cuInit|cuDeviceGetCount|cuDeviceGet|cuDevicePrimaryCtxRetain|cuCtxSetCurrent|cuMemAlloc_v2|cuMemFree_v2|cuDriverGetVersion)\(.*\) -> CUDA_SUCCESS [0-9]+ns got$'
  cudart=$(ldconfig -p | awk '/libcudart.so.13 /{print $NF; exit}')
  [ -z "$cudart" ] && cudart=$(ls "$CUDA_LIB"/libcudart.so.13* 2>/dev/null | head -1)
  cp -L "$cudart" "$L/wheel/libcudart-1a2b3c4d.so.13"
  run lc_renamed "$L/lifecycle_runtime" "$L/wheel/libcudart-1a2b3c4d.so.13"
  outputs_same lc_renamed
  expect lc_renamed "renamed runtime recognised" 1 'libcudart loaded: .*libcudart-1a2b3c4d.so.13$'
  expect lc_renamed "cudaMalloc via dlsym" 1 ' cudaMalloc\(.*\) -> cudaSuccess [0-9]+ns dlsym$'
else
  same=n/a; record lifecycle "lifecycle programs build" FAIL
fi

# ---------------------------------------------------------------- output survival (issue 15)
# A real program's summary, trace and metrics after exit; then one killed mid-run: its last
# snapshot and `cuaudit trace` of its raw file must be valid.
same=n/a
jsonok() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$@" 2>/dev/null; }
LD_AUDIT=$AUDIT CUAUDIT_LOG=warn CUAUDIT_SUMMARY=$R/o.s.json CUAUDIT_TRACE=$R/o.t.json CUAUDIT_METRICS=$R/o.prom \
  "$B/gpu/cublas_gemm" >/dev/null 2>"$R/o.err"
if jsonok "$R/o.s.json" 'len(d["apis"]) > 0' && jsonok "$R/o.t.json" 'len(d["traceEvents"]) > 10' &&
  grep -qE '^cuaudit_calls_total\{.*api="cuLaunchKernel(Ex)?"' "$R/o.prom"; then
  record cublas_gemm "summary, trace and metrics valid after exit" pass
else
  record cublas_gemm "summary, trace and metrics valid after exit" FAIL
fi
kprog=("$B/gpu/threads_ptds"); python3 -c 'import torch' 2>/dev/null && kprog=(python3 "$G/torch_train.py")
LD_AUDIT=$AUDIT CUAUDIT_LOG=warn CUAUDIT_FLUSH_INTERVAL=1 CUAUDIT_SUMMARY=$R/k.s.json CUAUDIT_TRACE=$R/k.t.json \
  "${kprog[@]}" >/dev/null 2>"$R/k.err" &
kpid=$!; sleep 6; kill -KILL $kpid 2>/dev/null; wait $kpid; krc=$?
if [ $krc = 137 ]; then
  "$B/cuaudit" trace -o "$R/k.json" "$R"/k.t.json.*.raw >>"$R/k.err" 2>&1
  if jsonok "$R/k.s.json" 'd.get("snapshot") is True and len(d["apis"]) > 0' && jsonok "$R/k.json" 'len(d["traceEvents"]) > 2'; then
    record "${kprog[-1]##*/}" "SIGKILL at 6 s: snapshot and cuaudit trace valid" pass
  else
    record "${kprog[-1]##*/}" "SIGKILL at 6 s: snapshot and cuaudit trace valid" FAIL
  fi
else
  rows+=("$(printf '%-16s %-10s %-58s %s' "${kprog[-1]##*/}" "$same" "ended before the SIGKILL at 6 s (rc $krc)" "not checked")")
fi

# exec: a PyTorch launcher execs a PyTorch workload (after one failed exec). The launcher's
# summary and trace are written at the exec; the workload keeps the pid and writes NAME.1.json.
if python3 -c 'import torch' 2>/dev/null; then
  python3 "$G/exec_launch.py" >"$R/x.native.out" 2>"$R/x.native.err"; nrc=$?
  LD_AUDIT=$AUDIT CUAUDIT_LOG=warn CUAUDIT_LOG_FILE=$R/x.log CUAUDIT_SUMMARY=$R/x.s.%p.json CUAUDIT_TRACE=$R/x.t.%p.json \
    python3 "$G/exec_launch.py" >"$R/x.audited.out" 2>"$R/x.audited.err"; arc=$?
  same=no; [ $nrc = 0 ] && [ $arc = 0 ] && cmp -s "$R/x.native.out" "$R/x.audited.out" && same=yes
  xs=$(ls "$R"/x.s.*.json 2>/dev/null | grep -v '\.1\.json$' | head -1); xs1=${xs%.json}.1.json
  xt=${xs/x.s./x.t.}; xt1=${xt%.json}.1.json
  if [ -n "$xs" ] && jsonok "$xs" 'len(d["apis"]) > 0 and not d.get("snapshot")' && jsonok "$xs1" 'len(d["apis"]) > 0' &&
    jsonok "$xt" 'len(d["traceEvents"]) > 10' && jsonok "$xt1" 'len(d["traceEvents"]) > 10' &&
    grep -q 'warning: exec failed: EACCES' "$R/x.log" && [ "$(ls "$R"/x.s.*.json | wc -l)" = 2 ]; then
    record exec_launch "launcher's and workload's summaries and traces apart" pass
  else
    record exec_launch "launcher's and workload's summaries and traces apart" FAIL
  fi
fi

# ---------------------------------------------------------------- table
echo
printf '%-16s %-10s %-58s %s\n' program identical check result
printf '%s\n' "${rows[@]}"
echo "$passed passed, $failed failed"
# The device tool brings back what is under $OUT: one archive of every log.
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-check.tgz" -C "$B" out
[ "$failed" -eq 0 ]
