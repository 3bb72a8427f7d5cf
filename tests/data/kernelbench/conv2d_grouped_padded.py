import torch
import torch.nn as nn


class Model(nn.Module):
    """A grouped 2-D convolution with an asymmetric kernel, padding and bias."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (3, 5), padding=(1, 2), groups=groups, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 6
in_channels = 8
out_channels = 12
height = 17
width = 19
groups = 2


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, groups]
