#pragma once

// Whole-file reads and writes for the tests (QFile's readAll / write, without Qt).
#include <string>
#include <vector>

namespace kx::test {

/// The file's bytes; empty when it cannot be read.
std::string readFile(const std::string &path);
/// Replaces the file with content; false when it cannot be written.
bool writeFile(const std::string &path, const std::string &content);
/// Lower-case hex SHA-256 of the file's bytes; empty when it cannot be read.
std::string fileSha256(const std::string &path);
bool fileExists(const std::string &path);
/// The names in a folder, sorted; empty when it does not exist.
std::vector<std::string> folderEntries(const std::string &folder);

} // namespace kx::test
