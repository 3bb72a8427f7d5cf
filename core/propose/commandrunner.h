#pragma once

#include "core/util/expected.h"

#include <chrono>
#include <stop_token>
#include <string>

namespace kx {

/// What a finished command left behind.
struct CommandOutput
{
    int exitCode = 0; ///< Exit status, or 128 + signal number.
    std::string out;  ///< stdout.
    std::string err;  ///< stderr.
};

/**
 * Runs a shell command (/bin/sh -c), writes input to its stdin and collects stdout (at most 16 MiB: more is an
 * Error that says so) and the end of stderr. The command runs under a supervisor process in a process group of
 * its own (see runCommandSupervisor): when the command ends, times out or a stop request comes, every process it
 * started is killed, also those that left its process group or session (setsid) or their parents; a timeout or
 * a stop request comes back as an Error.
 * The command gets this process's environment without secrets (ChildEnvironment), except the secret variables
 * named in KX_COMMAND_SECRETS (separated by commas, colons or spaces).
 */
class CommandRunner
{
public:
    static Expected<CommandOutput> run(const std::string &command, const std::string &input,
                                       std::chrono::duration<double> timeout, std::stop_token stop);
};

} // namespace kx
