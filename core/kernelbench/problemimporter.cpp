#include "core/kernelbench/problemimporter.h"

#include "core/eval/pythonhelper.h"
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

ProblemImporter::ProblemImporter(ImportOptions options) : m_options(std::move(options)) {}

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
    auto run = runHelper(argv, {}, Clock::now() + m_options.timeout, stop, "the import");
    if (!run)
        return run.error();
    if (!run->exit.success()) {
        const auto message = lastNonEmptyLine(run->stderrText);
        return Error{message.empty() ? "the import helper failed (" + run->exit.toString() + ")" : message};
    }
    return BundleReader::read(bundle.path(), path);
}

} // namespace kx
