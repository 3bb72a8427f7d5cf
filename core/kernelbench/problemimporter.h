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
    std::string device = "cpu";             ///< Where the helper runs the model: "cpu" or "cuda".
    std::int64_t maxBytes = std::int64_t(2) << 30; ///< Largest total size of inputs and parameters (0: no limit).
    std::chrono::seconds timeout{300};      ///< For the helper run.
    std::string python;                     ///< Empty: $KX_PYTHON, else the first python3 that has PyTorch.
    std::string helper;                     ///< Empty: see ProblemImporter::locateHelper().
};

/**
 * Imports a KernelBench-format problem file: runs kx_problem_bundle.py in a child process (Python with
 * PyTorch) into a temporary folder, then reads the bundle with BundleReader. Blocking: call it off the GUI thread.
 */
class ProblemImporter
{
public:
    explicit ProblemImporter(ImportOptions options = {});

    /// The imported op, or an Error whose message is the helper's (e.g. "file.py:9: syntax error: ...").
    /// A stop request kills the helper and returns an Error.
    Expected<ImportedProblem> importFile(const std::string &path, std::stop_token stop = {}) const;

    /// The helper script: $KX_PROBLEM_HELPER, else ../share/kernel-explorer/python next to the running
    /// executable, else the source tree's copy.
    static Expected<std::string> locateHelper();
    /// A Python 3 interpreter that can import torch, or an Error that says what to install.
    Expected<std::string> findPython(std::stop_token stop = {}) const;

private:
    ImportOptions m_options;
};

} // namespace kx
