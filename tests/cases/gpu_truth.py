#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/gpu_truth.py: compares a trace's GPU slices with the mock GPU's own timeline (MOCK_GPU_TIMELINE), record by record.
"""usage: gpu_truth.py TRACE.json TIMELINE.txt [MIN_EXACT]

Each stream runs in order on the mock, and cuaudit harvests each stream's records in order: the
n-th slice on a stream's track is the n-th piece of work the mock put on that stream. An exact
slice must last the mock's duration to within 10 ns (the driver's elapsed times are floats of
milliseconds) and end within 1 ms of the mock's end (the host and GPU clocks are tied by
anchors); a bounded one must have dur_min <= truth <= dur and hold the mock's interval (to
within that 1 ms). At least MIN_EXACT (default 1) slices must be exact."""
import json
import sys

TOL_US = 0.010
OPS = {"kernel": "kernel", "graph": "graph", "memset": "memset"}

trace, timeline = sys.argv[1], sys.argv[2]
min_exact = int(sys.argv[3]) if len(sys.argv) > 3 else 1
ev = json.load(open(trace))["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
slices = {}
for e in ev:
    if e.get("cat") == "gpu" and e["ph"] == "X":
        slices.setdefault(tracks[e["tid"]], []).append(e)


def stream_of(track):
    """The mock's name for a track's stream."""
    rest = track.split(" ", 2)[2].split(" (mock GPU")[0]
    if rest == "legacy stream":
        return "legacy"
    if rest.startswith("per-thread stream"):
        return "per-thread"
    return "%x" % int(rest.split(" ")[1], 16)


truth = {}
for line in open(timeline):
    node, stream, start, end = line.split()
    truth.setdefault(stream, []).append((node, int(start), int(end)))

bad = exact = bounded = 0
for track, got in slices.items():
    want = truth.get(stream_of(track), [])
    got.sort(key=lambda e: e["ts"] + e["dur"])
    if len(got) != len(want):
        print(f"{track}: {len(got)} slices, the mock ran {len(want)}")
        bad += 1
        continue
    for e, (node, start, end) in zip(got, want):
        op = e["args"]["op"]
        true_us = (end - start) / 1000
        end_us = e["ts"] + e["dur"]
        if OPS.get(node, "copy") != OPS.get(op, "copy"):
            print(f"{track}: {op} where the mock ran {node}")
            bad += 1
        if (e["args"].get("exact", True) and abs(end_us - end / 1000) > 1000) or \
                start / 1000 < e["ts"] - 1000 or end / 1000 > end_us + 1000:
            print(f"{track}: {op} [{e['ts']}, {end_us}] us, the mock's [{start / 1000}, {end / 1000}] us")
            bad += 1
        if e["args"].get("exact", True):  # a trace before the bounds claimed every duration
            exact += 1
            if abs(e["dur"] - true_us) > TOL_US:
                print(f"{track}: exact {op} of {e['dur']} us, the mock's lasted {true_us} us")
                bad += 1
        else:
            bounded += 1
            if not e["args"]["dur_min"] - TOL_US <= true_us <= e["dur"] + TOL_US:
                print(f"{track}: {op} bounded [{e['args']['dur_min']}, {e['dur']}] us, "
                      f"the mock's lasted {true_us} us")
                bad += 1
for stream in set(truth) - {stream_of(t) for t in slices}:
    print(f"stream {stream}: {len(truth[stream])} pieces of work, no slice")
    bad += 1
print(f"{exact} exact, {bounded} bounded, {bad} wrong")
if exact < min_exact:
    print(f"fewer than {min_exact} exact")
    bad += 1
sys.exit(1 if bad else 0)
