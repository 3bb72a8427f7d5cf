#!/usr/bin/env python3
"""Writes small TorchScript reference modules, base64-encoded, for the scripted-reference tests.

    python3 make_reference_modules.py OUTDIR

Each module's forward takes an op's inputs in order and returns its output (or a tuple of outputs), as the
importer's modules do. OUTDIR/NAME.b64 holds base64 of the torch.jit.save archive. Exits 3 without PyTorch.
"""
import base64
import io
import os
import sys

try:
    import torch
except ImportError:
    sys.stderr.write("PyTorch is not installed for %s\n" % sys.executable)
    sys.exit(3)

from typing import Optional, Tuple


class Relu(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


class ScaleShift(torch.nn.Module):
    """x * weight + bias: the original model's parameters arrive as the second and third inputs."""

    def forward(self, x, weight, bias):
        return x * weight + bias


class SumAndMax(torch.nn.Module):
    """Two outputs: row sums and row maxima."""

    def forward(self, x) -> Tuple[torch.Tensor, torch.Tensor]:
        return x.sum(1), x.amax(1)


class Raises(torch.nn.Module):
    """Raises for any input; takes one input or three (x, weight, bias)."""

    def forward(self, x, weight: Optional[torch.Tensor] = None, bias: Optional[torch.Tensor] = None):
        if x.numel() > 0:
            raise RuntimeError("reference exploded on purpose")
        return x


class MatmulFp64(torch.nn.Module):
    """a @ b computed in float64 and rounded once to float32: the exact product, to measure others against."""

    def forward(self, a, b):
        return torch.matmul(a.double(), b.double()).float()


class ExpTimesZero(torch.nn.Module):
    """exp(x) * 0: zero wherever exp(x) is finite, NaN where it overflows (x > 88.7)."""

    def forward(self, x):
        return torch.exp(x) * 0.0


class Conv2d(torch.nn.Module):
    """conv2d of x with weight (stride 1, no padding): traced, an aten::_convolution with cuDNN's switches fixed."""

    def forward(self, x, weight):
        return torch.nn.functional.conv2d(x, weight)


class ReturnsNumber(torch.nn.Module):
    def forward(self, x) -> float:
        return float(x.sum().item())


def save(module, path):
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    with open(path, "w") as out:
        out.write(base64.b64encode(buffer.getvalue()).decode("ascii"))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: make_reference_modules.py OUTDIR\n")
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    save(torch.jit.script(Relu()), os.path.join(outdir, "relu.b64"))
    # Traced as well as scripted: the importer may produce either.
    save(torch.jit.trace(ScaleShift(), (torch.ones(2, 3), torch.ones(3), torch.ones(3))),
         os.path.join(outdir, "scale_shift.b64"))
    save(torch.jit.script(SumAndMax()), os.path.join(outdir, "sum_and_max.b64"))
    save(torch.jit.script(Raises()), os.path.join(outdir, "raises.b64"))
    save(torch.jit.script(ReturnsNumber()), os.path.join(outdir, "returns_number.b64"))
    save(torch.jit.script(MatmulFp64()), os.path.join(outdir, "matmul_fp64.b64"))
    save(torch.jit.script(ExpTimesZero()), os.path.join(outdir, "exp_times_zero.b64"))
    # Traced with TF32 off, as the importer traces: the switch becomes a constant argument of the convolution.
    torch.backends.cudnn.allow_tf32 = False
    save(torch.jit.trace(Conv2d(), (torch.ones(1, 2, 4, 4), torch.ones(3, 2, 3, 3))),
         os.path.join(outdir, "conv2d.b64"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
