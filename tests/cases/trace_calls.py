#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/trace_calls.py: a trace's calls as text that two runs of one program can be compared by: per thread, in order, without times and thread ids.
"""trace_calls.py canon TRACE.json OUT: writes the calls of TRACE.json to OUT, one thread after
another, each as its name and its calls in the order they began (function, arguments as
printed, result, binding, depth); prints counts (threads, calls, calls at depth 0, per name).

Times and thread ids differ from run to run and are left out. Threads are put in order by
their names (threads of one name by their calls, their addresses numbered within each).
Addresses differ from run to run too (ASLR, heap and stack layout), so each 0x value of 8 or
more hex digits is replaced by its number in the order first seen, over the whole process:
an address two calls share stays shared. A record lost, repeated, moved or altered changes
the text.

trace_calls.py signal TRACE.json LOOP RUNS: the signal mode of trace_ring_prog: the main
loop's cuDeviceGet ordinals are 100000, 100001, ... in order, LOOP calls in all with the
cuDeviceGetCount between them; the handlers' are -1 .. -RUNS, each once, each with its
cuDriverGetVersion; no other call; the loop's calls all pass the same address, fail (cuDeviceGet)
or find the one device (cuDeviceGetCount). Prints the counts, and how many handler calls ran inside
a loop call.

trace_calls.py records RAW: the raw file RAW (cuaudit-raw/4, kept by
CUAUDIT_TRACE_EXIT_TIME=0) holds call records alone (and threads' names, marks, NVTX ranges):
each whole in its block, none of the references or ring records of the live view's rings
that an older writer put there. Prints how many."""
import bisect
import json
import re
import struct
import sys

ADDR = re.compile(r"0x[0-9a-f]{8,}")


