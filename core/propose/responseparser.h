#pragma once

#include "core/domain/op.h"
#include "core/util/expected.h"

#include <string>

namespace kx {

/// A candidate as a model or command wrote it, checked for format.
struct ParsedCandidate
{
    std::string source;      ///< Device-only CUDA C++.
    std::string launchPlan;  ///< Launch plan JSON text, as written.
    std::string description; ///< The answer's first line of prose (may be empty).
};

/**
 * Extracts a candidate from a model's or command's answer: a ```cuda block and a ```json block, or one
 * JSON object {"source": ..., "plan": ...}. The source must pass the device-only check and the plan must
 * parse (and, given an op, resolve against its default shapes and the source's kernels). Anything else
 * (garbage, a truncated block, an HTML error page) is an Error saying why; it never throws.
 */
class ResponseParser
{
public:
    static Expected<ParsedCandidate> parse(const std::string &response, const Op *op = nullptr);

    /// The text with every invalid UTF-8 sequence replaced by '?', so it can be stored and exported.
    static std::string toValidUtf8(const std::string &text);
};

} // namespace kx
