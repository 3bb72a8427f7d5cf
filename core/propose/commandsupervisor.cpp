// Runs in a fork of a threaded process: only async-signal-safe calls from here on (no allocation, no locks).
#include "core/propose/commandsupervisor.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <fcntl.h>
#include <initializer_list>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kx {
namespace {

constexpr int kControl = 3;
constexpr int kStatus = 4;

struct Dirent64
{
    std::uint64_t inode;
    std::int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[1];
};

// A decimal number, or -1.
long parseNumber(const char *text)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    long value = 0;
    for (; *text >= '0' && *text <= '9'; ++text)
        value = value * 10 + (*text - '0');
    return *text == '\0' || *text == ' ' ? value : -1;
}

// Calls visit(name) for each entry of a folder.
template <typename Visit>
void forEachEntry(const char *path, Visit visit)
{
    const int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    alignas(8) char buffer[8192];
    for (;;) {
        const long n = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
        if (n <= 0)
            break;
        for (long offset = 0; offset < n;) {
            const auto *entry = reinterpret_cast<const Dirent64 *>(buffer + offset);
            visit(entry->name, dir);
            offset += entry->length;
        }
    }
    ::close(dir);
}

void closeFrom(int first)
{
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, unsigned(first), ~0u, 0u) == 0)
        return;
#endif
    forEachEntry("/proc/self/fd", [first](const char *name, int dir) {
        const long fd = parseNumber(name);
        if (fd >= first && fd != dir)
            ::close(int(fd));
    });
}

// The parent and state of a process from /proc/PID/stat ("PID (comm) S PPID ..."), false when it is gone.
bool readParent(const char *pid, long &parent, char &state)
{
    char path[64] = "/proc/";
    std::size_t length = 6;
    for (const char *c = pid; *c && length < sizeof path - 6; ++c)
        path[length++] = *c;
    for (const char *c = "/stat"; *c; ++c)
        path[length++] = *c;
    path[length] = '\0';
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char text[512];
    const auto n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    const char *close = nullptr;
    for (const char *c = text; *c; ++c)
        if (*c == ')')
            close = c;
    if (!close || close[1] != ' ' || close[2] == '\0' || close[3] != ' ')
        return false;
    state = close[2];
    parent = parseNumber(close + 4);
    return parent >= 0;
}

// SIGKILL to every living child of this process; their children become its children (it is a subreaper).
void killChildren()
{
    const long self = long(::getpid());
    forEachEntry("/proc", [self](const char *name, int) {
        const long pid = parseNumber(name);
        long parent = -1;
        char state = '?';
        if (pid > 0 && readParent(name, parent, state) && parent == self && state != 'Z' && state != 'X')
            ::kill(pid_t(pid), SIGKILL);
    });
}

void writeStatus(int status)
{
    while (::write(kStatus, &status, sizeof status) < 0 && errno == EINTR) {
    }
}

} // namespace

void runCommandSupervisor(const SupervisorFds &fds, const char *const *argv, char *const *envp)
{
    // Copies above the target numbers first, so that no dup2 overwrites a descriptor still to be moved.
    const int in = ::fcntl(fds.stdinRead, F_DUPFD, 10);
    const int out = ::fcntl(fds.stdoutWrite, F_DUPFD, 10);
    const int err = ::fcntl(fds.stderrWrite, F_DUPFD, 10);
    const int control = ::fcntl(fds.control, F_DUPFD, 10);
    const int status = ::fcntl(fds.status, F_DUPFD, 10);
    if (in < 0 || out < 0 || err < 0 || control < 0 || status < 0)
        ::_exit(126);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::dup2(control, kControl);
    ::dup2(status, kStatus);
    // Nothing else of kx's: another command's pipes must not stay open in here.
    closeFrom(kStatus + 1);
    ::fcntl(kControl, F_SETFD, FD_CLOEXEC);
    ::fcntl(kStatus, F_SETFD, FD_CLOEXEC);

    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction standard = {};
    standard.sa_handler = SIG_DFL;
    for (const int signal : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD, SIGALRM})
        ::sigaction(signal, &standard, nullptr);
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

    const pid_t shell = ::fork();
    if (shell == 0) {
        ::execve("/bin/sh", const_cast<char *const *>(argv), envp);
        ::_exit(127);
    }
    bool reported = false;
    if (shell < 0) {
        writeStatus(127 << 8);
        reported = true;
    }
    // Until kx says stop (or is gone): reap, and report the shell's end.
    for (;;) {
        pollfd watch{kControl, POLLIN, 0};
        const int ready = ::poll(&watch, 1, 50);
        int result = 0;
        pid_t done = 0;
        while ((done = ::waitpid(-1, &result, WNOHANG)) > 0) {
            if (done == shell && !reported) {
                writeStatus(result);
                reported = true;
            }
        }
        if (ready > 0 && watch.revents != 0)
            break;
    }
    // Layer by layer: each killed child's children are reparented to this subreaper and killed next.
    for (;;) {
        killChildren();
        int result = 0;
        pid_t done = 0;
        while ((done = ::waitpid(-1, &result, WNOHANG)) > 0) {
            if (done == shell && !reported) {
                writeStatus(result);
                reported = true;
            }
        }
        if (done < 0 && errno == ECHILD)
            break;
        const timespec pause{0, 5'000'000};
        ::nanosleep(&pause, nullptr);
    }
    ::_exit(0);
}

} // namespace kx
