#include "core/propose/commandrunner.h"

#include "core/propose/commandsupervisor.h"
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

constexpr std::size_t kMaxOutput = 16 << 20; // An answer larger than this is no answer: a runaway command.
constexpr std::size_t kMaxStderr = 1 << 20;  // Of stderr only the end is shown.
constexpr int kPollMs = 50;
constexpr int kSupervisorGraceMs = 5000; // To kill what the command left and exit.

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

// The supervisor kills what is left of the command once its control pipe is closed, then exits. True when it
// did; otherwise (a process that cannot be killed) it is killed itself after a grace period.
bool stopSupervisor(pid_t supervisor)
{
    for (int waited = 0; waited < kSupervisorGraceMs; waited += 5) {
        int status = 0;
        const pid_t done = ::waitpid(supervisor, &status, WNOHANG);
        if (done == supervisor || (done < 0 && errno != EINTR))
            return true;
        ::usleep(5000);
    }
    ::kill(-supervisor, SIGKILL);
    int status = 0;
    while (::waitpid(supervisor, &status, 0) < 0 && errno == EINTR) {
    }
    return false;
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
    Pipe in, out, err, control, status;
    if (!in.ok() || !out.ok() || !err.ok() || !control.ok() || !status.ok())
        return Error{std::string("cannot create pipes: ") + std::strerror(errno)};
    // Made before fork: the child of a threaded process may only call async-signal-safe functions.
    const ChildEnvironment environment(secretsForCommands());
    const char *const argv[] = {"sh", "-c", command.c_str(), nullptr};
    const SupervisorFds fds{in.read(), out.write(), err.write(), control.read(), status.write()};
    const pid_t supervisor = ::fork();
    if (supervisor < 0)
        return Error{std::string("cannot start a process: ") + std::strerror(errno)};
    if (supervisor == 0) {
        // Its own process group keeps Ctrl-C in the terminal to kx, which stops the command itself.
        ::setpgid(0, 0);
        runCommandSupervisor(fds, argv, environment.envp());
    }
    ::setpgid(supervisor, supervisor);
    in.closeRead();
    out.closeWrite();
    err.closeWrite();
    control.closeRead();
    status.closeWrite();
    ::fcntl(in.write(), F_SETFL, O_NONBLOCK);

    CommandOutput result;
    std::size_t written = 0;
    if (input.empty())
        in.closeWrite();
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
    std::string failure;
    ErrorKind failureKind = ErrorKind::Failed;
    std::string statusBytes;
    bool shellDone = false;
    bool outOpen = true, errOpen = true, statusOpen = true;
    while (outOpen || errOpen || (statusOpen && !shellDone)) {
        if (stop.stop_requested()) {
            failure = "cancelled";
            failureKind = ErrorKind::Cancelled;
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            failure = "the command did not finish within " + std::to_string(int(timeout.count())) + " s (killed)";
            break;
        }
        std::array<pollfd, 4> fds{};
        nfds_t count = 0;
        if (outOpen)
            fds[count++] = {out.read(), POLLIN, 0};
        if (errOpen)
            fds[count++] = {err.read(), POLLIN, 0};
        if (statusOpen)
            fds[count++] = {status.read(), POLLIN, 0};
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
            const bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
            if (fds[i].fd == status.read()) {
                if (n > 0)
                    statusBytes.append(buffer, std::size_t(n));
                if (statusBytes.size() >= sizeof(int) && !shellDone) {
                    int wait = 0;
                    std::memcpy(&wait, statusBytes.data(), sizeof wait);
                    result.exitCode = exitCodeOf(wait);
                    shellDone = true;
                    // The shell is done: whatever it left running goes, and its output pipes close with it.
                    control.closeWrite();
                }
                if (closed)
                    statusOpen = false;
            } else if (fds[i].fd == out.read()) {
                if (n > 0)
                    result.out.append(buffer, std::size_t(n));
                if (result.out.size() > kMaxOutput) {
                    failure = "the command wrote more than " + std::to_string(kMaxOutput >> 20)
                              + " MiB to stdout (the limit for an answer; it was stopped)";
                    break;
                }
                if (closed)
                    outOpen = false;
            } else {
                // Only stderr's end is ever shown: keep a tail rather than all of it.
                if (n > 0)
                    result.err.append(buffer, std::size_t(n));
                if (result.err.size() > 2 * kMaxStderr)
                    result.err.erase(0, result.err.size() - kMaxStderr);
                if (closed)
                    errOpen = false;
            }
        }
        if (!failure.empty())
            break;
        // The supervisor ended without reporting the shell (it could not start one).
        if (!statusOpen && !shellDone) {
            failure = "the command's supervisor ended without starting it";
            break;
        }
    }
    in.closeWrite();
    control.closeWrite();
    const bool supervisorEnded = stopSupervisor(supervisor);
    if (!failure.empty())
        return Error{failure, failureKind};
    if (!supervisorEnded)
        return Error{"the command's processes could not all be stopped"};
    return result;
}

} // namespace kx
