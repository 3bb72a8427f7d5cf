import torch
import torch.nn as nn


class Model(nn.Module):
    """Conv2d without bias, then a per-channel bias and ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, bias=False)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.1)

    def forward(self, x):
        return torch.relu(self.conv(x) + self.bias)


batch_size = 4
in_channels = 8
out_channels = 16
height = 32
width = 40
kernel_size = 3


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
