#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/// A file to write: its name inside the folder and its bytes.
struct FolderFile
{
    std::string name;
    std::string contents;
};

/// A folder that was written.
struct WrittenFolder
{
    std::string folder;             ///< Absolute path.
    std::vector<std::string> files; ///< Absolute paths of the files written, in the order given.
};

/// What writeFolderAtOnce() does when the folder exists and holds something.
enum class ExistingFolder {
    Refuse,       ///< Fail and change nothing.
    ReplaceFiles, ///< Replace the files of the same names; leave the others alone.
};

/**
 * Writes files into folder at once: they go into a hidden folder beside it first (".<name>.partial-<random>"), which
 * is then renamed to folder. A failure at any point removes what was written, and the parent folders this call
 * created, so nothing half written is ever left or seen under folder's name. An empty folder of that name is taken.
 */
Expected<WrittenFolder> writeFolderAtOnce(const std::string &folder, const std::vector<FolderFile> &files,
                                          ExistingFolder existing = ExistingFolder::Refuse);

} // namespace kx
