#pragma once

#include <string>

namespace kx {

/**
 * Removes a file or a folder with everything in it; true when nothing is left. Use it instead of
 * std::filesystem::remove_all: PyTorch's libtorch.so exports its own copy of that function, which wins symbol
 * lookup in every program linked against it and crashes there.
 */
bool removeTree(const std::string &path);

} // namespace kx
