import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3-D tensor times a matrix (KernelBench's 10)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


N = 4
M = 64
K = 128
L = 96


def get_inputs():
    return [torch.rand(N, M, K), torch.rand(K, L)]


def get_init_inputs():
    return []
