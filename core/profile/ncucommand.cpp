#include "core/profile/ncucommand.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace kx {
namespace {

namespace fs = std::filesystem;

bool isExecutableFile(const fs::path &path)
{
    std::error_code error;
    return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::vector<fs::path> pathFolders()
{
    std::vector<fs::path> folders;
    if (const char *path = std::getenv("PATH")) {
        std::istringstream parts(path);
        std::string part;
        while (std::getline(parts, part, ':'))
            if (!part.empty())
                folders.emplace_back(part);
    }
    return folders;
}

// Where the toolkit puts ncu when it is not on PATH.
std::vector<fs::path> toolkitFolders()
{
    std::vector<fs::path> folders;
#ifdef KX_CUDA_BIN_DIR
    folders.emplace_back(KX_CUDA_BIN_DIR);
#endif
    if (std::find(folders.begin(), folders.end(), fs::path("/usr/local/cuda/bin")) == folders.end())
        folders.emplace_back("/usr/local/cuda/bin");
    return folders;
}

} // namespace

Expected<std::string> findNcu(const std::string &explicitPath)
{
    std::string named = explicitPath;
    if (named.empty())
        if (const char *environment = std::getenv("KX_NCU"))
            named = environment;
    if (!named.empty()) {
        if (isExecutableFile(named))
            return fs::absolute(named).string();
        return Error::unavailable("Nsight Compute (ncu) not found: " + named + " is not an executable file");
    }
    for (const auto &folders : {pathFolders(), toolkitFolders()})
        for (const fs::path &folder : folders)
            if (isExecutableFile(folder / "ncu"))
                return (folder / "ncu").string();
    std::string toolkit;
    for (const fs::path &folder : toolkitFolders())
        toolkit += (toolkit.empty() ? "" : " or ") + folder.string();
    return Error::unavailable("Nsight Compute (ncu) not found: it is neither on PATH nor in " + toolkit
                              + ". Install Nsight Compute (it comes with the CUDA toolkit) or name it with --ncu "
                                "PATH or $KX_NCU");
}

std::vector<std::string> ncuProfileArguments()
{
    // clang-format off: one option and its value a line
    return {"--profile-from-start", "off", "--clock-control", "none", "--cache-control", "all", "--target-processes",
            "all", "--csv", "--page", "raw", "--print-units", "base", "--section", "SpeedOfLight", "--section",
            "MemoryWorkloadAnalysis", "--section", "ComputeWorkloadAnalysis", "--section", "Occupancy", "--section",
            "LaunchStats", "--section", "WarpStateStats",
            // DRAM byte counts are in no section's raw page on every ncu (2025.3 prints only throughput %).
            "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum"};
    // clang-format on
}

} // namespace kx
