import torch
import torch.nn as nn


class Model(nn.Module):
    """Reverse cumulative sum: flip, cumulative sum, flip back."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


batch_size = 16
input_shape = (1000,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [dim]
