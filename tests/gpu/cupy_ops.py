# SPDX-License-Identifier: MIT
# tests/gpu/cupy_ops.py: CuPy elementwise, reduction, matmul and a RawKernel.
import cupy as cp

a = cp.arange(1 << 16, dtype=cp.float32) % 97
b = cp.arange(1 << 16, dtype=cp.float32) % 13
c = a * 2.0 + b
print("elementwise checksum %.1f" % float(c.sum()))
print("reduction max %.1f" % float(c.max()))
m = (cp.arange(256 * 256, dtype=cp.float64).reshape(256, 256) % 7) @ (cp.arange(256 * 256, dtype=cp.float64).reshape(256, 256) % 5)
print("matmul checksum %.1f" % float(m.sum()))
k = cp.RawKernel(r'''
extern "C" __global__ void twice(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}''', "twice")
y = cp.empty_like(a)
k(((1 << 16) // 256,), (256,), (a, y, cp.int32(1 << 16)))
print("rawkernel checksum %.1f" % float(y.sum()))
