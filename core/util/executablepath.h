#pragma once

#include <string>

namespace kx {

/// The running program's own file (/proc/self/exe): to start it again as a worker, or to find what is installed
/// beside it. Empty when it cannot be told.
std::string executablePath();
/// The folder of executablePath(); empty when it cannot be told.
std::string executableDir();

} // namespace kx
