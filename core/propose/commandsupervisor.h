#pragma once

#include <sys/types.h>

namespace kx {

/// The descriptors a supervisor works with, as numbered in it after the fork.
struct SupervisorFds
{
    int stdinRead = -1; ///< The command's stdin, stdout and stderr.
    int stdoutWrite = -1;
    int stderrWrite = -1;
    int control = -1; ///< Readable end: data or end of file means "stop everything".
    int status = -1;  ///< Writable end: the shell's wait status (an int) once it ends.
};

/**
 * The body of the process that CommandRunner forks between kx and a command's shell. It becomes a child
 * subreaper (prctl PR_SET_CHILD_SUBREAPER): every descendant of the command whose parent dies is reparented to
 * it, also one that started a session of its own (setsid) or forked twice to leave its parent, so all of them
 * stay in its tree. It runs "/bin/sh -c command", reports the shell's end, and when told to stop (or when kx is
 * gone and the control pipe closes) kills its children layer by layer until none is left, then exits.
 * Never returns. Uses only async-signal-safe calls: it runs in a fork of a threaded process.
 * Limit: a process the command has another service start (at, systemd-run, a daemon over a socket) is no
 * descendant and is not found; a fork bomb is killed only as fast as it is found.
 */
[[noreturn]] void runCommandSupervisor(const SupervisorFds &fds, const char *const *argv, char *const *envp);

} // namespace kx
