#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/cases/compute_overlap.py: how much of the time two processes' mock GPU timelines (MOCK_GPU_TIMELINE) are busy at once, while both run.
"""usage: compute_overlap.py A B

Prints "overlap F": the time both A's and B's work (each the union of its pieces) runs,
as a fraction of the time from the later first piece to the earlier last one."""
import sys


def union(path):
    pieces = sorted(tuple(map(int, line.split()[2:4])) for line in open(path) if line.strip())
    merged = []
    for s, e in pieces:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


a, b = union(sys.argv[1]), union(sys.argv[2])
if not a or not b:
    print("no work in one of them")
    sys.exit(1)
lo, hi = max(a[0][0], b[0][0]), min(a[-1][1], b[-1][1])
if hi <= lo:
    print("they never ran at the same time")
    sys.exit(1)
both, i, j = 0, 0, 0
while i < len(a) and j < len(b):
    s, e = max(a[i][0], b[j][0], lo), min(a[i][1], b[j][1], hi)
    both += max(0, e - s)
    if a[i][1] < b[j][1]:
        i += 1
    else:
        j += 1
print("overlap %.4f" % (both / (hi - lo)))
