import torch
import torch.nn as nn


class Model(nn.Module):
    """A grouped, dilated 2-D transposed convolution with stride, padding and output padding."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, (3, 4), stride=(2, 3), padding=(1, 2), output_padding=(1, 2), groups=2, dilation=(2, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch_size = 2
in_channels = 6
out_channels = 10
height = 9
width = 11


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
