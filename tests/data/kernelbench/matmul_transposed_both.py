import torch
import torch.nn as nn


class Model(nn.Module):
    """A.T @ B.T: both operands are read transposed (KernelBench's 18)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.T, B.T)


M = 64
K = 128
N = 96


def get_inputs():
    return [torch.rand(K, M), torch.rand(N, K)]


def get_init_inputs():
    return []
