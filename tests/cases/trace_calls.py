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

trace_calls.py paths RAW EXPECT: how each call of the raw file RAW (cuaudit-raw/4, kept by
CUAUDIT_TRACE_EXIT_TIME=0) is stored: "traced" (a ring record marked CUA_LIVE_TRACED keeps it
alone, with a tail after its arguments), "ref" (a reference joined with its ring record), or
"whole" (a call record, as without the view). EXPECT holds trace_ring_prog edges' lines
"expect ID ARGS LEN DEPTH PREFIX PATH N": the N calls of id ID at depth DEPTH whose variable
part begins with a string of LEN bytes beginning with PREFIX are all stored as PATH (a runtime
call at depth 0 may be whole: its record was in flight when the ring was written out), and the
runtime ones (lines "runtime ID") carry their nested calls' hook time. Prints the counts of
each path.

trace_calls.py hostile RAW EXPECT OUT [SEED]: RAW with one more block before its end marker,
made of its own tails (EXPECT as for paths, and "big ID ARGS", an id of 88 bytes of argument
struct): a ring record of calls kept by the ring alone, of which only the first two are sound
(a name not found, "hostile_kept_...", and an 88-byte argument struct with no room for more
than the tail); the others are each wrong in one way the reader must refuse: another thread,
not ended, not marked, a hook time with no room for it, an out-value or a kernel name past
the room. Written to OUT; with SEED, that block after a small one of the file's own (the first 32
records of a ring record and the references to them) to SEED too (a fuzz seed of
tests/fuzz/corpus/trace: blocks without the file's head)."""
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
LIVE_ARGS = 96         # CUA_LIVE_ARGS
LIVE_CALL = REC_HEAD + LIVE_ARGS + 8
ID_REF, ID_RING = 0xfffc, 0xfffb
TRACED = 1 << 24       # CUA_LIVE_TRACED
TAIL_HOOKS = 8         # CUA_TAIL_HOOKS


def head(b, at):
    size, rid, binding, depth, tid, flags, t0, t1 = struct.unpack_from("<IHBBIIQQ", b, at)
    return dict(size=size, id=rid, depth=depth, tid=tid, flags=flags, t_start=t0, t_end=t1)


def ended(index):
    return (index * 4 + 4) & 0xffffffff


def raw_calls(path, args_of):
    """Each call of the file, stored how: (path, id, depth, variable part, hook time > 0)."""
    data = open(path, "rb").read()
    assert data[:14] == b"cuaudit-raw/4\n", data[:16]
    at, out = RAW_HEAD, []
    while len(data) - at >= 16:
        magic, state, n = struct.unpack_from("<IIQ", data, at)
        if magic == 0 and state == 0 and n == 0:
            at += 8  # a place taken and never written
            continue
        assert magic == BLOCK_MAGIC, f"no block head at {at}"
        at += 16
        if state in (2, 3):
            break
        assert state == 1 and at + n <= len(data), f"block at {at - 16}: state {state}"
        out += block_calls(data[at:at + n], args_of)
        at += n
    return out


def block_calls(b, args_of):
    recs, at = [], 0
    while len(b) - at >= REC_HEAD:
        h = head(b, at)
        assert h["size"] >= REC_HEAD and h["size"] % 8 == 0 and at + h["size"] <= len(b), (at, h)
        recs.append((at, h))
        at += h["size"]
    out = []
    for i, (at, h) in enumerate(recs):
        if h["id"] == ID_REF:
            ring = next((r for r in recs[i + 1:] if r[1]["id"] == ID_RING), None)
            assert ring is not None, f"a reference at {at} with no ring record after it"
            k = h["t_start"] - ring[1]["t_start"]
            assert 0 <= k < ring[1]["t_end"], f"reference {h['t_start']} outside its ring record"
            e = head(b, ring[0] + REC_HEAD + k * LIVE_CALL)
            assert e["size"] == ended(h["t_start"]) and e["tid"] == h["tid"], (h, e)
            out.append(("ref", e["id"], e["depth"], b[at + REC_HEAD:at + h["size"]], h["t_end"] > 0))
        elif h["id"] == ID_RING:
            for k in range(h["t_end"]):
                ea = at + REC_HEAD + k * LIVE_CALL
                e = head(b, ea)
                if not (e["flags"] & TRACED) or e["size"] != ended(h["t_start"] + k) or e["tid"] != h["tid"]:
                    continue
                args = args_of.get(e["id"])
                if args is None:
                    out.append(("traced", e["id"], e["depth"], b"", False))
                    continue
                a = b[ea + REC_HEAD:ea + REC_HEAD + LIVE_ARGS]
                flags, _copy = struct.unpack_from("<II", a, args)
                hooks = bool(flags & TAIL_HOOKS)
                var = a[args + 8 + (8 if hooks else 0):]
                out.append(("traced", e["id"], e["depth"], var,
                            hooks and struct.unpack_from("<Q", a, args + 8)[0] > 0))
        elif h["id"] < 0xfff0:
            args = args_of.get(h["id"], 0)
            out.append(("whole", h["id"], h["depth"], b[at + REC_HEAD + args:at + h["size"]], False))
    return out


def paths(raw, expect_file):
    want, runtime = [], set()
    for line in open(expect_file):
        if line.startswith("runtime "):
            runtime.add(int(line.split()[1]))
        if line.startswith("expect "):
            _, rid, args, n, depth, prefix, path, count = line.split()
            want.append((int(rid), int(args), int(n), int(depth), prefix.encode(), path, int(count)))
    assert want, "no expectations"
    args_of = {w[0]: w[1] for w in want}
    calls = raw_calls(raw, args_of)
    totals = {}
    for c in calls:
        totals[c[0]] = totals.get(c[0], 0) + 1
    bad = []
    for rid, args, n, depth, prefix, path, count in want:
        got = {}
        for how, cid, cdepth, var, hook in calls:
            if cid != rid or cdepth != depth or len(var) < 1 + n or var[0] != n or \
                    not var[1:1 + n].startswith(prefix):
                continue
            got[how] = got.get(how, 0) + 1
        # A runtime call (one that nests the driver's) may be whole: in flight when a nested
        # call wrote the ring out.
        ok = got.get(path, 0) >= 1 and sum(got.values()) == count and \
            all(h == path or (h == "whole" and rid in runtime and depth == 0) for h in got)
        print(f"id {rid} depth {depth} {prefix.decode()}.. of {n} bytes: {path} expected, "
              f"{got} of {count}{'' if ok else '  <-- WRONG'}")
        if not ok:
            bad.append((rid, n, depth))
    # The runtime calls' tails and references say the nested calls' hook time.
    for how, cid, cdepth, var, hook in calls:
        if how != "whole" and cdepth == 0 and cid in runtime and not hook:
            bad.append(("no hook time", cid))
            break
    print(f"paths {' '.join(f'{k} {v}' for k, v in sorted(totals.items()))}")
    assert not bad, bad
    assert totals.get("traced", 0) and totals.get("ref", 0), totals

def find_traced(data, rid, n, prefix):
    """The first ring record entry of the raw bytes marked traced, of id rid, whose tail's
    variable part begins with a string of n bytes beginning with prefix: its 144 bytes."""
    at = RAW_HEAD
    while len(data) - at >= 16:
        magic, state, size = struct.unpack_from("<IIQ", data, at)
        at += 16
        if magic != BLOCK_MAGIC or state != 1:
            break
        b, r = data[at:at + size], 0
        while len(b) - r >= REC_HEAD:
            h = head(b, r)
            for k in range(h["t_end"] if h["id"] == ID_RING else 0):
                e = b[r + REC_HEAD + k * LIVE_CALL:r + REC_HEAD + (k + 1) * LIVE_CALL]
                eh = head(e, 0)
                if eh["id"] == rid and eh["flags"] & TRACED and eh["depth"] == 0:
                    yield bytearray(e)
            r += h["size"]
        at += size


def compact_block(data, keep=32):
    """The first ring record of the file that holds calls kept alone and is referred to, cut
    to its first keep records, after the references to them: one block."""
    at = RAW_HEAD
    while len(data) - at >= 16:
        magic, state, size = struct.unpack_from("<IIQ", data, at)
        at += 16
        if magic != BLOCK_MAGIC or state != 1:
            break
        b, r, refs = data[at:at + size], 0, []
        while len(b) - r >= REC_HEAD:
            h = head(b, r)
            if h["id"] == ID_REF:
                refs.append((r, h))
            elif h["id"] == ID_RING:
                mine = [b[x:x + g["size"]] for x, g in refs
                        if 0 <= g["t_start"] - h["t_start"] < min(keep, h["t_end"])]
                n = min(keep, h["t_end"])
                traced = sum(1 for k in range(n) if head(b, r + REC_HEAD + k * LIVE_CALL)["flags"] & TRACED)
                if mine and traced:
                    ring = bytearray(b[r:r + REC_HEAD + n * LIVE_CALL])
                    struct.pack_into("<I", ring, 0, len(ring))
                    struct.pack_into("<Q", ring, 24, n)
                    body = b"".join(mine) + bytes(ring)
                    return struct.pack("<IIQ", BLOCK_MAGIC, 1, len(body)) + body
                refs = []
            r += h["size"]
        at += size
    raise AssertionError("no ring record with calls kept alone and references")


def hostile(raw, expect_file, out, seed=None):
    data = open(raw, "rb").read()
    args_of, big = {}, None
    for line in open(expect_file):
        w = line.split()
        if w and w[0] == "expect":
            args_of[int(w[1])] = int(w[2])
        if w and w[0] == "big":
            big = (int(w[1]), int(w[2]))
    ids = {}
    for line in open(expect_file):
        w = line.split()
        if w and w[0] == "expect":
            ids.setdefault(w[5], int(w[1]))

    def template(rid, n, prefix):
        for e in find_traced(data, rid, n, prefix):
            args = args_of[rid]
            flags = struct.unpack_from("<I", e, REC_HEAD + args)[0]
            var = e[REC_HEAD + args + 8 + (8 if flags & TAIL_HOOKS else 0):REC_HEAD + LIVE_ARGS]
            if var[0] == n and var[1:1 + n].startswith(prefix.encode()):
                return e, args, REC_HEAD + args + 8 + (8 if flags & TAIL_HOOKS else 0)
        raise AssertionError(f"no traced call of id {rid} with a string of {n} bytes {prefix}")

    def renamed(e, at, name):
        e = bytearray(e)
        n = e[at]
        e[at + 1:at + 1 + n] = name.encode().ljust(n, b"_")[:n]
        return e

    missing, margs, mat = template(ids["edge_missing_"], 63, "edge_missing_")
    gpa, gargs, gat = template(ids["cuEdgeNoStatus_"], 31, "cuEdgeNoStatus_")
    launch, largs, lat = template(ids["edge_kernel_of_"], 23, "edge_kernel_of_")
    tid = head(missing, 0)["tid"]
    entries = []
    # Sound: a name not found, its tail filling the room.
    entries.append(renamed(missing, mat, "hostile_kept"))
    # Sound: 88 bytes of arguments, the tail's 8 and nothing more (no out-value).
    e = bytearray(LIVE_CALL)
    struct.pack_into("<IHBBIIQQQ", e, 0, 0, big[0], 0, 0, tid, TRACED, 1000, 2000, 0)
    struct.pack_into("<II", e, REC_HEAD + big[1], 0, 0)
    entries.append(e)
    # Another thread's (an adopter's record in the ended thread's ring).
    e = renamed(missing, mat, "hostile_tid")
    struct.pack_into("<I", e, 8, tid + 1)
    entries.append(e)
    # Not ended (in flight when the ring was written out): its seq is set below, then spoilt.
    entries.append(renamed(missing, mat, "hostile_busy"))
    # Not marked: the trace wrote a reference for it, or nothing.
    e = renamed(missing, mat, "hostile_unmarked")
    struct.pack_into("<I", e, 12, 0)
    entries.append(e)
    # A hook time, with no room after the 88 bytes and the tail.
    e = bytearray(entries[1])
    struct.pack_into("<I", e, REC_HEAD + big[1], TAIL_HOOKS)
    entries.append(e)
    # One out-value more than the room holds (the status besides the function).
    e = renamed(gpa, gat, "cuHostileOuts")
    fl = struct.unpack_from("<I", e, REC_HEAD + gargs)[0]
    outs = [i for i in range(24) if fl & (1 << (8 + i))]
    assert len(outs) == 1, fl
    struct.pack_into("<I", e, REC_HEAD + gargs, fl | (1 << (8 + 4)))
    entries.append(e)
    # A kernel's name where the room ends.
    e = renamed(missing, mat, "hostile_kernel")
    struct.pack_into("<I", e, REC_HEAD + margs, struct.unpack_from("<I", e, REC_HEAD + margs)[0] | 4)
    entries.append(e)
    # A kernel's name longer than the room left.
    e = bytearray(launch)
    e[lat] = 255
    entries.append(e)
    start = 1 << 40
    for k, e in enumerate(entries):
        struct.pack_into("<I", e, 0, ended(start + k) if k != 3 else ended(start + k) - 2)
        struct.pack_into("<Q", e, REC_HEAD + LIVE_ARGS, 0)
    ring = bytearray(REC_HEAD)
    struct.pack_into("<IHBBIIQQQ", ring, 0, REC_HEAD + LIVE_CALL * len(entries), ID_RING, 0, 0, tid,
                     0, start, len(entries), 0)
    body = bytes(ring) + b"".join(bytes(e) for e in entries)
    block = struct.pack("<IIQ", BLOCK_MAGIC, 1, len(body)) + body
    # Before the end marker (the last block head, of state EXITED).
    at = RAW_HEAD
    while True:
        magic, state, size = struct.unpack_from("<IIQ", data, at)
        if state != 1:
            break
        at += 16 + size
    open(out, "wb").write(data[:at] + block + data[at:])
    if seed:
        open(seed, "wb").write(compact_block(data) + block)
    print(f"a block of {len(entries)} calls kept by the ring alone, 2 of them sound")


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    {"canon": canon, "signal": signal, "paths": paths, "hostile": hostile}[mode](*rest)
