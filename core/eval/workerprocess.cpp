#include "core/eval/workerprocess.h"

#include "core/util/childenvironment.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace kx {
namespace {

std::string errnoText(const char *what, int error)
{
    return std::string(what) + ": " + std::strerror(error);
}

int millisecondsUntil(WorkerProcess::Clock::time_point deadline)
{
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - WorkerProcess::Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

void setNonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// A write to a pipe whose reader is gone raises SIGPIPE, which would kill the whole host. Block it on this
// thread for the duration of the write and consume the one a failed write left pending.
class SigpipeGuard
{
public:
    SigpipeGuard()
    {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        m_wasPending = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    }
    ~SigpipeGuard()
    {
        if (m_raised && !m_wasPending) {
            const timespec zero{0, 0};
            while (sigtimedwait(&m_set, nullptr, &zero) < 0 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    }
    void raised() { m_raised = true; }

private:
    sigset_t m_set;
    sigset_t m_old;
    bool m_wasPending = false;
    bool m_raised = false;
};

} // namespace

std::string ProcessExit::toString() const
{
    if (!signaled)
        return "exit code " + std::to_string(code);
    std::string text = "signal " + std::to_string(signal);
    if (const char *name = sigabbrev_np(signal))
        text += std::string(" (SIG") + name + ")";
    return text;
}

WorkerProcess::~WorkerProcess()
{
    if (m_pid > 0 && !m_exit)
        kill();
    closeFds();
}

Status WorkerProcess::start(const std::vector<std::string> &argv)
{
    if (m_pid > 0)
        return Error{"process already started"};
    if (argv.empty() || argv.front().empty())
        return Error{"no program to start"};

    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0)
        return Error{errnoText("pipe", errno)};
    if (::pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]), ::close(in[1]);
        return Error{errnoText("pipe", e)};
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
        return Error{errnoText("pipe", e)};
    }

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 clears close-on-exec on the targets; the originals close at exec.
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Descriptors the host opened without close-on-exec (archives, other children's pipes) stay out of the worker.
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
#endif

    // The child starts with default SIGPIPE handling and an empty signal mask, whatever this thread has.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (m_ownGroup) {
        posix_spawnattr_setpgroup(&attributes, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(&attributes, flags);

    std::vector<char *> args;
    for (const std::string &arg : argv)
        args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);

    // Workers and the import helper run what models and problem files wrote: no secrets in their environment.
    const ChildEnvironment environment;
    const bool searchPath = argv.front().find('/') == std::string::npos;
    pid_t pid = -1;
    const int result = searchPath ? posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environment.envp())
                                  : posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environment.envp());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (result != 0) {
        ::close(in[1]), ::close(out[0]), ::close(err[0]);
        return Error{"cannot start " + argv.front() + ": " + std::strerror(result)};
    }

    m_pid = pid;
    m_stdin = in[1];
    m_stdout = out[0];
    m_stderr = err[0];
    setNonBlocking(m_stdin);
    setNonBlocking(m_stdout);
    setNonBlocking(m_stderr);
    m_stdoutBuffer.clear();
    m_stderrTail.clear();
    m_exit.reset();
    return Status::ok();
}

