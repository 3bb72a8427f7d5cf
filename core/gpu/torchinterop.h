#pragma once
// What the LibTorch translation units share: views as tensors and LibTorch's errors as plain text.
// Included by those translation units only, so LibTorch's headers stay out of everything else.

#include "core/gpu/tensorview.h"
#include "core/util/expected.h"

#include <ATen/ATen.h>

#include <exception>
#include <string>
#include <vector>

namespace kx::torchinterop {

at::ScalarType scalarType(DType dtype);
at::Device deviceFor(int device);        ///< -1: the host.
at::Tensor wrap(const TensorView &view); ///< The view's memory, not a copy.

/// The same tensors with the floating-point ones converted to float64 (integer ones as they are).
std::vector<at::Tensor> inDouble(const std::vector<at::Tensor> &tensors);

/// Copies results into outputs of the same count and shapes, converting to the outputs' dtypes.
Status copyResults(const std::vector<at::Tensor> &results, const std::vector<TensorView> &outputs,
                   const std::string &what);

/// The error without LibTorch's C++ backtrace, and of a TorchScript exception only its last line.
std::string errorText(const std::exception &error);

} // namespace kx::torchinterop
