#include "core/eval/sandbox.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace kx {
namespace {

// An executable found in PATH, or empty.
std::string findOnPath(const std::string &name)
{
    const char *path = std::getenv("PATH");
    std::istringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

bool exists(const std::string &path)
{
    std::error_code error;
    return std::filesystem::exists(std::filesystem::symlink_status(path, error));
}

// What the dynamic loader, Python and PyTorch read from /etc; the rest of /etc (keys, credentials) stays out.
const char *const kEtcEntries[] = {
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",  "/etc/alternatives", "/etc/localtime",
    "/etc/passwd",      "/etc/group",      "/etc/nsswitch.conf", "/etc/os-release",
};

} // namespace

std::string findBubblewrap()
{
    if (const char *chosen = std::getenv("KX_BWRAP"))
        return *chosen && ::access(chosen, X_OK) == 0 ? std::string(chosen) : std::string();
    return findOnPath("bwrap");
}

std::string missingSandboxMessage(const std::string &what)
{
    return "bubblewrap (bwrap) was not found, and " + what
           + " is Python code that would run with all of your rights (your files, the network, your keys): "
             "install bubblewrap (Debian and Ubuntu: apt install bubblewrap) to run it confined, or pass "
             "--no-sandbox to run it unconfined on purpose";
}

std::vector<std::string> sandboxedCommand(const std::string &bwrap, const std::vector<std::string> &command,
                                          const SandboxSpec &spec)
{
    std::vector<std::string> argv{bwrap,  "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind",
                                  "/usr", "/usr"};
    // Merged-/usr systems link /bin, /lib ... into /usr; older ones have them as folders.
    for (const char *top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        std::error_code error;
        const auto status = std::filesystem::symlink_status(top, error);
        if (std::filesystem::is_symlink(status))
            argv.insert(argv.end(), {"--symlink", std::filesystem::read_symlink(top, error).string(), top});
        else if (std::filesystem::is_directory(status))
            argv.insert(argv.end(), {"--ro-bind", top, top});
    }
    for (const char *entry : kEtcEntries)
        argv.insert(argv.end(), {"--ro-bind-try", entry, entry});
    for (const char *entry : {"/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13"})
        argv.insert(argv.end(), {"--ro-bind-try", entry, entry});
    argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev"});
    if (spec.gpu) {
        std::error_code error;
        for (const auto &entry : std::filesystem::directory_iterator("/dev", error)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("nvidia", 0) == 0 && !entry.is_directory(error))
                argv.insert(argv.end(), {"--dev-bind", entry.path().string(), entry.path().string()});
        }
        argv.insert(argv.end(), {"--ro-bind-try", "/sys", "/sys"});
    }
    for (const auto &path : spec.readOnly)
        if (exists(path))
            argv.insert(argv.end(), {"--ro-bind", path, path});
    for (const auto &path : spec.writable)
        argv.insert(argv.end(), {"--bind", path, path});
    if (!spec.workingDir.empty())
        argv.insert(argv.end(), {"--dir", spec.workingDir, "--chdir", spec.workingDir});
    for (const auto &[name, value] : spec.environment)
        argv.insert(argv.end(), {"--setenv", name, value});
    // Last: the root the binds were made in becomes read-only too, so the writable folders are the only ones.
    argv.insert(argv.end(), {"--remount-ro", "/", "--"});
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

std::vector<std::string> withMemoryLimit(const std::vector<std::string> &command, std::int64_t memoryBytes)
{
    if (memoryBytes <= 0)
        return command;
    const std::string prlimit = findOnPath("prlimit");
    if (prlimit.empty())
        return command;
    // Data, not address space: CUDA reserves far more address space than it uses. Soft and hard limit alike.
    std::vector<std::string> argv{prlimit, "--data=" + std::to_string(memoryBytes), "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

std::string sandboxFailure(const std::string &stderrText)
{
    std::istringstream lines(stderrText);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("bwrap: ", 0) == 0)
            return line;
    return {};
}

} // namespace kx
