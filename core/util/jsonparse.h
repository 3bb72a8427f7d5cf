#pragma once

#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace kx {

/// Deepest nesting of arrays and objects parseJson() accepts: far beyond any export, answer or bundle, far
/// below what exhausts a thread's stack in code that walks the document recursively.
inline constexpr int kMaxJsonDepth = 256;

/**
 * Parses untrusted JSON (files, server answers). Malformed text, nesting deeper than maxDepth and numbers out of
 * range come back as an Error that says what and where ("line 1, column 6: number 1e400 is out of range"),
 * without the library's exception ids. Never throws.
 */
Expected<nlohmann::json> parseJson(std::string_view text, int maxDepth = kMaxJsonDepth);

/// The first place where text nests arrays and objects deeper than maxDepth (a byte offset), or -1. Linear.
long long findTooDeepJson(std::string_view text, int maxDepth);

} // namespace kx
