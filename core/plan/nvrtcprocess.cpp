#include "core/plan/nvrtcprocess.h"

#include "core/util/childenvironment.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kx {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollMs = 20; // How often limits and the stop request are looked at.
constexpr std::size_t kIdleChildren = 8;
constexpr std::size_t kStderrTail = 2000;

std::size_t residentMb(pid_t pid)
{
    std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
    std::size_t pages = 0, resident = 0;
    if (!(statm >> pages >> resident))
        return 0;
    return resident * std::size_t(::sysconf(_SC_PAGESIZE)) / (1024 * 1024);
}

std::string describeExit(int status)
{
    if (WIFEXITED(status))
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " ("
               + ::strsignal(WTERMSIG(status)) + ")";
    return "ended";
}

// One kx-nvrtc process: a socket for jobs and answers, a pipe for its stderr.
class Child
{
public:
    ~Child() { stop(); }

    static std::unique_ptr<Child> start(const std::string &helper, std::string &error)
    {
        int channel[2];
        int err[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
            error = std::string("cannot create a socket for the NVRTC helper: ") + std::strerror(errno);
            return nullptr;
        }
        if (::pipe2(err, O_CLOEXEC) != 0) {
            error = std::string("cannot create a pipe for the NVRTC helper: ") + std::strerror(errno);
            ::close(channel[0]);
            ::close(channel[1]);
            return nullptr;
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, channel[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, channel[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
        // Nothing of this process's other pipes may stay open in a child that lives on.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t none, defaults;
        sigemptyset(&none);
        sigemptyset(&defaults);
        for (const int signal : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGALRM, SIGHUP})
            sigaddset(&defaults, signal);
        posix_spawnattr_setsigmask(&attributes, &none);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        // Its own process group: Ctrl-C in the terminal reaches kx, which stops the compile itself.
        posix_spawnattr_setpgroup(&attributes, 0);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        const ChildEnvironment environment;
        char *const argv[] = {const_cast<char *>(helper.c_str()), nullptr};
        pid_t pid = -1;
        const int spawned = ::posix_spawn(&pid, helper.c_str(), &actions, &attributes, argv, environment.envp());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        ::close(channel[1]);
        ::close(err[1]);
        if (spawned != 0) {
            error = "cannot start the NVRTC helper " + helper + ": " + std::strerror(spawned);
            ::close(channel[0]);
            ::close(err[0]);
            return nullptr;
        }
        auto child = std::unique_ptr<Child>(new Child);
        child->m_pid = pid;
        child->m_channel = channel[0];
        child->m_err = err[0];
        return child;
    }

    pid_t pid() const
    {
        return m_pid;
    }
    int channel() const
    {
        return m_channel;
    }
    int err() const
    {
        return m_err;
    }
    std::string &stderrTail()
    {
        return m_stderr;
    }

    void readStderr()
    {
        char buffer[4096];
        const auto n = ::read(m_err, buffer, sizeof buffer);
        if (n > 0) {
            m_stderr.append(buffer, std::size_t(n));
            if (m_stderr.size() > kStderrTail)
                m_stderr.erase(0, m_stderr.size() - kStderrTail);
        }
    }

    // Kills the whole group and reaps the child; returns its wait status (0 if it was gone already).
    int kill()
    {
        if (m_pid <= 0)
            return 0;
        ::kill(-m_pid, SIGKILL);
        ::kill(m_pid, SIGKILL);
        return reap();
    }

    int reap()
    {
        int status = 0;
        while (m_pid > 0 && ::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
        m_pid = -1;
        return status;
    }

private:
    Child() = default;

    // An idle child ends when its socket closes; one that does not is killed.
    void stop()
    {
        if (m_channel >= 0)
            ::close(m_channel);
        if (m_err >= 0)
            ::close(m_err);
        m_channel = m_err = -1;
        if (m_pid <= 0)
            return;
        for (int i = 0; i < 50; ++i) {
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                return;
            }
            ::usleep(2000);
        }
        kill();
    }

    pid_t m_pid = -1;
    int m_channel = -1;
    int m_err = -1;
    std::string m_stderr;
};

// Idle children, kept for the next job.
class ChildPool
{
public:
    std::unique_ptr<Child> take()
    {
        std::lock_guard lock(m_mutex);
        if (m_idle.empty())
            return nullptr;
        auto child = std::move(m_idle.back());
        m_idle.pop_back();
        return child;
    }

    void give(std::unique_ptr<Child> child)
    {
        std::lock_guard lock(m_mutex);
        if (m_idle.size() < kIdleChildren)
            m_idle.push_back(std::move(child));
    }

private:
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Child>> m_idle;
};

ChildPool &pool()
{
    static ChildPool children;
    return children;
}

bool sendQuietly(int fd, const std::string &message)
{
    std::string framed;
    framed.reserve(message.size() + 8);
    for (int i = 0; i < 8; ++i)
        framed += char((std::uint64_t(message.size()) >> (8 * i)) & 0xff);
    framed += message;
    std::size_t sent = 0;
    while (sent < framed.size()) {
        const auto n = ::send(fd, framed.data() + sent, framed.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        sent += std::size_t(n);
    }
    return true;
}

} // namespace

std::string nvrtcHelperPath()
{
    if (const char *helper = std::getenv("KX_NVRTC_HELPER"); helper && *helper)
        return helper;
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string("kx-nvrtc") : (self.parent_path() / "kx-nvrtc").string();
}

NvrtcRun runNvrtcJob(const NvrtcJob &job, std::stop_token stop)
{
    NvrtcRun run;
    if (stop.stop_requested()) {
        run.outcome = NvrtcRun::Outcome::Cancelled;
        run.error = "cancelled";
        return run;
    }
    const std::string helper = nvrtcHelperPath();
    std::unique_ptr<Child> child = pool().take();
    if (!child) {
        child = Child::start(helper, run.error);
        if (!child)
            return run;
    }
    const auto started = Clock::now();
    const auto deadline =
        started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(job.timeoutSeconds));
    if (!sendQuietly(child->channel(), encodeNvrtcJob(job))) {
        // An idle child may have died since its last job: one fresh try.
        child->kill();
        child = Child::start(helper, run.error);
        if (!child || !sendQuietly(child->channel(), encodeNvrtcJob(job))) {
            run.error = run.error.empty() ? "cannot send the source to the NVRTC helper " + helper : run.error;
            return run;
        }
    }

    std::string answer;
    std::uint64_t expected = 0;
    bool haveLength = false;
    for (;;) {
        if (stop.stop_requested()) {
            run.outcome = NvrtcRun::Outcome::Cancelled;
            run.error = "cancelled";
            child->kill();
            return run;
        }
        if (job.timeoutSeconds > 0 && Clock::now() > deadline) {
            run.outcome = NvrtcRun::Outcome::TimeLimit;
            run.error = "the compile took longer than " + std::to_string(int(std::ceil(job.timeoutSeconds))) + " s";
            child->kill();
            return run;
        }
        run.peakMb = std::max(run.peakMb, residentMb(child->pid()));
        if (job.memoryLimitMb > 0 && run.peakMb > job.memoryLimitMb) {
            run.outcome = NvrtcRun::Outcome::MemoryLimit;
            run.error = "the compile took more than " + std::to_string(job.memoryLimitMb) + " MB of memory";
            child->kill();
            return run;
        }
        pollfd fds[2] = {{child->channel(), POLLIN, 0}, {child->err(), POLLIN, 0}};
        if (::poll(fds, 2, kPollMs) < 0 && errno != EINTR) {
            run.error = std::string("lost track of the NVRTC helper: ") + std::strerror(errno);
            child->kill();
            return run;
        }
        if (fds[1].revents & POLLIN)
            child->readStderr();
        if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char buffer[65536];
        const auto n = ::recv(child->channel(), buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            // The child ended without answering: a crash, or the memory backstop inside it.
            child->readStderr();
            const int status = child->kill();
            const bool memory = job.memoryLimitMb > 0 && run.peakMb * 10 >= job.memoryLimitMb * 9;
            run.outcome = memory ? NvrtcRun::Outcome::MemoryLimit : NvrtcRun::Outcome::Failed;
            run.error = memory ? "the compile took more than " + std::to_string(job.memoryLimitMb) + " MB of memory"
                               : "the NVRTC helper " + describeExit(status) + " while compiling";
            if (!memory && !child->stderrTail().empty())
                run.error += ": " + child->stderrTail();
            return run;
        }
        answer.append(buffer, std::size_t(n));
        if (!haveLength && answer.size() >= 8) {
            for (int i = 0; i < 8; ++i)
                expected |= std::uint64_t(static_cast<unsigned char>(answer[std::size_t(i)])) << (8 * i);
            answer.erase(0, 8);
            haveLength = true;
        }
        if (haveLength && answer.size() >= expected)
            break;
    }
    if (answer.size() != expected || !decodeNvrtcOutput(answer, run.output)) {
        run.error = "the NVRTC helper answered something unreadable";
        child->kill();
        return run;
    }
    run.outcome = NvrtcRun::Outcome::Done;
    // A child that grew large keeps its memory: the next job gets a fresh one.
    if (job.memoryLimitMb == 0 || residentMb(child->pid()) * 2 < job.memoryLimitMb)
        pool().give(std::move(child));
    return run;
}

} // namespace kx
