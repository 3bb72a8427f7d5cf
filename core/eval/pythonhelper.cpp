#include "core/eval/pythonhelper.h"

#include "core/util/executablepath.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace kx {
namespace {

using Clock = WorkerProcess::Clock;

// Interpreters seen to import torch in this process. Failures are not remembered (the user may install PyTorch).
class PythonsWithTorch
{
public:
    bool contains(const std::string &python)
    {
        std::lock_guard lock(m_mutex);
        return m_known.count(python) > 0;
    }
    void insert(const std::string &python)
    {
        std::lock_guard lock(m_mutex);
        m_known.insert(python);
    }

private:
    std::mutex m_mutex;
    std::set<std::string> m_known;
};

PythonsWithTorch &pythonsWithTorch()
{
    static PythonsWithTorch known;
    return known;
}

} // namespace

std::string lastNonEmptyLine(const std::string &text)
{
    std::istringstream lines(text);
    std::string last;
    for (std::string line; std::getline(lines, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    return last;
}

Expected<HelperRun> runHelper(const std::vector<std::string> &argv, const std::string &input,
                              Clock::time_point deadline, const std::stop_token &stop, const std::string &what)
{
    WorkerProcess process;
    process.setOwnProcessGroup(true);
    if (auto started = process.start(argv); !started)
        return started.error();
    if (!input.empty())
        (void)process.write(input, deadline);
    process.closeStdin();
    HelperRun result;
    std::string line;
    bool exited = false;
    for (;;) {
        if (stop.stop_requested()) {
            process.kill();
            return Error::cancelled(what + " was cancelled");
        }
        if (Clock::now() >= deadline) {
            process.kill();
            return Error{what + " did not finish in time (it was stopped)"};
        }
        const auto status = process.readLine(line, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
        if (status == WorkerProcess::ReadStatus::Line && line.find_first_not_of(" \t\r") != std::string::npos)
            result.lastLine = line;
        if (status == WorkerProcess::ReadStatus::Closed)
            break;
        // The child is gone but something it started still holds stdout: what it wrote is read, the rest killed.
        if (status == WorkerProcess::ReadStatus::Timeout && !exited && process.poll()) {
            exited = true;
            process.killProcessGroup();
        }
    }
    result.exit = process.waitForExit(deadline);
    process.killProcessGroup();
    result.stderrText = process.stderrTail();
    return result;
}

Expected<PythonLayout> pythonLayout(const std::string &python, std::stop_token stop)
{
    static std::mutex mutex;
    static std::map<std::string, PythonLayout> known;
    {
        std::lock_guard lock(mutex);
        if (const auto it = known.find(python); it != known.end())
            return it->second;
    }
    static const char *const kQuestion = R"py(
import json, os, site, sys
paths = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
paths.update(p for p in sys.path if p)
try:
    paths.update(site.getsitepackages())
    paths.add(site.getusersitepackages())
except Exception:
    pass
print(json.dumps({"executable": sys.executable, "paths": sorted(os.path.abspath(p) for p in paths)}))
)py";
    auto run = runHelper({python, "-c", kQuestion}, {}, Clock::now() + std::chrono::seconds(60), stop,
                         "asking " + python + " where it lives");
    if (!run)
        return run.error();
    const auto answer = nlohmann::json::parse(run->lastLine, nullptr, false);
    if (!run->exit.success() || !answer.is_object() || !answer.value("executable", std::string()).starts_with("/"))
        return Error::unavailable("cannot tell where " + python + " keeps its files (" + run->exit.toString()
                                  + "): " + lastNonEmptyLine(run->stderrText));
    PythonLayout layout;
    layout.executable = answer.at("executable").get<std::string>();
    for (const auto &path : answer.value("paths", nlohmann::json::array()))
        if (path.is_string() && path.get<std::string>() != "/")
            layout.paths.push_back(path.get<std::string>());
    // The interpreter may be a link (a virtual environment's python): its target's folder is needed too.
    std::error_code error;
    const auto real = std::filesystem::canonical(layout.executable, error);
    layout.paths.push_back(std::filesystem::path(layout.executable).parent_path().string());
    if (!error)
        layout.paths.push_back(real.parent_path().string());
    std::lock_guard lock(mutex);
    known[python] = layout;
    return layout;
}

Expected<std::string> locateHelperScript(const std::string &name, const char *environmentVariable,
                                         const std::string &sourcePath)
{
    if (const char *fromEnvironment = std::getenv(environmentVariable); fromEnvironment && *fromEnvironment) {
        if (!std::filesystem::is_regular_file(fromEnvironment))
            return Error::unavailable(std::string(environmentVariable) + " names " + fromEnvironment
                                      + ", which does not exist");
        return std::string(fromEnvironment);
    }
    if (const auto dir = executableDir(); !dir.empty()) {
        const auto installed = std::filesystem::path(dir) / ".." / "share" / "kernel-explorer" / "python" / name;
        if (std::filesystem::is_regular_file(installed))
            return std::filesystem::weakly_canonical(installed).string();
    }
    if (!sourcePath.empty() && std::filesystem::is_regular_file(sourcePath))
        return sourcePath;
    return Error::unavailable("the helper " + name + " was not found (set " + environmentVariable + " to its path)");
}

Expected<std::string> findPythonWithTorch(const std::string &python, std::stop_token stop)
{
    std::vector<std::string> candidates;
    if (!python.empty())
        candidates.push_back(python);
    else if (const char *fromEnvironment = std::getenv("KX_PYTHON"); fromEnvironment && *fromEnvironment)
        candidates.push_back(fromEnvironment);
    else
        candidates = {"python3", "/usr/bin/python3"}; // PATH first; then the system Python of distro packages
    std::string withoutTorch;
    for (const auto &candidate : candidates) {
        if (pythonsWithTorch().contains(candidate))
            return candidate;
        auto probe = runHelper({candidate, "-c", "import torch"}, {}, Clock::now() + std::chrono::seconds(120), stop,
                               "probing " + candidate);
        if (!probe) {
            if (stop.stop_requested())
                return probe.error();
            continue; // not there
        }
        if (probe->exit.success()) {
            pythonsWithTorch().insert(candidate);
            return candidate;
        }
        if (withoutTorch.empty())
            withoutTorch = candidate;
    }
    if (!withoutTorch.empty())
        return Error::unavailable("PyTorch is not installed for " + withoutTorch
                                  + ": install python3-torch, or PyTorch with pip (or set KX_PYTHON to a Python that "
                                    "has it)");
    return Error::unavailable("Python 3 was not found (" + candidates.front()
                              + "): install python3 and python3-torch, or PyTorch with pip");
}

} // namespace kx
