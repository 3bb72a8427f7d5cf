#include "core/util/executablepath.h"

#include <unistd.h>

#include <filesystem>

namespace kx {

std::string executablePath()
{
    char path[4096];
    const auto length = ::readlink("/proc/self/exe", path, sizeof path - 1);
    return length > 0 ? std::string(path, std::size_t(length)) : std::string();
}

std::string executableDir()
{
    const std::string path = executablePath();
    return path.empty() ? std::string() : std::filesystem::path(path).parent_path().string();
}

} // namespace kx
