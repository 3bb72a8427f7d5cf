import torch
import torch.nn as nn


class Model(nn.Module):
    """Sums over one dimension, keeping it."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 8
rows = 128
features = 512
reduce_dim = 2


def get_inputs():
    return [torch.randn(batch_size, rows, features)]


def get_init_inputs():
    return [reduce_dim]
