import torch
import torch.nn as nn


class Model(nn.Module):
    """3-D average pooling with padding, ceil_mode and the padding left out of the divisor."""

    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size, stride=2, padding=1, ceil_mode=True, count_include_pad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 2
channels = 4
depth = 9
height = 12
width = 11
kernel_size = 3


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return [kernel_size]
