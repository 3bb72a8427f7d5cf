#include "core/export/stagedfolder.h"

#include "core/util/removetree.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace kx {

namespace fs = std::filesystem;

namespace {

std::string systemError()
{
    return std::strerror(errno);
}

/// The outermost folder of path that does not exist yet (empty when path exists): what a failure removes again.
fs::path outermostMissing(const fs::path &path)
{
    fs::path missing;
    std::error_code error;
    for (fs::path at = path; !at.empty() && !fs::exists(at, error); at = at.parent_path()) {
        missing = at;
        if (at == at.parent_path())
            break;
    }
    return missing;
}

/// A new, empty folder beside target, hidden and named after it.
Expected<fs::path> createStagingFolder(const fs::path &target)
{
    std::random_device random;
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::ostringstream name;
        name << '.' << target.filename().string() << ".partial-" << std::hex << random();
        const fs::path staging = target.parent_path() / name.str();
        std::error_code error;
        if (fs::create_directory(staging, error))
            return staging;
        if (error)
            return Error{"cannot create " + staging.string() + ": " + error.message()};
    }
    return Error{"cannot create a temporary folder beside " + target.string()};
}

/// Writes a new file and flushes it to the disk, so that the rename that publishes it publishes whole files.
Status writeNewFile(const fs::path &path, const std::string &contents)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return Error{"cannot create " + path.string() + ": " + systemError()};
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const std::string reason = n < 0 ? systemError() : "nothing was written";
            ::close(fd);
            return Error{"cannot write " + path.string() + ": " + reason};
        }
        written += std::size_t(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
        return Error{"cannot write " + path.string() + ": " + systemError()};
    return Status::ok();
}

/// Moves the staged files into place: the whole folder when target is absent or empty (the rename fails when it
/// has filled up meanwhile), else, where that was asked for, file by file.
Status publish(const fs::path &staging, const fs::path &target, const std::vector<FolderFile> &files,
               ExistingFolder existing)
{
    std::error_code error;
    if (existing == ExistingFolder::Refuse || !fs::exists(target, error) || fs::is_empty(target, error)) {
        fs::rename(staging, target, error);
        if (error)
            return Error{"cannot create " + target.string() + ": " + error.message()};
        return Status::ok();
    }
    for (const FolderFile &file : files) {
        fs::rename(staging / file.name, target / file.name, error);
        if (error)
            return Error{"cannot replace " + (target / file.name).string() + ": " + error.message()};
    }
    return Status::ok();
}

Status writeStaged(const fs::path &target, const std::vector<FolderFile> &files, ExistingFolder existing)
{
    std::error_code error;
    if (fs::exists(target, error)) {
        if (!fs::is_directory(target, error))
            return Error{target.string() + " exists and is not a folder"};
        if (existing == ExistingFolder::Refuse && !fs::is_empty(target, error))
            return Error{target.string() + " already exists and is not empty"};
    }
    const fs::path createdParent = outermostMissing(target.parent_path());
    fs::create_directories(target.parent_path(), error);
    if (error)
        return Error{"cannot create " + target.parent_path().string() + ": " + error.message()};

    const Expected<fs::path> staging = createStagingFolder(target);
    Status status = staging ? Status::ok() : Status(staging.error());
    for (std::size_t i = 0; status && i < files.size(); ++i)
        status = writeNewFile(*staging / files[i].name, files[i].contents);
    if (status)
        status = publish(*staging, target, files, existing);
    // Whatever is left of the staging folder: all of it after a failure, the emptied folder after replacing files.
    if (staging)
        removeTree(staging->string());
    if (!status && !createdParent.empty())
        removeTree(createdParent.string());
    return status;
}

} // namespace

Expected<WrittenFolder> writeFolderAtOnce(const std::string &folder, const std::vector<FolderFile> &files,
                                          ExistingFolder existing)
{
    std::error_code error;
    fs::path target = fs::absolute(fs::path(folder), error).lexically_normal();
    if (!target.has_filename()) // "parent/name/": the name is the last element
        target = target.parent_path();
    if (error || !target.has_filename() || target.filename() == "..")
        return Error{"the folder name " + folder + " is not usable"};
    if (Status status = writeStaged(target, files, existing); !status)
        return status.error();
    WrittenFolder written{target.string(), {}};
    for (const FolderFile &file : files)
        written.files.push_back((target / file.name).string());
    return written;
}

} // namespace kx
