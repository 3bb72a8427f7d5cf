#pragma once

#include "core/domain/op.h"

#include <map>
#include <string>

namespace kx::test {

/**
 * Base64 TorchScript modules by name ("relu", "scale_shift", "sum_and_max", "raises", "returns_number",
 * "matmul_fp64", "exp_times_zero", "conv2d"),
 * made once per process by tests/data/torchscript/make_reference_modules.py with the first Python that has
 * PyTorch: $KX_PYTHON, python3, then the system's python3 (where Debian's python3-torch lives). Prints why
 * and exits 77 (skipped) when none has it.
 */
const std::map<std::string, std::string> &referenceModules();

/// The module of this name; fails the current test when there is none.
const std::string &referenceModule(const std::string &name);

} // namespace kx::test
