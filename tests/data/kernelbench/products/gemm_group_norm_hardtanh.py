import torch
import torch.nn as nn


class Model(nn.Module):
    """nn.Linear, GroupNorm and Hardtanh (as KernelBench's level-2 30)."""

    def __init__(self, in_features, out_features, num_groups, hardtanh_min, hardtanh_max):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        x = self.hardtanh(x)
        return x


batch_size = 56
in_features = 232
out_features = 144
num_groups = 16
hardtanh_min = -2.0
hardtanh_max = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, hardtanh_min, hardtanh_max]
