# SPDX-License-Identifier: MIT
# tests/gpu/numba_kernel.py: a numba.cuda jit kernel (numba-cuda reaches the driver through cuGetProcAddress).
import numpy as np

# The numba on our GPU image predates numpy 2.5, which removed np.row_stack that numba's
# import still names. Restore the alias so the test runs at all; it touches no CUDA code.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


n = 1 << 16
x = np.arange(n, dtype=np.float32) % 11
y = np.arange(n, dtype=np.float32) % 5
out = cuda.device_array(n, dtype=np.float32)
axpy[n // 256, 256](3.0, cuda.to_device(x), cuda.to_device(y), out)
print("numba checksum %.1f" % float(out.copy_to_host().sum()))
