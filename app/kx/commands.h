#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace kx::cli {

/// Exit codes scripts can rely on.
enum ExitCode : int {
    Ok = 0,
    Failure = 1,        ///< The operation failed (see stderr).
    Usage = 2,          ///< Bad command line.
    BadInput = 3,       ///< A file or archive could not be read or is not what was expected.
    NoGpu = 4,          ///< The command needs a GPU (or CUDA) and none is available.
};

/// A registered command sets its action here; main runs the one that was parsed.
using Action = std::function<int()>;

void addArchiveCommands(CLI::App &app, Action &action);
void addEvalCommands(CLI::App &app, Action &action); ///< worker, compile, evaluate

} // namespace kx::cli
