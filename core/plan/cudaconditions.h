#pragma once

#include "core/plan/cudamacros.h"
#include "core/util/expected.h"

#include <vector>

namespace kx {

// The value of a #if or #elif expression, its macros already replaced, as the C++ preprocessor computes it:
// 64-bit integers, unsigned when an operand is, && || ?: short-circuited, names that are no macro 0, and the
// __has_* operators 0 (the check cannot know what NVRTC has). An Error ("line N: ...") for what does not
// evaluate: a floating-point number, division by zero, a syntax error, or nesting deeper than the check's limit.
Expected<bool> evaluateCudaCondition(const std::vector<PpToken> &tokens, const CudaMacroState &state, int line);

} // namespace kx
