#pragma once

#include "core/util/expected.h"

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx {

/// How a child process ended.
struct ProcessExit
{
    bool signaled = false;
    int code = 0;   ///< Exit code when !signaled.
    int signal = 0; ///< Terminating signal when signaled.

    bool success() const { return !signaled && code == 0; }
    /// e.g. "exit code 3" or "signal 11 (SIGSEGV)".
    std::string toString() const;
};

/**
 * A child process talking through pipes: line-oriented stdout, raw stdin, and the last few KiB of stderr kept
 * for crash reports. All reads and writes take a deadline and never block past it. Not thread-safe: one owner.
 */
class WorkerProcess
{
public:
    using Clock = std::chrono::steady_clock;

    enum class ReadStatus {
        Line,    ///< A complete line was read (without its newline).
        Timeout, ///< The deadline passed first.
        Closed,  ///< The child closed stdout (usually: it exited).
        TooLong, ///< The child wrote more than kMaxLineBytes without a newline.
    };

    static constexpr std::size_t kStderrTailBytes = 8 * 1024;
    static constexpr std::size_t kMaxLineBytes = 256 * 1024 * 1024;

    WorkerProcess() = default;
    ~WorkerProcess(); ///< Kills and reaps a child that still runs.
    WorkerProcess(const WorkerProcess &) = delete;
    WorkerProcess &operator=(const WorkerProcess &) = delete;

    /// Starts argv[0] (searched in PATH when it has no slash) with argv as its arguments.
    Status start(const std::vector<std::string> &argv);
    /// Before start(): the child leads a process group of its own, and kill() ends the whole group, so that
    /// processes it started (holding its stdout, say) do not outlive it.
    void setOwnProcessGroup(bool own) { m_ownGroup = own; }
    /// SIGKILL to what is left of the child's process group (after the child itself has exited, too).
    void killProcessGroup();

    bool isStarted() const { return m_pid > 0; }
    pid_t pid() const { return m_pid; }

    /// Writes all of data to the child's stdin unless the deadline passes or the child stops reading.
    Status write(std::string_view data, Clock::time_point deadline);
    void closeStdin();

    /// Reads the next stdout line; stderr is collected meanwhile.
    ReadStatus readLine(std::string &line, Clock::time_point deadline);
    /// Text read from stdout after the last complete line.
    const std::string &pendingOutput() const { return m_stdoutBuffer; }

    /// Reads whatever stderr has now, without blocking.
    void drainStderr();
    /// The last kStderrTailBytes of stderr.
    std::string stderrTail() const;

    /// Reaps the child if it has exited; false while it runs.
    bool poll();
    /// Waits until the deadline for the child to exit, then kills it. Returns how it ended.
    ProcessExit waitForExit(Clock::time_point deadline);
    /// SIGKILL and reap. Safe to call when the child has already exited.
    ProcessExit kill();
    std::optional<ProcessExit> exitStatus() const { return m_exit; }

private:
    void appendStderr(std::string_view data);
    void reap(int status);
    void closeFds();

    pid_t m_pid = -1;
    int m_stdin = -1;
    int m_stdout = -1;
    int m_stderr = -1;
    std::string m_stdoutBuffer;
    std::string m_stderrTail;
    std::optional<ProcessExit> m_exit;
    bool m_ownGroup = false;
};

} // namespace kx
