#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/soak.sh: 16 threads x 1M driver calls on the mock with summary and trace on; checks exact counts,
# a complete trace and bounded memory. Usage: bench/soak.sh BUILD_DIR [THREADS] [CALLS_PER_THREAD]
set -u
B=$1 T=${2:-16} N=${3:-1000000}
W=$(mktemp -d)
export LD_LIBRARY_PATH=$B/mock
/usr/bin/time -f '%e s %M KiB' "$B/tests/cases/soak" "$T" "$N" >"$W/native.out" 2>"$W/native.err"
/usr/bin/time -f '%e s %M KiB' env LD_AUDIT="$B/libcuaudit.so" CUAUDIT_SUMMARY="$W/s.json" CUAUDIT_TRACE="$W/t.json" \
  "$B/tests/cases/soak" "$T" "$N" >"$W/audited.out" 2>"$W/audited.err"
cmp -s "$W/native.out" "$W/audited.out" && echo "output identical: $(cat "$W/audited.out")" || echo "OUTPUT DIFFERS"
echo "native:  $(tail -1 "$W/native.err")"
echo "audited: $(tail -1 "$W/audited.err") (peak RSS; wall time includes writing the trace)"
python3 - "$W/s.json" "$W/t.json" "$T" "$N" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = int(sys.argv[3]) * int(sys.argv[4])
calls = [a["calls"] for a in s["apis"] if a["name"] == "cuDeviceGetCount" and not a["nested"]][0]
print("summary: cuDeviceGetCount calls %d, expected %d: %s" % (calls, want, "exact" if calls == want else "WRONG"))
# The trace has one event per line: check the envelope and parse every event, streaming.
n = 0
with open(sys.argv[2]) as f:
    head = f.readline()
    assert head.startswith('{"displayTimeUnit":"ns","traceEvents":['), head
    for line in f:
        line = line.rstrip("\n")
        if line == "]}":
            break
        ev = json.loads(line.rstrip(","))
        n += ev.get("name") == "cuDeviceGetCount"
    else:
        raise SystemExit("trace: no closing ]}")
print("trace: %d cuDeviceGetCount events, every line valid JSON, closed: %s" % (n, "exact" if n == want else "WRONG"))
PY
ls -la "$W/t.json" | awk '{print "trace size: " $5 " bytes"}'
rm -rf "$W"
