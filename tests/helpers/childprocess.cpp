#include "childprocess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kx::test {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds remaining(Clock::time_point deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return std::max(left, std::chrono::milliseconds(0));
}

// This process's environment with the given variables replaced or added.
std::vector<std::string> mergedEnvironment(const ChildProcess::Environment &overrides)
{
    std::vector<std::string> result;
    for (char **entry = environ; *entry; ++entry) {
        const std::string_view text(*entry);
        const auto name = text.substr(0, text.find('='));
        bool replaced = false;
        for (const auto &variable : overrides)
            replaced = replaced || variable.first == name;
        if (!replaced)
            result.emplace_back(text);
    }
    for (const auto &[name, value] : overrides)
        result.push_back(name + "=" + value);
    return result;
}

std::vector<char *> pointers(std::vector<std::string> &strings)
{
    std::vector<char *> result;
    for (auto &text : strings)
        result.push_back(text.data());
    result.push_back(nullptr);
    return result;
}

} // namespace

ChildProcess::~ChildProcess()
{
    if (m_pid > 0 && !m_reaped) {
        ::kill(m_pid, SIGKILL);
        reap(true);
    }
    closeFds();
}

bool ChildProcess::start(const std::vector<std::string> &argv, const Environment &environment)
{
    if (argv.empty() || m_pid > 0)
        return false;
    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0)
        return false;
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        ::close(outPipe[0]);
        ::close(outPipe[1]);
        return false;
    }
    // Everything the child needs is prepared before fork: only async-signal-safe calls may follow it.
    std::vector<std::string> arguments = argv;
    std::vector<std::string> variables = mergedEnvironment(environment);
    const auto argumentPointers = pointers(arguments);
    const auto variablePointers = pointers(variables);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, STDIN_FILENO);
        ::dup2(outPipe[1], STDOUT_FILENO);
        ::dup2(errPipe[1], STDERR_FILENO);
        ::execve(argumentPointers[0], argumentPointers.data(), variablePointers.data());
        const char *why = std::strerror(errno);
        [[maybe_unused]] auto written = ::write(STDERR_FILENO, why, std::strlen(why));
        ::_exit(127);
    }
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (pid < 0) {
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        return false;
    }
    m_pid = pid;
    m_outFd = outPipe[0];
    m_errFd = errPipe[0];
    return true;
}

void ChildProcess::readAvailable(std::chrono::milliseconds wait)
{
    pollfd fds[2];
    int count = 0;
    if (m_outFd >= 0)
        fds[count++] = {m_outFd, POLLIN, 0};
    if (m_errFd >= 0)
        fds[count++] = {m_errFd, POLLIN, 0};
    if (count == 0)
        return;
    if (::poll(fds, nfds_t(count), int(wait.count())) <= 0)
        return;
    for (int i = 0; i < count; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        const bool isOut = fds[i].fd == m_outFd;
        char buffer[65536];
        const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
            (isOut ? m_out : m_err).append(buffer, std::size_t(n));
        } else if (n == 0 || errno != EINTR) {
            ::close(fds[i].fd);
            (isOut ? m_outFd : m_errFd) = -1;
        }
    }
}

bool ChildProcess::reap(bool block)
{
    if (m_reaped)
        return true;
    if (m_pid <= 0)
        return false;
    int status = 0;
    pid_t result;
    do {
        result = ::waitpid(m_pid, &status, block ? 0 : WNOHANG);
    } while (result < 0 && errno == EINTR);
    if (result != m_pid)
        return false;
    m_status = status;
    m_reaped = true;
    return true;
}

void ChildProcess::closeFds()
{
    for (int *fd : {&m_outFd, &m_errFd}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

bool ChildProcess::waitForOutput(std::string_view text, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    while (m_out.find(text) == std::string::npos) {
        if (m_outFd < 0 || Clock::now() >= deadline)
            return false;
        readAvailable(std::min(remaining(deadline), std::chrono::milliseconds(100)));
    }
    return true;
}

void ChildProcess::sendSignal(int signal)
{
    if (m_pid > 0 && !m_reaped)
        ::kill(m_pid, signal);
}

ProgramResult ChildProcess::finish(std::chrono::milliseconds timeout)
{
    ProgramResult result;
    if (m_pid <= 0)
        return result;
    const auto deadline = Clock::now() + timeout;
    // A grandchild may keep the pipes open after the child exits: once it has, read for a moment longer only.
    auto readUntil = deadline;
    while ((m_outFd >= 0 || m_errFd >= 0) && Clock::now() < readUntil) {
        readAvailable(std::min(remaining(readUntil), std::chrono::milliseconds(50)));
        if (readUntil == deadline && reap(false))
            readUntil = std::min(deadline, Clock::now() + std::chrono::seconds(1));
    }
    while (!reap(false) && Clock::now() < deadline)
        ::usleep(5000);
    if (!m_reaped) {
        result.timedOut = true;
        ::kill(m_pid, SIGKILL);
        reap(true);
        readAvailable(std::chrono::milliseconds(0));
    }
    closeFds();
    if (WIFEXITED(m_status))
        result.exitCode = WEXITSTATUS(m_status);
    else if (WIFSIGNALED(m_status))
        result.signal = WTERMSIG(m_status);
    result.out = m_out;
    result.err = m_err;
    return result;
}

ProgramResult runProgram(const std::vector<std::string> &argv, const ChildProcess::Environment &environment,
                         std::chrono::milliseconds timeout)
{
    ChildProcess process;
    if (!process.start(argv, environment)) {
        ProgramResult failed;
        failed.err = "cannot start " + (argv.empty() ? std::string("nothing") : argv.front());
        return failed;
    }
    return process.finish(timeout);
}

} // namespace kx::test
