#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/compare_summaries.py: compares two summary JSON files call for call, bindings aside (static vs shared runtime).
"""Usage: compare_summaries.py A.json B.json [runtime|nested|all]

Rows are keyed by (name, nested) and compared by calls and errors, never by binding kind.
"runtime" (the default) compares the runtime-layer rows the program called (not nested).
"nested" adds the driver rows made inside runtime calls (on the mock both runtimes make the
same ones; a real static and shared cudart may initialise differently). "all" compares every
row. Prints each difference and exits 1 if there is any."""
import json
import sys


def rows(path, scope):
    doc = json.load(open(path))
    out = {}
    for a in doc["apis"]:
        if scope == "runtime" and (a["layer"] != "runtime" or a["nested"]):
            continue
        if scope == "nested" and not (a["layer"] == "runtime" or a["nested"]):
            continue
        out[(a["name"], a["nested"])] = (a["calls"], a["errors"])
    return out


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    scope = sys.argv[3] if len(sys.argv) > 3 else "runtime"
    a, b = rows(a_path, scope), rows(b_path, scope)
    diffs = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            name, nested = key
            print(f"differs: {name}{' (nested)' if nested else ''}: {a.get(key)} vs {b.get(key)}")
            diffs += 1
    print(f"compared {len(set(a) | set(b))} rows, {diffs} differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
