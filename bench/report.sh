#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/report.sh: times `cuaudit report` merging two summaries of N API names each, for growing N; prints one table.
# Usage: bench/report.sh BUILD_DIR [N...]   (no GPU needed; default N: 25000 50000 100000 200000)
# An O(n log n) merge shows a near-constant "us/name" column; the quadratic merge of issue 11
# took 24 s at 100000 names.
set -eu
B=$1
shift
sizes=${*:-25000 50000 100000 200000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf '%8s %10s %10s %10s\n' names median_ms us/name input_MB
for n in $sizes; do
  python3 - "$W" "$n" <<'PY'
import json, sys
w, n = sys.argv[1], int(sys.argv[2])
for i in (1, 2):
    apis = [{"name": f"api{(k * 7919) % n}", "layer": "driver", "nested": False, "calls": 3,
             "errors": 0, "total_ns": k} for k in range(n)]
    json.dump({"schema": "cuaudit-summary/1", "pid": i, "apis": apis}, open(f"{w}/s{i}.json", "w"))
PY
  ms=()
  for _ in 1 2 3 4 5; do
    s=$(date +%s%N)
    "$B/cuaudit" report --csv "$W/s1.json" "$W/s2.json" >/dev/null
    ms+=($((($(date +%s%N) - s) / 1000000)))
  done
  med=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 3p)
  mb=$(du -cm "$W"/s1.json "$W"/s2.json | tail -1 | cut -f1)
  awk -v n="$n" -v m="$med" -v mb="$mb" 'BEGIN { printf "%8d %10d %10.2f %10d\n", n, m, m * 1000 / n, mb }'
done
