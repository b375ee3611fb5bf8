# SPDX-License-Identifier: MIT
# tests/gpu/cupy_copies.py: CuPy work that goes through each of its statically linked runtimes: the core (runtime module), CUB (reductions), Thrust (sort) and the random generator API.
import cupy as cp

a = cp.arange(1 << 16, dtype=cp.float32) % 97
print("cub sum %.1f" % float(a.sum()))
print("cub cumsum last %.1f" % float(cp.cumsum(a)[-1]))
s = cp.sort(cp.arange(4096, dtype=cp.int32)[::-1] % 1000)
print("thrust sort head %s tail %s" % (s[:3].get().tolist(), s[-3:].get().tolist()))
print("thrust argsort head %s" % cp.argsort(cp.arange(10, dtype=cp.int32)[::-1])[:3].get().tolist())
rng = cp.random.default_rng(1234)
r = rng.random(1 << 12, dtype=cp.float64)
print("generator mean in [0.45, 0.55]: %s" % (0.45 < float(r.mean()) < 0.55))
print("elementwise checksum %.1f" % float((a * 2.0 + 1.0).sum()))
