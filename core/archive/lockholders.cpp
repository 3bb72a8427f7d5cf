#include "core/archive/lockholders.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace kx {
namespace {

// The command line of a process as one line, cut short; empty when it cannot be read.
std::string commandLine(long pid)
{
    std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    std::replace(text.begin(), text.end(), '\0', ' ');
    return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

} // namespace

std::vector<std::string> archiveLockHolders(const std::string &path)
{
    // SQLite locks byte ranges with fcntl: the -shm file in WAL mode, the database file itself otherwise.
    // Inodes are compared without devices: on overlay file systems the two name different devices.
    std::set<unsigned long long> inodes;
    for (const std::string &file : {path, path + "-shm", path + "-wal"}) {
        struct stat info
        {};
        if (::stat(file.c_str(), &info) == 0)
            inodes.insert((unsigned long long)info.st_ino);
    }
    std::set<long> pids;
    std::ifstream locks("/proc/locks");
    for (std::string line; std::getline(locks, line);) {
        // "1: POSIX  ADVISORY  WRITE 1234 fd:01:5678 120 120"; waiters carry a "->" and hold nothing.
        std::istringstream fields(line);
        std::string id, kind, advisory, access, device;
        long pid = 0;
        if (!(fields >> id >> kind) || kind == "->" || !(fields >> advisory >> access >> pid >> device))
            continue;
        const auto colon = device.rfind(':');
        if (access != "WRITE" || pid <= 0 || pid == ::getpid() || colon == std::string::npos)
            continue;
        if (inodes.count(std::strtoull(device.c_str() + colon + 1, nullptr, 10)))
            pids.insert(pid);
    }
    std::vector<std::string> holders;
    for (const long pid : pids) {
        const std::string command = commandLine(pid);
        holders.push_back("pid " + std::to_string(pid) + (command.empty() ? "" : " (" + command + ")"));
    }
    return holders;
}

std::string busyArchiveMessage(const std::string &path, int waitedMs)
{
    std::string message = "the archive " + path + " is busy: another process is writing to it";
    const auto holders = archiveLockHolders(path);
    for (std::size_t i = 0; i < holders.size(); ++i)
        message += (i ? ", " : " (") + holders[i];
    if (!holders.empty())
        message += ")";
    std::ostringstream seconds;
    seconds << double(waitedMs) / 1000;
    return message + " and did not let go within " + seconds.str()
           + " s; wait for it to finish (or stop it) and try again";
}

} // namespace kx
