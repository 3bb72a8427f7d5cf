# A problem file that takes 6 GiB of memory while it loads (the tests cap it at 4 GiB).
import torch
import torch.nn as nn

hoard = bytearray(6 << 30)


class Model(nn.Module):
    """ReLU, after taking a lot of memory."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
