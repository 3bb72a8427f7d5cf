#include "testfiles.h"

#include "core/util/hash.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kx::test {

std::string readFile(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

bool writeFile(const std::string &path, const std::string &content)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << content;
    return bool(file.flush());
}

std::string fileSha256(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return {};
    std::ostringstream content;
    content << file.rdbuf();
    return sha256Hex(content.str());
}

bool fileExists(const std::string &path)
{
    std::error_code error;
    return std::filesystem::exists(path, error);
}

std::vector<std::string> folderEntries(const std::string &folder)
{
    std::vector<std::string> names;
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(folder, error))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace kx::test
