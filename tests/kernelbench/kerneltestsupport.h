#pragma once

#include "core/domain/op.h"

#include <string>

namespace kx::test {

/// Empty when the op's translation (template defaults) compiles with NVRTC for sm_90 and its launch plan
/// resolves for every shape set; otherwise what failed. "skip" when this build has no NVRTC.
std::string translationProblem(const Op &op);

} // namespace kx::test
