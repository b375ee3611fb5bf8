#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-static.sh: on a GPU machine, CUAUDIT_STATIC_RUNTIME=1 on CuPy, JAX and PyTorch over NCCL: every linked-in runtime copy patched and its calls seen through it, outputs identical to native; a table last.
# Usage: scripts/gpu-check-static.sh   (no arguments; needs a CUDA driver, python3 with cupy, jax and torch)
# Builds into ${GPU_BUILD_DIR:-build-gpu} as scripts/gpu-check.sh does, or reuses libcuaudit.so there.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-static
G=$ROOT/tests/gpu
rm -rf "$R"
mkdir -p "$R"
AUDIT=$B/libcuaudit.so
rows=()
passed=0
failed=0

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | sed 's/^/gpu, driver: /'
  python3 - <<'PY' 2>&1
import importlib
for m in ("cupy", "jax", "torch"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "missing:", type(e).__name__)
PY
} | tee "$R/versions.txt"

# ---------------------------------------------------------------- build (as scripts/gpu-check.sh)
if [ ! -f "$AUDIT" ]; then
  zydis_args=()
  if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$ROOT"/zydis-debs/*.deb >/dev/null 2>&1; then
    for d in "$ROOT"/zydis-debs/*.deb; do dpkg -x "$d" "$B/zydis"; done
    zydis_args=(-DZYDIS_INCLUDE_DIR="$B/zydis/usr/include"
      -DZYDIS_LIBRARY="$(ls "$B"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
  fi
  cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 "${zydis_args[@]}" >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "0 passed, 1 failed"; exit 1; }
fi
if ! nm -D --undefined-only "$AUDIT" | grep -q Zydis; then
  echo "libcuaudit.so was built without the Zydis decoder: CUAUDIT_STATIC_RUNTIME cannot work"
  echo "0 passed, 1 failed"
  exit 1
fi

record() { # PROGRAM IDENTICAL CHECK VERDICT
  rows+=("$(printf '%-14s %-9s %-78s %s' "$1" "$2" "$3" "$4")")
  if [ "$4" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# The copies of one run: from the info log (patch counts), the summary (calls by object) and
# the trace (events by object). Prints "label|verdict" rows for record().
cat >"$R/copies.py" <<'PY'
import json, os, re, sys
log, summary, trace, required = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
copies, stubs, refused_copies = {}, [], []
for line in open(log, errors="replace"):
    m = re.search(r"info: (.*) \(static runtime, copy (\d+)\): entries patched=(\d+) (.*) in (\d+) us$", line)
    if m:
        path = m.group(1)
        refused = sum(int(x) for x in re.findall(r"=(\d+)", m.group(4)))
        copies.setdefault(path, []).append((int(m.group(2)), int(m.group(3)), refused, int(m.group(5))))
    m = re.search(r"info: (.*) has no runtime of its own: its (\d+) runtime functions are forwarding stubs", line)
    if m:
        stubs.append((m.group(1), int(m.group(2))))
    if "a second static runtime" in line or "more than 32 statically linked" in line:
        refused_copies.append(line.strip())
s = json.load(open(summary))
calls = {o["object"]: o for o in s.get("entry_objects", [])}
t = json.load(open(trace))
events = t["traceEvents"] if isinstance(t, dict) else t
traced = {}
for e in events:
    a = e.get("args", {})
    if isinstance(a, dict) and a.get("binding") == "entry":
        traced[a.get("object")] = traced.get(a.get("object"), 0) + 1
def short(p):
    return p if p == "(executable)" else "/".join(p.split("/")[-2:])
for path, runs in sorted(copies.items()):
    copy, patched, refused, us = runs[-1]
    n = calls.get(path, {}).get("calls", 0)
    top = sorted(calls.get(path, {}).get("apis", {}).items(), key=lambda kv: -kv[1])[:3]
    ok = patched > 0 and n > 0 and traced.get(path, 0) > 0
    print("copy %d %s: patched=%d refused=%d in %d us; calls %d (trace %d) %s|%s" % (
        copy, short(path), patched, refused, us, n, traced.get(path, 0),
        " ".join("%s=%d" % kv for kv in top), "pass" if ok else "FAIL"))
for path, n in stubs:
    print("%s: %d forwarding stubs (seen through the shared libcudart)|info" % (short(path), n))
for line in refused_copies:
    print("refused copy: %s|FAIL" % line[-70:])
runtime = {}
for api in s["apis"]:
    if api["layer"] == "runtime" and not api["nested"]:
        for k, v in api["bindings"].items():
            runtime[k] = runtime.get(k, 0) + v
print("runtime-level calls by binding: %s|%s" % (
    " ".join("%s=%d" % kv for kv in sorted(runtime.items()) if kv[1]) or "none",
    "pass" if sum(runtime.values()) else "FAIL"))
for pat in required:
    hit = [p for p in copies if re.search(pat, p)] + [p for p, _ in stubs if re.search(pat, p)]
    print("object %s present as a copy or stub: %s|%s" % (pat, len(hit), "pass" if hit else "FAIL"))
PY

# check NAME MODULE SCRIPT REQUIRED_OBJECT_REGEX...: native, then under CUAUDIT_STATIC_RUNTIME=1
# with the info log, summary and trace; outputs compared; each copy's row.
check() {
  local name=$1 module=$2 script=$3 same v label
  shift 3
  if ! python3 -c "import $module" 2>/dev/null; then
    record "$name" - "python3 cannot import $module" FAIL
    return
  fi
  python3 "$G/$script" >"$R/$name.native.out" 2>"$R/$name.native.err"
  local nrc=$?
  CUAUDIT_STATIC_RUNTIME=1 LD_AUDIT=$AUDIT CUAUDIT_LOG=info CUAUDIT_LOG_FILE=$R/$name.log \
    CUAUDIT_SUMMARY=$R/$name.summary.json CUAUDIT_TRACE=$R/$name.trace.json \
    python3 "$G/$script" >"$R/$name.audited.out" 2>"$R/$name.audited.err"
  local arc=$?
  if [ $nrc -eq 0 ] && [ $arc -eq 0 ] && cmp -s "$R/$name.native.out" "$R/$name.audited.out"; then
    same=yes; v=pass; else same="NO($nrc/$arc)"; v=FAIL; fi
  record "$name" "$same" "output identical to native ($(wc -l <"$R/$name.native.out") lines)" "$v"
  python3 "$R/copies.py" "$R/$name.log" "$R/$name.summary.json" "$R/$name.trace.json" "$@" \
    >"$R/$name.copies.txt" 2>&1 || echo "copies.py failed: $(tail -1 "$R/$name.copies.txt")|FAIL" >>"$R/$name.copies.txt"
  while IFS='|' read -r label v; do
    if [ "$v" = info ]; then rows+=("$(printf '%-14s %-9s %-78s %s' "$name" "$same" "$label" "-")")
    else record "$name" "$same" "$label" "$v"; fi
  done <"$R/$name.copies.txt"
}

# CuPy: its core runtime module, CUB, Thrust and the random generator API each link a runtime.
export CUPY_ACCELERATORS=cub
check cupy cupy cupy_copies.py \
  'cupy_backends/cuda/api/runtime' 'cupy/cuda/cub' 'cupy/cuda/thrust' 'cupy/random/_generator_api'
unset CUPY_ACCELERATORS
# JAX: the plugin's objects; whichever form they have (a linked-in runtime, or forwarding stubs
# to the shared libcudart), each must be named, and runtime-level calls seen.
check jax jax jax_copies.py '_versions' 'cuda_plugin_extension'
# PyTorch over NCCL: libnccl.so.2 links a runtime; PyTorch itself uses the shared one.
check nccl torch nccl_allreduce.py 'libnccl\.so'

# What JAX's _versions.so entries are (issue 23: 358 were 'too-short' before forwarding stubs
# were recognised): sizes and first instructions of a few runtime functions.
jdir=$(python3 -c 'import jax_cuda13_plugin, os; print(os.path.dirname(jax_cuda13_plugin.__file__))' 2>/dev/null)
if [ -n "$jdir" ] && [ -f "$jdir/_versions.so" ]; then
  so=$(ls "$jdir"/_versions*.so | head -1)
  {
    echo "== $so"
    readelf -SW "$so" | grep -E '\.symtab|\.text|\.nvFatBinSegment|\.nv_fatbin' || true
    for f in cudaMalloc cudaGetDevice __cudaRegisterFatBinary cudaLaunchKernel; do
      line=$(readelf -sW "$so" | awk -v f="$f" '$8 == f && $4 == "FUNC"' | head -1)
      echo "-- $f: $line"
      addr=$(echo "$line" | awk '{print $2}')
      [ -n "$addr" ] && objdump -d --no-show-raw-insn --start-address=0x$addr \
        --stop-address=$(printf '0x%x' $((0x$addr + 32))) "$so" | tail -n +7 | head -8
    done
    echo "-- st_size of the runtime functions (size: count)"
    readelf -sW "$so" | awk '$4 == "FUNC" && $8 ~ /^(cuda|__cuda)/ {print $3}' | sort | uniq -c | sort -rn | head -5
  } >"$R/jax_versions.txt" 2>&1
  sizes=$(awk '/st_size of the runtime functions/ {f=1; next} f' "$R/jax_versions.txt" | head -2 | awk '{printf "%s x size %s; ", $1, $2}')
  first=$(awk '/^-- cudaMalloc/ {f=1; next} f && /:/ {sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); print; exit}' "$R/jax_versions.txt")
  rows+=("$(printf '%-14s %-9s %-78s %s' jax:_versions - "runtime functions: ${sizes:-none}cudaMalloc starts: ${first:-?}" "-")")
fi

# ---------------------------------------------------------------- table
echo
printf '%-14s %-9s %-78s %s\n' program identical check result
printf '%s\n' "${rows[@]}"
echo "$passed passed, $failed failed"
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-check-static.tgz" -C "$B" out-static
[ "$failed" -eq 0 ]
