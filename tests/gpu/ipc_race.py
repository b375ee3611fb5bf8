# SPDX-License-Identifier: MIT
# tests/gpu/ipc_race.py N: numba-cuda's test_ipc_handle, N times in one process: the parent
# copies arange(10)+i to the device (a pageable copy), takes an IPC handle, and a freshly
# spawned child (one per trial, as the test spawns one: its module, context and first calls
# are new each time) opens it and copies it back at once. Prints one MISMATCH line per wrong
# result and, last, "trials N bad B".
import multiprocessing as mp
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numba import cuda


def child(handle, size, parent_pid):
    assert os.getpid() != parent_pid
    dtype = np.dtype(np.intp)
    with cuda.open_ipc_array(handle, shape=size // dtype.itemsize, dtype=dtype) as darr:
        return darr.copy_to_host()


def main():
    n = int(sys.argv[1])
    bad = 0
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"), max_tasks_per_child=1) as ex:
        for i in range(n):
            arr = np.arange(10, dtype=np.intp) + i
            dev = cuda.to_device(arr)
            ipch = cuda.current_context().get_ipc_handle(dev.gpu_data)
            out = ex.submit(child, ipch.handle.reserved, ipch.size, os.getpid()).result(timeout=120)
            if not np.array_equal(arr, out):
                bad += 1
                print("MISMATCH", i, "pid", os.getpid(), out.tolist(), flush=True)
    print("trials", n, "bad", bad, flush=True)


if __name__ == "__main__":
    main()
