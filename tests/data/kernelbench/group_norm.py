import torch
import torch.nn as nn


class Model(nn.Module):
    """GroupNorm of an image batch: 12 channels in 4 groups, with learned weight and bias."""

    def __init__(self, features, groups):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=groups, num_channels=features)

    def forward(self, x):
        return self.norm(x)


batch_size = 6
features = 12
groups = 4
dim1 = 37
dim2 = 41


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features, groups]
