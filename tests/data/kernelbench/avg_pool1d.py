import torch
import torch.nn as nn


class Model(nn.Module):
    """1-D average pooling with stride 2 and padding 2, the padding counted in the divisor."""

    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size, stride=2, padding=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 4
channels = 6
length = 57
kernel_size = 5


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [kernel_size]
