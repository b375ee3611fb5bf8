#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/gpu-check-report.sh: on a GPU machine, checks real PyTorch summaries against the schema and `cuaudit report`'s tables; prints a table.
# Usage: scripts/gpu-check-report.sh   (needs nvcc's toolkit, a CUDA driver and python3 with torch;
# builds into GPU_BUILD_DIR, default build-gpu, like scripts/gpu-check.sh)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${GPU_BUILD_DIR:-$ROOT/build-gpu}
R=$B/out-report
rm -rf "$R"
mkdir -p "$R"
rows=()
passed=0
failed=0
check() { # LABEL VERDICT(pass|FAIL) DETAIL
  rows+=("$(printf '%-44s %-5s %s' "$1" "$2" "$3")")
  if [ "$2" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

cmake -S "$ROOT" -B "$B" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 >"$R/build.log" 2>&1 &&
  cmake --build "$B" -j"$(nproc)" >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; echo "0 passed, 1 failed"; exit 1; }
python3 -c 'import torch' 2>/dev/null || { echo "no torch: 0 passed, 1 failed"; exit 1; }

# Two processes, as torchrun ranks would write them.
for i in 1 2; do
  LD_AUDIT=$B/libcuaudit.so CUAUDIT_SUMMARY="$R/torch.%p.json" python3 "$ROOT/tests/gpu/torch_matmul.py" \
    >"$R/run$i.out" 2>&1
done
set -- "$R"/torch.*.json
[ $# = 2 ] && check "two summaries written" pass "$*" || check "two summaries written" FAIL "$*"

# The writer against docs/summary-schema.json, on real output.
for f in "$@"; do
  if python3 "$ROOT/tests/cases/check_json.py" summary "$f" >"$R/schema.txt" 2>&1; then
    check "summary matches the schema" pass "${f##*/}"
  else
    check "summary matches the schema" FAIL "$(tail -1 "$R/schema.txt")"
  fi
done

"$B/cuaudit" report --json="$R/merged.json" "$@" >"$R/report.txt" 2>"$R/report.err"
rc=$?
[ $rc = 0 ] && check "report exits 0" pass "" || check "report exits 0" FAIL "rc $rc: $(head -1 "$R/report.err")"
grep -q '^cuaudit report: 2 processes$' "$R/report.txt" && check "header counts 2 processes" pass "" ||
  check "header counts 2 processes" FAIL "$(head -1 "$R/report.txt")"
# Provenance and kernel names come from the "process" and "kernels" fields (readable branch).
n=$(grep -c '^  .*torch\.[0-9]*\.json: pid [0-9]* on .* to .*: .*torch_matmul.py' "$R/report.txt")
[ "$n" = 2 ] && check "header shows host, times, command" pass "" || check "header shows host, times, command" FAIL "$n of 2"
k=$(sed -n '/^kernel launches by name:/,/Total (/p' "$R/report.txt" | grep -cvE '^kernel launches|^ +total|Total \(|no kernel names')
[ "$k" -ge 1 ] && check "kernel table lists kernel names" pass "$k kernels, first: $(sed -n '/^kernel launches by name:/{n;n;p}' "$R/report.txt" | awk '{print $NF}')" ||
  check "kernel table lists kernel names" FAIL "$(sed -n '/^kernel launches/{n;p}' "$R/report.txt")"
grep -qE ' 2  (runtime|driver) +(__)?cudaLaunchKernel(_ptsz)?$| 2  driver +cuLaunchKernel' "$R/report.txt" &&
  check "launch APIs merged from both processes" pass "" || check "launch APIs merged from both processes" FAIL ""
python3 "$ROOT/tests/cases/check_json.py" merged "$R/merged.json" >/dev/null 2>&1 &&
  check "merged JSON matches the schema" pass "" || check "merged JSON matches the schema" FAIL ""
"$B/cuaudit" report --csv --table=kernels "$@" >"$R/kernels.csv" 2>/dev/null &&
  python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); assert r and all(int(x["launches"])>0 for x in r)' "$R/kernels.csv" 2>/dev/null &&
  check "kernel CSV parses, launches > 0" pass "$(($(wc -l <"$R/kernels.csv") - 1)) rows" || check "kernel CSV parses, launches > 0" FAIL ""

echo
sed -n '1,/^calls the applications made:/p' "$R/report.txt" | head -5
sed -n '/^kernel launches by name:/,/Total (/p' "$R/report.txt" | head -8
echo
printf '%-44s %-5s %s\n' check result detail
printf '%s\n' "${rows[@]}"
echo "$passed passed, $failed failed"
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-check-report.tgz" -C "$B" out-report
[ "$failed" -eq 0 ]
