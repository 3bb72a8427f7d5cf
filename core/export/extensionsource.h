#pragma once

#include "core/domain/candidate.h"
#include "core/domain/op.h"
#include "core/util/expected.h"

#include <string>
#include <string_view>

namespace kx {

/**
 * The source of a PyTorch C++ extension (extension.cpp) that launches a candidate's kernel steps with grid and block
 * sizes computed from the input shapes at run time. Refuses plans that do not parse, plans with library steps,
 * kernels the source does not define and dtypes PyTorch's C++ API has no name for, each a BadInput error: the stored
 * kernel is not one the export can launch.
 */
Expected<std::string> extensionSource(const Candidate &candidate, const Op &op);

/// A name usable as a C++ identifier and a folder name: every character but ASCII letters and digits (one per
/// UTF-8 code point) becomes '_', and a leading digit or an empty name gets a '_' in front.
std::string exportIdentifier(std::string_view text);

} // namespace kx
