#include "core/propose/commandrunner.h"

#include "core/util/childenvironment.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <vector>

namespace kx {
namespace {

constexpr std::size_t kMaxOutput = 16 << 20; // A runaway command must not exhaust memory.
constexpr int kPollMs = 50;

class Pipe
{
public:
    Pipe()
    {
        if (::pipe2(m_fds.data(), O_CLOEXEC) != 0)
            m_fds = {-1, -1};
    }
    ~Pipe()
    {
        closeRead();
        closeWrite();
    }
    bool ok() const { return m_fds[0] >= 0; }
    int read() const { return m_fds[0]; }
    int write() const { return m_fds[1]; }
    void closeRead() { closeEnd(0); }
    void closeWrite() { closeEnd(1); }

private:
    void closeEnd(int end)
    {
        if (m_fds[std::size_t(end)] >= 0)
            ::close(m_fds[std::size_t(end)]);
        m_fds[std::size_t(end)] = -1;
    }
    std::array<int, 2> m_fds{-1, -1};
};

int exitCodeOf(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

int waitFor(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return exitCodeOf(status);
}

// Writes without raising SIGPIPE when the command has stopped reading (that would kill this process).
ssize_t writeQuietly(int fd, const char *data, std::size_t size)
{
    sigset_t pipeSignal, previous;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous);
    const auto n = ::write(fd, data, size);
    const int error = errno;
    if (n < 0 && error == EPIPE) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipeSignal, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = error;
    return n;
}

// The secret variables the user hands to commands by name in KX_COMMAND_SECRETS (e.g. a command that asks a
// model of its own needs that model's key); separated by commas, colons or spaces.
std::vector<std::string> secretsForCommands()
{
    std::vector<std::string> names;
    const char *list = std::getenv("KX_COMMAND_SECRETS");
    if (!list)
        return names;
    std::string text = list;
    for (char &c : text)
        if (c == ',' || c == ':')
            c = ' ';
    std::istringstream words(text);
    for (std::string name; words >> name;)
        names.push_back(name);
    return names;
}

} // namespace

Expected<CommandOutput> CommandRunner::run(const std::string &command, const std::string &input,
                                           std::chrono::duration<double> timeout, std::stop_token stop)
{
    if (command.empty())
        return Error{"no command given"};
    Pipe in, out, err;
    if (!in.ok() || !out.ok() || !err.ok())
        return Error{std::string("cannot create pipes: ") + std::strerror(errno)};
    // Made before fork: the child of a threaded process may only call async-signal-safe functions.
    const ChildEnvironment environment(secretsForCommands());
    const char *const argv[] = {"sh", "-c", command.c_str(), nullptr};
    const pid_t pid = ::fork();
    if (pid < 0)
        return Error{std::string("cannot start a process: ") + std::strerror(errno)};
    if (pid == 0) {
        ::setpgid(0, 0);
        ::dup2(in.read(), STDIN_FILENO);
        ::dup2(out.write(), STDOUT_FILENO);
        ::dup2(err.write(), STDERR_FILENO);
        ::execve("/bin/sh", const_cast<char *const *>(argv), environment.envp());
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    in.closeRead();
    out.closeWrite();
    err.closeWrite();
    ::fcntl(in.write(), F_SETFL, O_NONBLOCK);

    CommandOutput result;
    std::size_t written = 0;
    if (input.empty())
        in.closeWrite();
    const auto deadline = std::chrono::steady_clock::now()
                          + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
    std::string failure;
    bool outOpen = true, errOpen = true;
    while (outOpen || errOpen) {
        if (stop.stop_requested()) {
            failure = "cancelled";
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            failure = "the command did not finish within " + std::to_string(int(timeout.count())) + " s (killed)";
            break;
        }
        std::array<pollfd, 3> fds{};
        nfds_t count = 0;
        if (outOpen)
            fds[count++] = {out.read(), POLLIN, 0};
        if (errOpen)
            fds[count++] = {err.read(), POLLIN, 0};
        if (in.write() >= 0)
            fds[count++] = {in.write(), POLLOUT, 0};
        if (::poll(fds.data(), count, kPollMs) < 0 && errno != EINTR)
            break;
        for (nfds_t i = 0; i < count; ++i) {
            if (!fds[i].revents)
                continue;
            if (fds[i].fd == in.write()) {
                const auto n = writeQuietly(in.write(), input.data() + written, input.size() - written);
                if (n > 0)
                    written += std::size_t(n);
                if (n < 0 && errno != EAGAIN && errno != EINTR)
                    in.closeWrite(); // The command stopped reading (EPIPE): its output still counts.
                else if (written == input.size())
                    in.closeWrite();
                continue;
            }
            char buffer[65536];
            const auto n = ::read(fds[i].fd, buffer, sizeof buffer);
            std::string &target = fds[i].fd == out.read() ? result.out : result.err;
            if (n > 0 && target.size() < kMaxOutput)
                target.append(buffer, std::size_t(n));
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                (fds[i].fd == out.read() ? outOpen : errOpen) = false;
        }
    }
    in.closeWrite();
    // Output closed: the shell is normally exiting, but it may have closed its output and kept running.
    while (failure.empty()) {
        int status = 0;
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            result.exitCode = exitCodeOf(status);
            return result;
        }
        if (done < 0 && errno != EINTR)
            return Error{std::string("lost track of the command: ") + std::strerror(errno)};
        if (stop.stop_requested())
            failure = "cancelled";
        else if (std::chrono::steady_clock::now() > deadline)
            failure = "the command did not finish within " + std::to_string(int(timeout.count())) + " s (killed)";
        else
            ::usleep(kPollMs * 1000);
    }
    ::kill(-pid, SIGKILL);
    waitFor(pid);
    return Error{failure};
}

} // namespace kx
