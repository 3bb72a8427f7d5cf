#pragma once

#include <string>
#include <string_view>

namespace kx {

/// Lower-case hex SHA-256 of the given bytes.
std::string sha256Hex(std::string_view bytes);

/// 32 random lower-case hex digits: an identity no other archive or process will give out.
std::string randomHexId();

} // namespace kx
