#pragma once

#include "core/util/expected.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kx {

/**
 * What a helper that runs untrusted Python (a problem file, an op's module) may see and use inside a
 * bubblewrap sandbox: no network, no other processes, /usr and the named paths read-only, the writable folders,
 * and nothing else of the file system.
 */
struct SandboxSpec
{
    std::vector<std::string> readOnly; ///< Files and folders visible read-only, at their own paths.
    std::vector<std::string> writable; ///< Folders visible read-write (private temporary ones).
    std::vector<std::pair<std::string, std::string>> environment; ///< Set (or replaced) inside.
    std::string workingDir; ///< Where the command starts (created empty when not visible).
    bool gpu = false;       ///< The NVIDIA device files and /sys are visible too.
};

/// bubblewrap's bwrap: $KX_BWRAP when set (empty: treated as missing), else bwrap on PATH; empty when missing.
std::string findBubblewrap();

/// The message for a missing bubblewrap: what runs, why it is refused, and the two ways out.
std::string missingSandboxMessage(const std::string &what);

/// argv that runs command (an absolute program path first) in bubblewrap as spec says. The sandbox gets new
/// user, PID, network, IPC and UTS namespaces, dies with its parent, and every process in it is killed when
/// the command ends.
std::vector<std::string> sandboxedCommand(const std::string &bwrap, const std::vector<std::string> &command,
                                          const SandboxSpec &spec);

/// argv that runs command with its data capped at memoryBytes (prlimit, from util-linux); command itself when
/// memoryBytes is 0 or prlimit is missing.
std::vector<std::string> withMemoryLimit(const std::vector<std::string> &command, std::int64_t memoryBytes);

/// bwrap's own complaint in a helper's stderr ("bwrap: ..."): the sandbox could not be set up. Empty otherwise.
std::string sandboxFailure(const std::string &stderrText);

} // namespace kx
