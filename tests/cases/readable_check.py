#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/readable_check.py: checks the readable parts of summaries and traces; prints what tests/cases/readable.sh asserts on.
import json
import re
import sys


def kernels(path):
    """The summary's kernels table: one line per kernel, launches and errors."""
    doc = json.load(open(path))
    for k in doc["kernels"]:
        assert set(k) >= {"name", "launches", "errors", "total_ns"}, k
        assert all(isinstance(k[f], int) for f in ("launches", "errors", "total_ns")), k
        # The name as compiled is the key; the readable one (CUAUDIT_DEMANGLE) beside it.
        readable = f" demangled={k['demangled']}" if "demangled" in k else ""
        print(f"kernel {k['name']} launches={k['launches']} errors={k['errors']}{readable}")


def process(path):
    """The summary's process object, each field checked for its type."""
    p = json.load(open(path))["process"]
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    assert isinstance(p["pid"], int) and isinstance(p["host"], str), p
    assert stamp.match(p["start"]) and stamp.match(p["end"]) and p["start"] <= p["end"], p
    for f in ("driver_version", "runtime_version"):
        assert p[f] is None or isinstance(p[f], int), p
    for f in ("host", "pid", "command", "cuaudit_version", "driver_version", "runtime_version"):
        print(f"{f}={p[f]}")


def trace(path):
    """Launch events' kernel names, argument types, and the metadata names."""
    doc = json.load(open(path))
    events = doc["traceEvents"]
    calls = [e for e in events if e.get("ph") == "X"]
    for e in calls:
        if "kernel_name" in e["args"]:
            mangled = f" mangled={e['args']['mangled']}" if "mangled" in e["args"] else ""
            print(f"launch {e['name']} kernel={e['args']['kernel_name']}{mangled}")
    # Integers are JSON numbers; pointers and names stay strings.
    for e in calls:
        for key, value in e["args"].items():
            if key in ("bytesize", "ByteCount", "len", "ordinal", "Flags"):
                assert isinstance(value, int), (e["name"], key, value)
    typed = sum(1 for e in calls for k, v in e["args"].items() if isinstance(v, int))
    print(f"integer_args={'yes' if typed else 'no'}")
    tids = {e["tid"] for e in calls}
    for e in events:
        if e.get("ph") == "M" and e["name"] == "process_name":
            print(f"process_name={e['args']['name']}")
    named = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    print(f"threads={len(tids)} named={len(tids & set(named))}")
    for tid in sorted(named):
        print(f"thread_name={named[tid]}")
    print("calls " + " ".join(sorted({e["name"] for e in calls})))


def summary_apis(path):
    doc = json.load(open(path))
    print("apis " + " ".join(sorted({a["name"] for a in doc["apis"]})))


if __name__ == "__main__":
    {"kernels": kernels, "process": process, "trace": trace, "apis": summary_apis}[sys.argv[1]](sys.argv[2])
