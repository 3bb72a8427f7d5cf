#pragma once

#include "core/eval/workerprocess.h"
#include "core/util/expected.h"

#include <stop_token>
#include <string>
#include <vector>

namespace kx {

/**
 * A Python 3 that can import torch: `python` when given, else $KX_PYTHON, else python3 on PATH, else the system's
 * /usr/bin/python3. The Error says what to install. Interpreters found to have PyTorch are remembered for the
 * life of the process (probing costs an `import torch`).
 */
Expected<std::string> findPythonWithTorch(const std::string &python = {}, std::stop_token stop = {});

/**
 * A Python helper shipped with Kernel Explorer: the file named by environmentVariable when set, else
 * ../share/kernel-explorer/python/NAME next to the running executable, else sourcePath (the source tree's copy).
 */
Expected<std::string> locateHelperScript(const std::string &name, const char *environmentVariable,
                                         const std::string &sourcePath);

/// How a helper run ended: its exit, its last non-empty stdout line and the end of its stderr.
struct HelperRun
{
    ProcessExit exit;
    std::string lastLine;
    std::string stderrText;
};

/// The interpreter a Python command names (sys.executable) and the folders it reads: its prefixes and sys.path.
struct PythonLayout
{
    std::string executable;
    std::vector<std::string> paths;
};

/// Asks python where it lives (runs no code but the question); remembered per interpreter for the process.
Expected<PythonLayout> pythonLayout(const std::string &python, std::stop_token stop = {});

/**
 * Runs argv to completion with input on its stdin, killing it at the deadline or on a stop request (both give an
 * Error that names `what`). The child leads a process group of its own, which is killed when the child ends: a
 * process it left behind (holding its stdout, say) neither keeps the run waiting nor survives it.
 */
Expected<HelperRun> runHelper(const std::vector<std::string> &argv, const std::string &input,
                              WorkerProcess::Clock::time_point deadline, const std::stop_token &stop,
                              const std::string &what);

/// The last non-empty line of text (a helper's message comes last, after any warnings).
std::string lastNonEmptyLine(const std::string &text);

} // namespace kx