def load(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = {}
    calls = {}
    other = []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "X" and "result" in e.get("args", {}):
            calls.setdefault((e["pid"], e["tid"]), []).append(e)
        elif e.get("ph") not in ("M",):
            other.append(e.get("name", ""))
    for key in calls:
        # The order the calls began in; a call nested in another begins after it.
        calls[key].sort(key=lambda e: (e["ts"], e["args"].get("depth", 0)))
    return names, calls, other


def text(e, rename):
    args = e["args"]
    parts = []
    for k, v in args.items():
        if k in ("result", "binding", "depth"):
            continue
        if not isinstance(v, str):
            v = str(v) if isinstance(v, int) else json.dumps(v, ensure_ascii=False)
        elif "0x" in v:
            v = ADDR.sub(rename, v)
        parts.append(f"{k}={v}")
    # A result may be an address too (__cudaRegisterFatBinary's handle).
    result = ADDR.sub(rename, args["result"]) if isinstance(args["result"], str) else args["result"]
    return (f"{e['cat']} {e['name']}({', '.join(parts)}) -> {result} "
            f"{args['binding']} depth={args.get('depth', 0)}")


def numbering():
    seen = {}

    def rename(m):
        return "@" + str(seen.setdefault(m.group(0), len(seen) + 1))
    return rename


def canon(path, out):
    names, calls, other = load(path)
    threads = []
    by_name = {}
    for key in calls:
        by_name.setdefault(names.get(key, "(unnamed)"), []).append(key)
    for name, keys in by_name.items():
        for key in keys:
            # Threads of one name are told apart by their calls, each numbered on its own
            # (the test programs name each thread differently: this is the fallback).
            local = [text(e, numbering()) for e in calls[key]] if len(keys) > 1 else []
            threads.append((name, local, calls[key]))
    threads.sort(key=lambda t: (t[0], t[1]))
    total = outer = 0
    per_name = {}
    glob = numbering()
    with open(out, "w") as f:
        for name, _, evs in threads:
            f.write(f"thread {name}: {len(evs)} calls\n")
            for e in evs:
                f.write("  " + text(e, glob) + "\n")
                total += 1
                outer += e["args"].get("depth", 0) == 0
                per_name[e["name"]] = per_name.get(e["name"], 0) + 1
        for o in sorted(other):
            f.write(f"other event: {o}\n")
    print(f"threads {len(threads)}")
    print(f"calls {total}")
    print(f"outer {outer}")
    for n in sorted(per_name):
        print(f"name {n} {per_name[n]}")


def signal(path, loop, runs):
    _, calls, _ = load(path)
    loop, runs = int(loop), int(runs)
    threads = [evs for evs in calls.values()]
    assert len(threads) == 1, f"{len(threads)} threads made calls, expected 1"
    evs = threads[0]
    main = [e for e in evs if e["name"] != "cuDriverGetVersion" and
            not (e["name"] == "cuDeviceGet" and e["args"]["ordinal"] < 0)]
    handler = [e for e in evs if e["name"] == "cuDeviceGet" and e["args"]["ordinal"] < 0]
    versions = [e for e in evs if e["name"] == "cuDriverGetVersion"]
    assert main[0]["name"] == "cuInit", main[0]
    want = 100000
    for i in range(1, len(main), 2):
        a, b = main[i], main[i + 1] if i + 1 < len(main) else None
        assert a["name"] == "cuDeviceGet" and a["args"]["ordinal"] == want, (i, a)
        assert b is not None and b["name"] == "cuDeviceGetCount", (i, b)
        want += 1
    assert len(main) == loop, f"main loop: {len(main)} calls in the trace, {loop} made"
    # Each of the loop's cuDeviceGet passes the same address (one stack frame) and fails;
    # each cuDeviceGetCount finds the one device.
    gets = [e for e in main if e["name"] == "cuDeviceGet"]
    addrs = {e["args"]["device"] for e in gets}
    assert len(addrs) == 1, f"the loop's cuDeviceGet passed {len(addrs)} addresses: {sorted(addrs)[:4]}"
    assert all(e["args"]["result"] == "CUDA_ERROR_INVALID_DEVICE" for e in gets + handler), \
        [e for e in gets + handler if e["args"]["result"] != "CUDA_ERROR_INVALID_DEVICE"][:1]
    counts = [e for e in main if e["name"] == "cuDeviceGetCount"]
    assert all(e["args"]["count"] == 1 and e["args"]["result"] == "CUDA_SUCCESS" for e in counts), \
        [e for e in counts if e["args"]["count"] != 1 or e["args"]["result"] != "CUDA_SUCCESS"][:1]
    ordinals = sorted(-e["args"]["ordinal"] for e in handler)
    assert ordinals == list(range(1, runs + 1)), \
        f"handlers: {len(ordinals)} calls, expected {runs}; missing " \
        f"{sorted(set(range(1, runs + 1)) - set(ordinals))[:5]}, extra " \
        f"{[o for o in ordinals if o > runs][:5]}"
    assert len(versions) == runs, f"{len(versions)} cuDriverGetVersion, expected {runs}"
    assert all(e["args"]["result"] == "CUDA_SUCCESS" for e in versions)
    assert len(evs) == loop + 2 * runs, f"{len(evs)} calls, the program made {loop + 2 * runs}"
    # How many handler calls ran inside a loop call (the trace's next level): printed.
    starts = [m["ts"] for m in main]
    inside = 0
    for h in handler:
        k = bisect.bisect_right(starts, h["ts"]) - 1
        inside += k >= 0 and h["ts"] + h["dur"] <= main[k]["ts"] + main[k]["dur"]
    # And how many inside a handler's call (a level deeper still).
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in handler + versions)
    deeper = sum(1 for i in range(1, len(spans)) if any(
        s <= spans[i][0] and spans[i][1] <= t for s, t in spans[max(0, i - 8):i]))
    print(f"loop {len(main)} handler {len(handler)} versions {len(versions)} inside {inside} "
          f"deeper {deeper}")

RAW_HEAD = 96          # struct cua_raw_head
BLOCK_MAGIC = 0x4b4c4243
REC_HEAD = 40          # struct cua_rec_head
NOT_CALLS = {0xffff, 0xfffe, 0xfffd}  # an NVTX range, a thread's name, a mark


def records(path):
    data = open(path, "rb").read()
    assert data[:14] == b"cuaudit-raw/4\n", data[:16]
    at, calls, others = RAW_HEAD, 0, 0
    while len(data) - at >= 16:
        magic, state, size = struct.unpack_from("<IIQ", data, at)
        if magic != BLOCK_MAGIC:
            assert magic == 0 and state == 0, (at, hex(magic))
            at += 8
            continue
        end = at + 16 + size
        assert end <= len(data), (at, size)
        r = at + 16
        while r < end:
            n, rid = struct.unpack_from("<IH", data, r)
            assert n >= REC_HEAD and n % 8 == 0 and r + n <= end, (r, n)
            assert rid < 0xfff0 or rid in NOT_CALLS, ("a record that is no call", r, hex(rid))
            calls += rid < 0xfff0
            others += rid >= 0xfff0
            r += n
        at = end
    print(f"the raw file holds {calls} call records and {others} others, nothing else")


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    {"canon": canon, "signal": signal, "records": records}[mode](*rest)
