#pragma once

// A Qt-free stand-in for QProcess in the tests: starts a program with pipes on stdout and stderr (stdin from
// /dev/null), collects all of both, and reports how it ended. core's WorkerProcess keeps only a tail of stderr
// and takes no environment, which the CLI tests need.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kx::test {

/// How a program ended and what it wrote.
struct ProgramResult
{
    int exitCode = -1;     ///< -1 when it did not exit normally.
    int signal = 0;        ///< The signal that ended it, 0 when it exited.
    bool timedOut = false; ///< It was killed because it ran past the deadline.
    std::string out;
    std::string err;
};

class ChildProcess
{
public:
    /// Variables set (or replaced) in the child on top of this process's environment.
    using Environment = std::vector<std::pair<std::string, std::string>>;

    ChildProcess() = default;
    ~ChildProcess(); ///< Kills and reaps a child that still runs.
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    /// Starts argv[0] (a path, not searched in PATH). False when the pipes or the fork fail; a program that
    /// cannot be executed exits 127 with the reason on stderr.
    bool start(const std::vector<std::string> &argv, const Environment &environment = {});
    pid_t pid() const { return m_pid; }

    /// Reads output until stdout contains text; false when the child closes stdout or the timeout passes first.
    bool waitForOutput(std::string_view text, std::chrono::milliseconds timeout);
    void sendSignal(int signal);

    /// Reads both streams to their end and reaps the child; kills it with SIGKILL when the timeout passes first.
    ProgramResult finish(std::chrono::milliseconds timeout);

    const std::string &out() const { return m_out; }
    const std::string &err() const { return m_err; }

private:
    void readAvailable(std::chrono::milliseconds wait);
    bool reap(bool block);
    void closeFds();

    pid_t m_pid = -1;
    int m_outFd = -1;
    int m_errFd = -1;
    int m_status = 0;
    bool m_reaped = false;
    std::string m_out;
    std::string m_err;
};

/// Runs a program to its end and returns what it wrote and how it ended.
ProgramResult runProgram(const std::vector<std::string> &argv, const ChildProcess::Environment &environment = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

} // namespace kx::test
