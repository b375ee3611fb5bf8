# SPDX-License-Identifier: MIT
# tests/gpu/torch_matmul.py: a deterministic PyTorch matmul whose printed result must not change under cuaudit.
import torch

torch.manual_seed(0)
a = torch.randn(512, 512, device="cuda")
b = torch.randn(512, 512, device="cuda")
c = a @ b
torch.cuda.synchronize()
print("matmul checksum %.4f" % c.double().sum().item())
