#pragma once

#include "core/codegen/pipeline.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

#include <string>

/// Reads the arguments of convolution and pooling calls into a window (core/codegen/pipeline.h).
namespace kx::windowcalls {

/// Whether kind is a convolution or pooling call the window stages generate.
bool isWindowCall(const std::string &kind);
bool isConvolution(const std::string &kind);

/// What a window call computes: the graph argument positions of its tensors and its window.
struct WindowCall
{
    bool conv = false;
    std::string pooling; ///< "max" or "avg" for poolings.
    Window window;
    int weight = -1, bias = -1; ///< Argument positions (conv); bias -1 without one.
};

/// The call's window; an Error names the argument a generated kernel cannot follow (padding "same",
/// divisor_override, an unbatched input ...).
Expected<WindowCall> windowCallOf(const GraphNode &node);

} // namespace kx::windowcalls
