#pragma once

#include <string>

namespace kx {

/// The archive used when none is named: $KX_ARCHIVE if set, else
/// $XDG_DATA_HOME/kernel-explorer/archive.kxdb (XDG_DATA_HOME defaults to ~/.local/share).
/// The GUI and the CLI share it.
std::string defaultArchivePath();

/// Creates the folder that will hold path (and its parents). Returns false when that is impossible.
bool ensureParentFolder(const std::string &path);

} // namespace kx
