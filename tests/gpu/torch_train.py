# SPDX-License-Identifier: MIT
# tests/gpu/torch_train.py: a small training step with autograd, then CUDA graph capture and replay.
import torch

torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(256, 64, device="cuda")
y = torch.randint(0, 10, (256,), device="cuda")
for step in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print("step %d loss %.5f" % (step, loss.item()))

# CUDA graph: capture a forward pass on static input, replay it.
static_x = torch.randn(256, 64, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(2):
        model(static_x)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_y = model(static_x)
static_x.copy_(x)
g.replay()
torch.cuda.synchronize()
print("graph replay checksum %.4f" % static_y.double().sum().item())
