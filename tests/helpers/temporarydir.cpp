#include "temporarydir.h"

#include "core/util/removetree.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace kx::test {

TemporaryDir::TemporaryDir()
{
    std::error_code error;
    const auto base = std::filesystem::temp_directory_path(error);
    std::string pattern = ((error ? std::filesystem::path("/tmp") : base) / "kx-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()))
        m_path = buffer.data();
}

TemporaryDir::~TemporaryDir()
{
    if (m_path.empty())
        return;
    // Tests chmod files to read-only; the folder itself stays writable, so removing them still works.
    // removeTree, not std::filesystem::remove_all: suites linked against LibTorch get its broken copy of that.
    removeTree(m_path);
}

std::string TemporaryDir::filePath(const std::string &name) const
{
    return (std::filesystem::path(m_path) / name).string();
}

} // namespace kx::test
