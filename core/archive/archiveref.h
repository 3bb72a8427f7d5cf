#pragma once

#include "core/archive/archive.h"

#include <memory>
#include <string>
#include <utility>

namespace kx {

/**
 * Which archive file to use and how it may be used: handed around instead of a bare path, so that a part given
 * a read-only archive cannot open it for writing by mistake. It holds no connection (a connection belongs to
 * one thread); each holder opens its own from it.
 */
struct ArchiveRef
{
    std::string path;                         ///< Empty: no archive.
    ArchiveMode mode = ArchiveMode::ReadOnly; ///< A handle nobody said may write cannot.

    static ArchiveRef readWrite(std::string path) { return {std::move(path), ArchiveMode::ReadWrite}; }
    static ArchiveRef readOnly(std::string path) { return {std::move(path), ArchiveMode::ReadOnly}; }

    bool empty() const { return path.empty(); }
    bool isReadOnly() const { return mode == ArchiveMode::ReadOnly; }

    /// A connection in the handle's mode (see Archive::open).
    Expected<std::unique_ptr<Archive>> open() const { return Archive::open(path, mode); }
    /// A read-only connection whatever the mode, for a background reader.
    Expected<std::unique_ptr<Archive>> openForReading() const { return Archive::open(path, ArchiveMode::ReadOnly); }

    bool operator==(const ArchiveRef &) const = default;
};

} // namespace kx
