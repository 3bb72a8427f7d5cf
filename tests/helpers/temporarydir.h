#pragma once

// A Qt-free stand-in for QTemporaryDir: a fresh folder under the system's temporary folder, removed with
// everything in it when the object goes out of scope.
#include <string>

namespace kx::test {

class TemporaryDir
{
public:
    TemporaryDir();
    ~TemporaryDir();
    TemporaryDir(const TemporaryDir &) = delete;
    TemporaryDir &operator=(const TemporaryDir &) = delete;

    /// False when the folder could not be created (path() is empty then).
    bool isValid() const { return !m_path.empty(); }
    const std::string &path() const { return m_path; }
    /// path()/name; the file is not created.
    std::string filePath(const std::string &name) const;

private:
    std::string m_path;
};

} // namespace kx::test
