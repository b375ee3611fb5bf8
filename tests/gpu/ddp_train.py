# SPDX-License-Identifier: MIT
# tests/gpu/ddp_train.py: DDP training over NCCL on every GPU torchrun gives it; prints the all-reduced loss per step. DDP_PROBE=1 adds a quota probe; DDP_STALL=S makes rank 1 wait S seconds before step 10's all-reduce, so that rank 0 waits in it.
import os
import time

# Set before cuBLAS starts: a fixed workspace keeps matmuls run-to-run deterministic.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def say(line):
    """One write per line: the two ranks share the terminal, and print() writes the line and
    its newline apart when unbuffered, so lines from both ranks would run together."""
    os.write(1, (line + "\n").encode())


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # the same initial weights on every rank
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(4096, 4096), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1]).cuda()
    ddp = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3, momentum=0.9)

    gen = torch.Generator()  # CPU generator: the same batches in every run
    gen.manual_seed(1000 + rank)
    for step in range(20):
        x = torch.randn(256, 4096, generator=gen).cuda()
        y = torch.randn(256, 4096, generator=gen).cuda()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        mean = loss.detach().clone()
        if step == 10 and rank == 1 and os.environ.get("DDP_STALL"):
            time.sleep(float(os.environ["DDP_STALL"]))
        dist.all_reduce(mean)
        mean /= world
        say("rank %d step %02d loss %.8f" % (rank, step, mean.item()))
    checksum = sum(p.detach().double().sum().item() for p in model.parameters())
    say("rank %d params %.8f" % (rank, checksum))

    if os.environ.get("DDP_PROBE") == "1":
        # With a quota, free and total are the quota's view: more than free must be refused.
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        free, total = torch.cuda.mem_get_info()
        say("probe rank %d total %d free %d" % (rank, total, free))
        try:
            big = torch.empty(free + (256 << 20), dtype=torch.uint8, device="cuda")
            say("probe rank %d over-quota allocation succeeded" % rank)
            del big
        except torch.cuda.OutOfMemoryError:
            say("probe rank %d over-quota allocation refused" % rank)
        half = torch.empty(free // 2, dtype=torch.uint8, device="cuda")
        say("probe rank %d half of free allocated" % rank)
        del half
    dist.barrier(device_ids=[local_rank])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
