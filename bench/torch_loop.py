# SPDX-License-Identifier: MIT
# bench/torch_loop.py: a launch-bound PyTorch training loop (6-layer MLP, Adam): prints its start-up time and steps per second (the median block's).
# Usage: python3 bench/torch_loop.py LAUNCH_NS SECONDS   (LAUNCH_NS: `date +%s%N` taken just before the start)
import sys
import time

launch_ns, seconds = int(sys.argv[1]), float(sys.argv[2])
import torch  # noqa: E402  (the import is part of the start-up being measured)

torch.zeros(1, device="cuda")
torch.cuda.synchronize()
startup = time.time() - launch_ns / 1e9
layers = []
for _ in range(6):
    layers += [torch.nn.Linear(64, 64), torch.nn.ReLU()]
model = torch.nn.Sequential(*layers).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(32, 64, device="cuda")
y = torch.randn(32, 64, device="cuda")


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


for _ in range(50):
    step()
torch.cuda.synchronize()
# Blocks of 25 steps, each ended by a synchronisation: the rate is the median block's, so that
# a stall of the (shared) machine in a few blocks does not move it; the mean rate follows.
n, rates, t0 = 0, [], time.perf_counter()
while True:
    b0 = time.perf_counter()
    for _ in range(25):
        step()
    n += 25
    torch.cuda.synchronize()
    t = time.perf_counter()
    rates.append(25 / (t - b0))
    if t - t0 >= seconds:
        break
rates.sort()
print(f"startup {startup:.4f} steps_per_s {rates[len(rates) // 2]:.2f} mean {n / (time.perf_counter() - t0):.2f}")
