#include "core/kernelbench/problemimporter.h"

#include "core/eval/pythonhelper.h"
#include "core/eval/sandbox.h"
#include "core/util/removetree.h"

#include <filesystem>
#include <unistd.h>
#include <vector>

namespace kx {
namespace {

using Clock = WorkerProcess::Clock;

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

} // namespace

ProblemImporter::ProblemImporter(ImportOptions options)
    : m_options(std::move(options))
{}

Expected<std::string> ProblemImporter::locateHelper()
{
#ifdef KX_PROBLEM_HELPER_SOURCE
    const std::string source = KX_PROBLEM_HELPER_SOURCE;
#else
    const std::string source;
#endif
    return locateHelperScript("kx_problem_bundle.py", "KX_PROBLEM_HELPER", source);
}

Expected<std::string> ProblemImporter::findPython(std::stop_token stop) const
{
    return findPythonWithTorch(m_options.python, stop);
}

bool ProblemImporter::sandboxAvailable()
{
    return !findBubblewrap().empty();
}

Expected<ImportedProblem> ProblemImporter::importFile(const std::string &path, std::stop_token stop) const
{
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        return Error::badInput("cannot read " + path + ": no such file");
    const std::string bwrap = m_options.sandbox ? findBubblewrap() : std::string();
    if (m_options.sandbox && bwrap.empty())
        return Error::unavailable("cannot import " + path + ": " + missingSandboxMessage("the problem file"));
    const auto helper = m_options.helper.empty() ? locateHelper() : Expected<std::string>(m_options.helper);
    if (!helper)
        return helper.error();
    const auto python = findPython(stop);
    if (!python)
        return python.error();
    TemporaryDir scratch;
    if (scratch.path().empty())
        return Error{"cannot create a temporary folder for the import"};
    // The helper's only writable place: the bundle, and home and temporary folders for whatever PyTorch writes.
    const std::string bundle = scratch.path() + "/bundle";
    const std::string home = scratch.path() + "/home";
    for (const auto &dir : {bundle, home})
        std::filesystem::create_directory(dir, error);

    std::vector<std::string> argv{*python,       *helper,
                                  path,          bundle,
                                  "--seed",      std::to_string(m_options.seed),
                                  "--device",    m_options.device,
                                  "--max-bytes", std::to_string(m_options.maxBytes)};
    if (!bwrap.empty()) {
        const auto layout = pythonLayout(*python, stop);
        if (!layout)
            return layout.error();
        SandboxSpec spec;
        spec.readOnly = layout->paths;
        spec.readOnly.push_back(std::filesystem::absolute(path, error).string());
        spec.readOnly.push_back(std::filesystem::absolute(*helper, error).string());
        spec.writable = {scratch.path()};
        spec.environment = {{"HOME", home}, {"TMPDIR", home}, {"XDG_CACHE_HOME", home + "/.cache"}};
        spec.workingDir = std::filesystem::current_path(error).string();
        spec.gpu = m_options.device == "cuda";
        argv.front() = layout->executable;
        argv = sandboxedCommand(bwrap, argv, spec);
    }
    argv = withMemoryLimit(argv, m_options.memoryBytes);
    const auto deadline = Clock::now() + m_options.timeout;
    // From here on a failure is the problem file's doing (its code failed, ran too long or took too much memory),
    // unless the sandbox itself could not start or the import was cancelled.
    auto run = runHelper(argv, {}, deadline, stop, "the import");
    if (!run) {
        if (!stop.stop_requested() && Clock::now() >= deadline)
            return Error::badInput("the import of " + path + " did not finish within "
                                   + std::to_string(m_options.timeout.count())
                                   + " s: it was stopped with everything it started (--timeout raises the limit)");
        return run.error();
    }
    if (!run->exit.success()) {
        if (const auto failure = sandboxFailure(run->stderrText); !bwrap.empty() && !failure.empty())
            return Error::unavailable("the sandbox for the import could not start (" + failure
                                      + "); --no-sandbox runs the problem file unconfined");
        auto message = lastNonEmptyLine(run->stderrText);
        if (message.empty())
            message = "the import helper failed (" + run->exit.toString() + ")";
        if (m_options.memoryBytes > 0
            && (message.find("MemoryError") != std::string::npos
                || message.find("can't allocate memory") != std::string::npos))
            message += " (the import may use " + std::to_string(m_options.memoryBytes >> 20)
                       + " MiB of memory; --max-memory-mb raises it)";
        return Error::badInput(message);
    }
    auto problem = BundleReader::read(bundle, path);
    if (!problem) // what the file's model gave the helper is not a problem kx can take
        return Error::badInput(problem.error().message);
    return problem;
}

} // namespace kx
