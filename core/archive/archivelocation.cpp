#include "core/archive/archivelocation.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace kx {

std::string defaultArchivePath()
{
    if (const char *explicitPath = std::getenv("KX_ARCHIVE"); explicitPath && *explicitPath)
        return explicitPath;
    std::filesystem::path base;
    if (const char *dataHome = std::getenv("XDG_DATA_HOME"); dataHome && *dataHome)
        base = dataHome;
    else if (const char *home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".local" / "share";
    else
        base = std::filesystem::current_path();
    return (base / "kernel-explorer" / "archive.kxdb").string();
}

bool ensureParentFolder(const std::string &path)
{
    const auto parent = std::filesystem::path(path).parent_path();
    if (parent.empty())
        return true;
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    return std::filesystem::is_directory(parent, error);
}

} // namespace kx
