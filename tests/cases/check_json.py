#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/check_json.py: checks a summary or trace file with Python's JSON parser; prints what the runner asserts on.
import json
import sys


def summary(path, args):
    doc = json.load(open(path))
    assert isinstance(doc["apis"], list), "apis is not an array"
    for a in doc["apis"]:
        for key in ("name", "layer", "calls", "errors", "total_ns", "bindings"):
            assert key in a, f"{a.get('name')}: no {key}"
        assert a["layer"] in ("driver", "runtime")
        assert a["min_ns"] <= a["median_ns"] <= a["p99_ns"] <= a["max_ns"], a
        assert sum(a["bindings"].values()) == a["calls"], a
    # Each argument NAME:NESTED prints that API's calls and errors.
    for want in args:
        name, nested = want.split(":")
        rows = [a for a in doc["apis"] if a["name"] == name and a["nested"] == (nested == "nested")]
        print(f"{want} calls={rows[0]['calls'] if rows else 0} errors={rows[0]['errors'] if rows else 0}")
    print("libraries", " ".join(f"{l['layer']}:{sum(l['bindings'].values())}" for l in doc["libraries"]))


def trace(path, args):
    doc = json.load(open(path))
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    by_name = {}
    for e in events:
        by_name[e["name"]] = by_name.get(e["name"], 0) + 1
        assert "result" in e["args"] and "binding" in e["args"], e
    # Every driver call that ran inside a runtime call must lie within it on the same thread.
    runtime = [e for e in events if e["cat"] == "runtime"]
    nested = enclosed = 0
    for d in (e for e in events if e["cat"] == "driver"):
        outer = [r for r in runtime if r["tid"] == d["tid"] and r["ts"] <= d["ts"]
                 and d["ts"] + d["dur"] <= r["ts"] + r["dur"]]
        if outer:
            enclosed += 1
    for name in args:
        print(f"{name} events={by_name.get(name, 0)}")
    print(f"events={len(events)} driver_inside_runtime={enclosed}")


if __name__ == "__main__":
    kind, path, *rest = sys.argv[1:]
    (summary if kind == "summary" else trace)(path, rest)