Status WorkerProcess::write(std::string_view data, Clock::time_point deadline)
{
    if (m_stdin < 0)
        return Error{"the worker's input is closed"};
    SigpipeGuard guard;
    while (!data.empty()) {
        const ssize_t n = ::write(m_stdin, data.data(), data.size());
        if (n > 0) {
            data.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE) {
            guard.raised();
            closeStdin();
            return Error{"the worker stopped reading its input"};
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return Error{errnoText("write to worker", errno)};

        // The pipe is full: wait for room, and keep stderr flowing so a chatty child cannot stall on it.
        const int timeout = millisecondsUntil(deadline);
        if (timeout == 0)
            return Error{"timed out writing to the worker"};
        pollfd fds[2] = {{m_stdin, POLLOUT, 0}, {m_stderr, POLLIN, 0}};
        if (::poll(fds, m_stderr >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
            return Error{errnoText("poll", errno)};
        if (m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            drainStderr();
    }
    return Status::ok();
}

void WorkerProcess::closeStdin()
{
    closeFd(m_stdin);
}

WorkerProcess::ReadStatus WorkerProcess::readLine(std::string &line, Clock::time_point deadline)
{
    char buffer[65536];
    std::size_t searchFrom = 0;
    bool polled = false;
    for (;;) {
        if (const auto newline = m_stdoutBuffer.find('\n', searchFrom); newline != std::string::npos) {
            line.assign(m_stdoutBuffer, 0, newline);
            m_stdoutBuffer.erase(0, newline + 1);
            return ReadStatus::Line;
        }
        searchFrom = m_stdoutBuffer.size();
        if (m_stdoutBuffer.size() > kMaxLineBytes)
            return ReadStatus::TooLong;
        if (m_stdout < 0)
            return ReadStatus::Closed;
        // Checked here rather than on poll's result alone, so a child flooding stderr cannot defer the timeout.
        if (polled && Clock::now() >= deadline)
            return ReadStatus::Timeout;
        polled = true;

        pollfd fds[2] = {{m_stdout, POLLIN, 0}, {m_stderr, POLLIN, 0}};
        const int ready = ::poll(fds, m_stderr >= 0 ? 2 : 1, millisecondsUntil(deadline));
        if (ready < 0 && errno != EINTR)
            return ReadStatus::Closed;
        if (m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            drainStderr();
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            for (;;) {
                const ssize_t n = ::read(m_stdout, buffer, sizeof buffer);
                if (n > 0) {
                    m_stdoutBuffer.append(buffer, static_cast<std::size_t>(n));
                    if (m_stdoutBuffer.size() > kMaxLineBytes)
                        break;
                    continue;
                }
                if (n < 0 && errno == EINTR)
                    continue;
                if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                    closeFd(m_stdout);
                break;
            }
        }
    }
}

void WorkerProcess::drainStderr()
{
    char buffer[16384];
    while (m_stderr >= 0) {
        const ssize_t n = ::read(m_stderr, buffer, sizeof buffer);
        if (n > 0) {
            appendStderr({buffer, static_cast<std::size_t>(n)});
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            closeFd(m_stderr);
        break;
    }
}

std::string WorkerProcess::stderrTail() const
{
    return m_stderrTail;
}

void WorkerProcess::appendStderr(std::string_view data)
{
    m_stderrTail.append(data);
    if (m_stderrTail.size() > kStderrTailBytes)
        m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
}

bool WorkerProcess::poll()
{
    if (m_pid <= 0 || m_exit)
        return m_exit.has_value();
    int status = 0;
    pid_t result;
    do {
        result = ::waitpid(m_pid, &status, WNOHANG);
    } while (result < 0 && errno == EINTR);
    if (result == m_pid) {
        reap(status);
        return true;
    }
    if (result < 0) {
        // Someone else reaped it: it is gone, but how it ended is unknown.
        m_exit = ProcessExit{true, 0, 0};
        return true;
    }
    return false;
}

ProcessExit WorkerProcess::waitForExit(Clock::time_point deadline)
{
    while (!poll()) {
        const int timeout = std::min(millisecondsUntil(deadline), 10);
        if (timeout == 0)
            return kill();
        // Sleep on stderr rather than blindly, so its last words are kept.
        pollfd fd{m_stderr, POLLIN, 0};
        if (m_stderr >= 0) {
            if (::poll(&fd, 1, timeout) > 0)
                drainStderr();
        } else {
            ::poll(nullptr, 0, timeout);
        }
    }
    drainStderr();
    return m_exit.value_or(ProcessExit{});
}

void WorkerProcess::killProcessGroup()
{
    // The group keeps the child's pid as its id while any member lives, even after the child was reaped.
    if (m_ownGroup && m_pid > 0)
        ::kill(-m_pid, SIGKILL);
}

ProcessExit WorkerProcess::kill()
{
    killProcessGroup();
    if (m_pid > 0 && !m_exit) {
        ::kill(m_pid, SIGKILL);
        int status = 0;
        pid_t result;
        do {
            result = ::waitpid(m_pid, &status, 0);
        } while (result < 0 && errno == EINTR);
        if (result == m_pid)
            reap(status);
        else
            m_exit = ProcessExit{true, 0, SIGKILL};
    }
    drainStderr();
    closeFds();
    return m_exit.value_or(ProcessExit{});
}

void WorkerProcess::reap(int status)
{
    if (WIFSIGNALED(status))
        m_exit = ProcessExit{true, 0, WTERMSIG(status)};
    else
        m_exit = ProcessExit{false, WEXITSTATUS(status), 0};
}

void WorkerProcess::closeFds()
{
    closeFd(m_stdin);
    closeFd(m_stdout);
    closeFd(m_stderr);
}

} // namespace kx
