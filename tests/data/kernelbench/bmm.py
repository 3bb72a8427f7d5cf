import torch
import torch.nn as nn


class Model(nn.Module):
    """Batched matrix multiplication (KernelBench's 3)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.bmm(A, B)


batch_size = 4
m = 64
k = 128
n = 96


def get_inputs():
    return [torch.rand(batch_size, m, k), torch.rand(batch_size, k, n)]


def get_init_inputs():
    return []
