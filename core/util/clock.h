#pragma once

#include <cstdint>
#include <string>

namespace kx {

/// Milliseconds since the Unix epoch (the archive's time unit).
std::int64_t nowMs();

/// ISO 8601 UTC text of a time in milliseconds since the epoch, e.g. "2026-11-22T03:04:05Z".
std::string isoUtc(std::int64_t ms);

} // namespace kx
