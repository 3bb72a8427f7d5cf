# A problem file that leaves a process behind holding the helper's stdout (sleep inherits it). The import must
# neither wait for it nor let it survive. KX_TEST_SLEEP is a number only this test uses, to find the process.
import os
import subprocess

import torch
import torch.nn as nn

subprocess.Popen(["sleep", os.environ.get("KX_TEST_SLEEP", "600")])


class Model(nn.Module):
    """ReLU, with a process left behind."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
