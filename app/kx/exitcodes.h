#pragma once

#include <iomanip>
#include <sstream>
#include <string>
#include <utility>

namespace kx::cli {

/// Exit codes scripts can rely on.
enum ExitCode : int {
    Ok = 0,
    Failure = 1,        ///< The operation failed (see stderr).
    Usage = 2,          ///< Bad command line.
    BadInput = 3,       ///< A file or archive could not be read or is not what was expected.
    NoGpu = 4,          ///< The command needs a GPU (or CUDA) and none is available.
    NoProfiler = 5,     ///< The command needs Nsight Compute (ncu) and it was not found.
    Interrupted = 130,  ///< Stopped by Ctrl-C (SIGINT), as shells report it.
};

/// The exit codes and what each means, as the footer of `kx --help` lists them.
inline std::string exitCodesHelp()
{
    const std::pair<ExitCode, const char *> codes[] = {
        {Ok, "success"},
        {Failure, "failure (the reason is on stderr)"},
        {Usage, "usage error"},
        {BadInput, "unreadable or invalid input (a file or an archive)"},
        {NoGpu, "no GPU or no CUDA"},
        {NoProfiler, "Nsight Compute (ncu) not found"},
        {Interrupted, "interrupted (Ctrl-C)"},
    };
    std::ostringstream text;
    text << "Exit codes:";
    for (const auto &[code, meaning] : codes)
        text << "\n  " << std::left << std::setw(5) << int(code) << meaning;
    return text.str();
}

} // namespace kx::cli
