import torch
import torch.nn as nn


class Model(nn.Module):
    """The lower triangle of a product (KernelBench's 15)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.tril(torch.matmul(A, B))


M = 128


def get_inputs():
    return [torch.rand(M, M), torch.rand(M, M)]


def get_init_inputs():
    return []
