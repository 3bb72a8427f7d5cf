# A problem file that never finishes loading.
import time

import torch
import torch.nn as nn

time.sleep(600)


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
