#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/// A header NVRTC gets from memory instead of opening a file: the name an #include gives, and the toolkit's text.
struct InMemoryHeader
{
    std::string name;
    std::string text;
};

/**
 * The CUDA toolkit's headers that candidates may include (allowedCudaHeaders()), read by the trusted side once per
 * process: each allowed header and every header it includes, transitively, under the name its #include gives
 * (NVRTC matches names as written). Thread-safe; the headers live as long as the process.
 */
class ToolkitHeaders
{
public:
    /// Everything NVRTC needs to compile these allowed headers (as checkIncludes() returns them), or an Error that
    /// names a header that is not allowed or that the toolkit lacks.
    static Expected<std::vector<const InMemoryHeader *>> forIncludes(const std::vector<std::string> &includes);

    /// The folder the headers are read from (the build's CUDA toolkit); empty when this build has none.
    static std::string includeDir();
};

} // namespace kx
