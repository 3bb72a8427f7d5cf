# A problem file that tries to leave the import's sandbox. Every attempt that works is collected, and the
# file fails to load if any did: the import succeeds only when all of them are refused. The test names the
# targets in the environment.
import os
import socket

import torch
import torch.nn as nn

escapes = []


def attempt(name, action):
    try:
        action()
        escapes.append(name)
    except Exception:  # noqa: BLE001 - being refused is the point
        pass


def write(path):
    with open(path, "w") as handle:
        handle.write("escaped")


target = os.environ
attempt("read a file beside the problem file", lambda: open(target["KX_TEST_PRIVATE_FILE"]).read())
attempt("write the test's marker file", lambda: write(target["KX_TEST_MARKER_FILE"]))
attempt("write beside the problem file", lambda: write(os.path.join(os.path.dirname(__file__), "escaped.txt")))
attempt("write into /usr", lambda: write("/usr/kx-escaped.txt"))
attempt("list the real home folder", lambda: os.listdir(target["KX_TEST_REAL_HOME"]))
attempt("connect to the test's port", lambda: socket.create_connection(("127.0.0.1", int(target["KX_TEST_PORT"])), 2))
attempt("signal the test process", lambda: os.kill(int(target["KX_TEST_PID"]), 0))
attempt("read /etc/shadow", lambda: open("/etc/shadow").read())
if escapes:
    raise RuntimeError("escaped the sandbox: " + "; ".join(escapes))


class Model(nn.Module):
    """ReLU, once the file has found no way out."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
