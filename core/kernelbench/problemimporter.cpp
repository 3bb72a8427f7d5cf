#include "core/kernelbench/problemimporter.h"

#include "core/eval/workerprocess.h"
#include "core/util/removetree.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace kx {
namespace {

using Clock = WorkerProcess::Clock;

struct ProcessResult
{
    ProcessExit exit;
    std::string stderrText;
};

// Runs argv to completion (stdout is ignored), killing it at the deadline or on a stop request.
Expected<ProcessResult> runProcess(const std::vector<std::string> &argv, Clock::time_point deadline,
                                   const std::stop_token &stop)
{
    WorkerProcess process;
    if (auto started = process.start(argv); !started)
        return started.error();
    process.closeStdin();
    std::string line;
    for (;;) {
        if (stop.stop_requested()) {
            process.kill();
            return Error{"the import was cancelled"};
        }
        if (Clock::now() >= deadline) {
            process.kill();
            return Error{"the import helper did not finish in time (it was stopped)"};
        }
        const auto status = process.readLine(line, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
        if (status == WorkerProcess::ReadStatus::Closed)
            break;
    }
    ProcessResult result;
    result.exit = process.waitForExit(deadline);
    result.stderrText = process.stderrTail();
    return result;
}

// The helper's message is its last line on stderr (warnings may come before it).
std::string lastLine(const std::string &text)
{
    std::istringstream lines(text);
    std::string last;
    for (std::string line; std::getline(lines, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    return last;
}

std::string executableDir()
{
    char path[4096];
    const auto length = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0)
        return {};
    return std::filesystem::path(std::string(path, std::size_t(length))).parent_path().string();
}

// A temporary folder removed with its contents when this goes out of scope.
class TemporaryDir
{
public:
    TemporaryDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "kx-import-XXXXXX").string();
        if (::mkdtemp(pattern.data()))
            m_path = pattern;
    }
    ~TemporaryDir()
    {
        if (!m_path.empty())
            removeTree(m_path);
    }
    TemporaryDir(const TemporaryDir &) = delete;
    TemporaryDir &operator=(const TemporaryDir &) = delete;
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

// Interpreters seen to import torch in this process: probing costs an `import torch` (seconds), and a folder of
// problem files would pay it for every file. Failures are not remembered (the user may install PyTorch).
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

ProblemImporter::ProblemImporter(ImportOptions options) : m_options(std::move(options)) {}

Expected<std::string> ProblemImporter::locateHelper()
{
    constexpr const char *kName = "kx_problem_bundle.py";
    if (const char *fromEnvironment = std::getenv("KX_PROBLEM_HELPER"); fromEnvironment && *fromEnvironment) {
        if (!std::filesystem::is_regular_file(fromEnvironment))
            return Error{std::string("KX_PROBLEM_HELPER names ") + fromEnvironment + ", which does not exist"};
        return std::string(fromEnvironment);
    }
    if (const auto dir = executableDir(); !dir.empty()) {
        const auto installed = std::filesystem::path(dir) / ".." / "share" / "kernel-explorer" / "python" / kName;
        if (std::filesystem::is_regular_file(installed))
            return std::filesystem::weakly_canonical(installed).string();
    }
#ifdef KX_PROBLEM_HELPER_SOURCE
    if (std::filesystem::is_regular_file(KX_PROBLEM_HELPER_SOURCE))
        return std::string(KX_PROBLEM_HELPER_SOURCE);
#endif
    return Error{std::string("the import helper ") + kName + " was not found (set KX_PROBLEM_HELPER to its path)"};
}

Expected<std::string> ProblemImporter::findPython(std::stop_token stop) const
{
    std::vector<std::string> candidates;
    if (!m_options.python.empty())
        candidates.push_back(m_options.python);
    else if (const char *fromEnvironment = std::getenv("KX_PYTHON"); fromEnvironment && *fromEnvironment)
        candidates.push_back(fromEnvironment);
    else
        candidates = {"python3", "/usr/bin/python3"}; // PATH first; then the system Python of distro packages
    std::string withoutTorch;
    for (const auto &python : candidates) {
        if (pythonsWithTorch().contains(python))
            return python;
        const auto deadline = Clock::now() + std::chrono::seconds(120);
        auto probe = runProcess({python, "-c", "import torch"}, deadline, stop);
        if (!probe) {
            if (stop.stop_requested())
                return probe.error();
            continue; // not there
        }
        if (probe->exit.success()) {
            pythonsWithTorch().insert(python);
            return python;
        }
        if (withoutTorch.empty())
            withoutTorch = python;
    }
    if (!withoutTorch.empty())
        return Error{"PyTorch is not installed for " + withoutTorch
                     + ": install python3-torch, or PyTorch with pip (or set KX_PYTHON to a Python that has it)"};
    return Error{"Python 3 was not found (" + candidates.front()
                 + "): install python3 and python3-torch, or PyTorch with pip"};
}

Expected<ImportedProblem> ProblemImporter::importFile(const std::string &path, std::stop_token stop) const
{
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        return Error{"cannot read " + path + ": no such file"};
    const auto helper = m_options.helper.empty() ? locateHelper() : Expected<std::string>(m_options.helper);
    if (!helper)
        return helper.error();
    const auto python = findPython(stop);
    if (!python)
        return python.error();
    TemporaryDir bundle;
    if (bundle.path().empty())
        return Error{"cannot create a temporary folder for the import"};
    const std::vector<std::string> argv{*python, *helper, path, bundle.path(), "--seed", std::to_string(m_options.seed),
                                        "--device", m_options.device, "--max-bytes",
                                        std::to_string(m_options.maxBytes)};
    auto run = runProcess(argv, Clock::now() + m_options.timeout, stop);
    if (!run)
        return run.error();
    if (!run->exit.success()) {
        const auto message = lastLine(run->stderrText);
        return Error{message.empty() ? "the import helper failed (" + run->exit.toString() + ")" : message};
    }
    return BundleReader::read(bundle.path(), path);
}

} // namespace kx
