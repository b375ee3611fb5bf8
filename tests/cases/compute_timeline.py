#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/compute_timeline.py: a process's GPU time from the mock GPU's timeline (MOCK_GPU_TIMELINE): its share of each 1 s window, sliding by 100 ms.
"""usage: compute_timeline.py TIMELINE [FROM_S [TO_S]]

Prints "max M", "min M" and "mean M": the busy fraction (the union of the pieces of work) of
the windows of 1 s that start FROM_S seconds or more after the first piece and end TO_S
seconds or less after it (default: the whole run), sliding by 100 ms."""
import sys

pieces = []
for line in open(sys.argv[1]):
    f = line.split()
    pieces.append((int(f[2]), int(f[3])))
pieces.sort()
t0 = pieces[0][0]
last = max(e for _, e in pieces)
lo = t0 + int(float(sys.argv[2]) * 1e9) if len(sys.argv) > 2 else t0
hi = t0 + int(float(sys.argv[3]) * 1e9) if len(sys.argv) > 3 else last
# The union, merged once.
merged = []
for s, e in pieces:
    if merged and s <= merged[-1][1]:
        merged[-1][1] = max(merged[-1][1], e)
    else:
        merged.append([s, e])


def busy(a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in merged)


W = 1_000_000_000
fr = []
t = lo
while t + W <= hi:
    fr.append(busy(t, t + W) / W)
    t += 100_000_000
if not fr:
    print("no window")
    sys.exit(1)
print("max %.4f" % max(fr))
print("min %.4f" % min(fr))
print("mean %.4f" % (sum(fr) / len(fr)))
