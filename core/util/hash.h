#pragma once

#include <string>
#include <string_view>

namespace kx {

/// Lower-case hex SHA-256 of the given bytes.
std::string sha256Hex(std::string_view bytes);

} // namespace kx
