#pragma once

// What sm_90's copy engine and thread-block clusters need of a kernel step, checked for one shape set: the resolver
// of launchplan.cpp calls these; failures throw planerrors::PlanError with a message that says where and why.
#include "core/plan/launchplan.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kx::sm90 {

/// Evaluates one plan expression (a failure throws PlanError naming where).
using Evaluate = std::function<std::int64_t(const std::string &expression, const std::string &where)>;

/// The tensor a tensorMap argument names, as the resolver found it.
struct MappedTensor
{
    PlanArg::Kind kind = PlanArg::Kind::Input; ///< Input, Output or Scratch.
    std::string dtype = "float32";             ///< A scratch buffer is float32.
    std::vector<std::int64_t> shape;           ///< An input's or output's shape, outermost first; empty for scratch.
    std::int64_t scratchBytes = 0;             ///< Scratch: the buffer's size.
};

/**
 * Resolves a tensorMap argument: rank 1 to 5, dims 1..2^32, box entries 1..256 (as many as dims), an inner box
 * extent of whole 16 bytes and within the swizzle span, strides of whole 16 bytes below 2^40, and dims that hold
 * the tensor's element count (fit a scratch buffer).
 */
ResolvedTensorMap resolveTensorMap(const PlanArg &arg, const MappedTensor &tensor, const Evaluate &evaluate,
                                   const std::string &where);

/// Resolves a step's cluster: positive, at most limits.maxClusterBlocks blocks (over 8: non-portable, opted in
/// by the launcher), dividing the grid in each dimension.
std::array<std::int64_t, 3> resolveCluster(const std::vector<std::string> &cluster,
                                           const std::array<std::int64_t, 3> &grid, const DeviceLimits &limits,
                                           const Evaluate &evaluate, const std::string &where);

/// Fails at where unless the device (when known) is sm_90 or later; what names the feature ("clusters").
void requireSm90(const DeviceLimits &limits, const std::string &what, const std::string &where);

} // namespace kx::sm90
