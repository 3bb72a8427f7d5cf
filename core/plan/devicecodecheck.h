#pragma once

#include "core/plan/cudapreprocessor.h"
#include "core/util/expected.h"

#include <string>

namespace kx {

/**
 * Checks that a candidate is device-only code: at namespace scope only __global__/__device__ functions,
 * __device__/__constant__/__shared__ variables, compile-time constants, types, templates and preprocessor
 * lines; in types no member function that is only __host__ and no static data member that is host state.
 * NVRTC cannot run host code anyway; this gives a clear message ("line 3: host function main not allowed")
 * instead of a confusing compile result. It reads the source as NVRTC's preprocessor does (preprocessCuda, for
 * options.arch), so macros, #if groups, token pasting and digraphs cannot hide a declaration from it. Every
 * offending declaration is listed, one per line. Includes are checked too (checkIncludes): only the allowed
 * CUDA headers, no other way to read a file. Linear in the size of the source; what exceeds the preprocessor's
 * or the scanner's limits is an error that says so.
 */
Status checkDeviceOnly(const std::string &source, const CudaPreprocessOptions &options = {});

} // namespace kx
