#pragma once

#include "core/util/expected.h"

#include <string>

namespace kx {

/**
 * Checks that a candidate is device-only code: at namespace scope only __global__/__device__ functions,
 * __device__/__constant__/__shared__ variables, compile-time constants, types, templates and preprocessor
 * lines. NVRTC cannot run host code anyway; this gives a clear message ("line 3: host function main not
 * allowed") instead of a confusing compile result. Every offending declaration is listed, one per line.
 * Includes are checked too (checkIncludes): only the allowed CUDA headers, no other way to read a file.
 */
Status checkDeviceOnly(const std::string &source);

} // namespace kx
