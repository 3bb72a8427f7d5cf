#pragma once

// GroupNorm's affine transform in the norm templates: a row is one group of a sample (its channels' elements in
// order), and the weight and bias are per channel, so an element's index into them is its channel's. The pieces
// here give the kernels that index; recipes without channel weights read the weight per column as before.
#include "core/codegen/kerneltemplate.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kx::channelweights {

/// A comment line for the kernel's header saying how weights are indexed (empty without channel weights).
std::string comment(const OpRecipe &recipe);
/// Kernel parameters after `cols`: ", long long groups, long long channelSize" (none without channel weights).
std::string kernelParameters(const OpRecipe &recipe);
/// Declarations once `row` is known: the row's first channel and the channel size in 32 bits (none without).
std::string rowSetup(const OpRecipe &recipe, const std::string &indent = "    ");
/// The index of element `c` of the row into the weight and bias: "[c]", or its channel.
std::string weightIndex(const OpRecipe &recipe);
/// Appends the launch arguments of kernelParameters() to args.
void appendArgs(const OpRecipe &recipe, nlohmann::json &args);
/// Why the op's shape sets do not allow channel weights (empty when they do, or when there are none): each binds
/// groups and channelSize, channels are whole in every row and a row's index fits in 32 bits.
std::string check(const Op &op, const OpRecipe &recipe);

} // namespace kx::channelweights
