# SPDX-License-Identifier: MIT
# tests/gpu/exec_launch.py: a launcher that uses the GPU, then execs a workload that uses it too (same pid, new image), as torchrun-style wrappers do.
import os
import sys

import torch

if len(sys.argv) > 1 and sys.argv[1] == "workload":
    x = torch.arange(1 << 16, device="cuda", dtype=torch.float32)
    print("workload", int((x * 3).sum().item()), flush=True)
    sys.exit(0)

a = torch.ones(1024, device="cuda")
print("launcher", int((a + 1).sum().item()), flush=True)
# A failed exec first (this file is not executable: EACCES; a missing file would be skipped
# as a PATH-search miss): the launcher goes on and its summary is written again.
try:
    os.execv(__file__, [__file__])
except OSError as e:
    print("exec failed:", e.errno, flush=True)
os.execv(sys.executable, [sys.executable, __file__, "workload"])
