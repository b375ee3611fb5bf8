# SPDX-License-Identifier: MIT
# tests/gpu/torch_hooks.py: PyTorch under the memory limit (mode "memlimit") or an injected fault (mode "fault").
import sys

import torch

mode = sys.argv[1]
if mode == "memlimit":
    free, total = torch.cuda.mem_get_info()
    print("mem_get_info total %d GiB, free <= total: %s" % (total >> 30, free <= total))
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")  # 1 GiB fits under 2 GiB
    print("1 GiB allocated")
    try:
        b = torch.empty(3 << 30, dtype=torch.uint8, device="cuda")
        print("3 GiB allocated: the limit did not hold")
    except torch.cuda.OutOfMemoryError:
        print("3 GiB refused with torch.cuda.OutOfMemoryError")
elif mode == "fault":
    try:
        x = torch.zeros(1024, device="cuda")
        print("allocated: the fault did not fire")
    except torch.cuda.OutOfMemoryError:
        print("torch.cuda.OutOfMemoryError raised by the injected cudaErrorMemoryAllocation")
