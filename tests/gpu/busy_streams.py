#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/gpu/busy_streams.py: GPU work queued on busy streams (a long kernel, then short ones queued behind it; a loop that queues faster than the GPU runs), for the exact GPU times of CUAUDIT_GPU_TIME.
# Usage: python3 tests/gpu/busy_streams.py torch|cupy
import sys

mode = sys.argv[1]
if mode == "torch":
    import torch

    x = torch.randn(2048, 2048, device="cuda")
    w = torch.randn(2048, 2048, device="cuda")
    v = torch.zeros(1 << 20, device="cuda")
    torch.cuda.synchronize()
    for rep in range(4):
        # About 25 ms of spinning on the GPU: the host queues everything below meanwhile.
        torch.cuda._sleep(50_000_000)
        for _ in range(200):
            v.add_(1.0)
        for _ in range(40):
            y = x @ w
        for _ in range(100):
            v.mul_(0.5)
        torch.cuda.synchronize()
    # A loop whose matmuls take longer on the GPU than their launches on the host.
    for _ in range(300):
        y = x @ w
        v.add_(1.0)
    torch.cuda.synchronize()
    print("torch busy checksum %.3f %.3f" % (float(v.sum()), float(y.abs().sum()) > 0))
elif mode == "cupy":
    import cupy as cp

    spin = cp.RawKernel(r'''
extern "C" __global__ void spin(long long n) {
    long long t0 = clock64();
    while (clock64() - t0 < n) {}
}''', "spin")
    a = cp.arange(1 << 20, dtype=cp.float32) % 97
    x = cp.random.rand(1024, 1024, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    for rep in range(4):
        spin((1,), (1,), (cp.int64(50_000_000),))
        for _ in range(200):
            a *= 1.0001
        for _ in range(50):
            s = a.sum()
        for _ in range(20):
            m = x @ x
        cp.cuda.Device().synchronize()
    print("cupy busy checksum %.1f %.1f" % (float(s), float(m.sum()) != 0))
else:
    sys.exit("usage: busy_streams.py torch|cupy")
