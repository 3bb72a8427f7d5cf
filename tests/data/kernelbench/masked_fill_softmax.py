import torch
import torch.nn as nn


class Model(nn.Module):
    """Attention-style scores with a causal mask filled with float('-inf'), then a row softmax."""

    def __init__(self, seq_len):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.ones(seq_len, seq_len), diagonal=1).bool())

    def forward(self, scores):
        return torch.softmax(scores.masked_fill(self.mask, float("-inf")), dim=-1)


batch_size = 4
seq_len = 96


def get_inputs():
    return [torch.randn(batch_size, seq_len, seq_len)]


def get_init_inputs():
    return [seq_len]
