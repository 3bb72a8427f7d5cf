#pragma once

#include <string>
#include <vector>

namespace kx {

/// Other processes that hold a write lock on the archive at path (or on its -wal and -shm files), each as
/// "pid 1234 (kx search relu)". Empty where none can be seen: Linux's /proc/locks is read, by inode.
std::vector<std::string> archiveLockHolders(const std::string &path);

/// Why a write on the archive at path could not start after waiting waitedMs for its lock, naming the
/// processes that hold it when they can be found.
std::string busyArchiveMessage(const std::string &path, int waitedMs);

} // namespace kx
