#pragma once

#include "core/util/expected.h"

#include <iomanip>
#include <sstream>
#include <string>
#include <utility>

namespace kx::cli {

/// Exit codes scripts can rely on.
enum ExitCode : int {
    Ok = 0,
    Failure = 1,       ///< The operation failed (see stderr).
    Usage = 2,         ///< Bad command line.
    BadInput = 3,      ///< A file or archive could not be read or is not what was expected.
    NoGpu = 4,         ///< The command needs a GPU (or CUDA) and none is available.
    Unavailable = 5,   ///< A tool the command needs is not available (Nsight Compute, Python, bubblewrap ...).
    Interrupted = 130, ///< Stopped by Ctrl-C (SIGINT), as shells report it.
};

/// The exit code of a command that failed with this Error: one code for each kind, so that the reason a script
/// sees is the one the code found.
inline ExitCode exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case ErrorKind::Failed: return Failure;
    case ErrorKind::BadInput: return BadInput;
    case ErrorKind::NoGpu: return NoGpu;
    case ErrorKind::Unavailable: return Unavailable;
    case ErrorKind::Cancelled: return Interrupted;
    }
    return Failure;
}

/// The exit codes and what each means, as the footer of `kx --help` lists them.
inline std::string exitCodesHelp()
{
    const std::pair<ExitCode, const char *> codes[] = {
        {Ok, "success"},
        {Failure, "failure (the reason is on stderr)"},
        {Usage, "usage error"},
        {BadInput, "unreadable or invalid input (a file or an archive)"},
        {NoGpu, "no GPU or no CUDA"},
        {Unavailable, "a tool it needs is not available (e.g. Nsight Compute)"},
        {Interrupted, "interrupted (Ctrl-C)"},
    };
    std::ostringstream text;
    text << "Exit codes:";
    for (const auto &[code, meaning] : codes)
        text << "\n  " << std::left << std::setw(5) << int(code) << meaning;
    return text.str();
}

} // namespace kx::cli
