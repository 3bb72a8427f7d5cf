#pragma once

#include "core/archive/archive.h"
#include "core/archive/archiveref.h"

#include <QFuture>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

namespace kx::ui {

/// The outcome of a background read: a value, or the error that stopped it.
template <typename T>
struct ReadResult
{
    T value{};
    QString error;

    bool ok() const { return error.isEmpty(); }
};

/// The archive path as the core library expects it (local 8-bit file name encoding).
std::string archivePathToStd(const QString &path);
/// The handle of the archive at a path the GUI holds (read-only unless said otherwise; empty path: no archive).
ArchiveRef archiveRef(const QString &path, ArchiveMode mode = ArchiveMode::ReadOnly);
/// The handle's path as Qt spells it.
QString archiveFilePath(const ArchiveRef &archive);

/// Never empty, so that ReadResult::ok() cannot mistake a failure for success.
QString readErrorText(const std::string &message);

/// Opens the archive read-only for one background job; Error when it cannot be read.
Expected<std::unique_ptr<Archive>> openForReading(const QString &path);

/**
 * Runs read(archive) on the thread pool with its own read-only connection (kx::Archive is not
 * thread-safe, so every job opens one) and returns the future of its result. Exceptions from the
 * archive become the result's error. Callers deliver with .then(context, job.guard(...)), which drops
 * the result of a read superseded meanwhile (see LatestJob).
 */
template <typename Read>
auto readArchiveAsync(const QString &path, Read read)
    -> QFuture<ReadResult<std::invoke_result_t<Read, const Archive &>>>
{
    using Value = std::invoke_result_t<Read, const Archive &>;
    return QtConcurrent::run([path, read = std::move(read)]() -> ReadResult<Value> {
        ReadResult<Value> result;
        auto archive = openForReading(path);
        if (!archive) {
            result.error = readErrorText(archive.error().message);
            return result;
        }
        try {
            result.value = read(**archive);
        } catch (const std::exception &error) {
            result.error = readErrorText(error.what());
        }
        return result;
    });
}

/// The same for the archive a handle names (always read through a read-only connection of its own).
template <typename Read>
auto readArchiveAsync(const ArchiveRef &archive, Read read)
{
    return readArchiveAsync(archiveFilePath(archive), std::move(read));
}

} // namespace kx::ui
