#pragma once
// What the LibTorch translation units share: views as tensors and LibTorch's errors as plain text.
// Included by those translation units only, so LibTorch's headers stay out of everything else.

#include "core/gpu/tensorview.h"

#include <ATen/ATen.h>

#include <exception>
#include <string>

namespace kx::torchinterop {

at::ScalarType scalarType(DType dtype);
at::Device deviceFor(int device);                   ///< -1: the host.
at::Tensor wrap(const TensorView &view);            ///< The view's memory, not a copy.

/// The error without LibTorch's C++ backtrace, and of a TorchScript exception only its last line.
std::string errorText(const std::exception &error);

} // namespace kx::torchinterop
