# SPDX-License-Identifier: MIT
# tests/gpu/summary_check.py: reads a run's summary and trace; prints the counts gpu-check.sh asserts on.
import json
import re
import sys

summary = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))  # raises if the trace is not valid JSON


def calls(pattern):
    return sum(a["calls"] for a in summary["apis"] if re.match(pattern, a["name"]))


events = sum(1 for e in trace["traceEvents"] if e.get("ph") == "X")
print("driver_launches=%d runtime_launches=%d cudaMalloc=%d graph_launches=%d trace_events=%d" % (
    calls(r"cuLaunch(Kernel|KernelEx|CooperativeKernel)(_ptsz)?$"),
    calls(r"(__)?cudaLaunch(Kernel|KernelExC|CooperativeKernel)(_ptsz)?$"),
    calls(r"cudaMalloc(Async)?(_ptsz)?$"), calls(r"cu(da)?GraphLaunch(_ptsz)?$"), events))
