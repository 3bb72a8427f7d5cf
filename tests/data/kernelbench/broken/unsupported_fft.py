import torch
import torch.nn as nn


class Model(nn.Module):
    """The magnitude of a real FFT over the last dimension, then ReLU."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(torch.fft.rfft(x).abs())


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
