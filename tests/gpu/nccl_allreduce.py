# SPDX-License-Identifier: MIT
# tests/gpu/nccl_allreduce.py: PyTorch all_reduce over NCCL with a world of one, on one GPU: NCCL's linked-in runtime is used.
import os

import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
torch.cuda.set_device(0)
dist.init_process_group(backend="nccl", rank=0, world_size=1)
t = torch.arange(1 << 16, dtype=torch.float32, device="cuda") % 11
for _ in range(5):
    dist.all_reduce(t)
torch.cuda.synchronize()
print("all_reduce checksum %.1f" % float(t.sum()))
dist.destroy_process_group()
