#pragma once

#include "core/kernelbench/bundlereader.h"
#include "core/util/expected.h"

#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>

namespace kx {

struct ImportOptions
{
    int seed = 0;
    std::string device = "cpu";                    ///< Where the helper runs the model: "cpu" or "cuda".
    std::int64_t maxBytes = std::int64_t(2) << 30; ///< Largest total size of inputs and parameters (0: no limit).
    std::chrono::seconds timeout{300}; ///< For the helper run: it is killed (with all it started) after this.
    std::int64_t memoryBytes = std::int64_t(8) << 30; ///< Cap on the helper's memory (its data; 0: none).
    /// Runs the problem file in a bubblewrap sandbox; false (--no-sandbox) runs it unconfined, the user's choice.
    /// With true and no bubblewrap the import is refused.
    bool sandbox = true;
    std::string python; ///< Empty: $KX_PYTHON, else the first python3 that has PyTorch.
    std::string helper; ///< Empty: see ProblemImporter::locateHelper().
};

/**
 * Imports a KernelBench-format problem file: runs kx_problem_bundle.py in a child process (Python with
 * PyTorch) into a temporary folder, then reads the bundle with BundleReader. Blocking: call it off the GUI thread.
 *
 * A problem file is Python code, and the helper runs it (that is how its model is traced). So the helper runs in a
 * bubblewrap sandbox: no network, no other processes, read-only /usr, Python and its packages, the problem file
 * and the helper, and one private temporary folder as the only writable place; with a memory cap and a time
 * limit, and nothing it starts outlives it.
 */
class ProblemImporter
{
public:
    explicit ProblemImporter(ImportOptions options = {});

    /// The imported op, or an Error whose message is the helper's (e.g. "file.py:9: syntax error: ..."). Its kind:
    /// BadInput for the file's own failures, Unavailable without Python, PyTorch or bubblewrap, Cancelled after a
    /// stop request (which kills the helper).
    Expected<ImportedProblem> importFile(const std::string &path, std::stop_token stop = {}) const;

    /// The helper script: $KX_PROBLEM_HELPER, else ../share/kernel-explorer/python next to the running
    /// executable, else the source tree's copy.
    static Expected<std::string> locateHelper();
    /// A Python 3 interpreter that can import torch, or an Error that says what to install.
    Expected<std::string> findPython(std::stop_token stop = {}) const;
    /// Whether imports can run in the sandbox here (bubblewrap is installed).
    static bool sandboxAvailable();

private:
    ImportOptions m_options;
};

} // namespace kx
