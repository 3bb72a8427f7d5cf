#pragma once

#include "core/domain/evaluation.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

struct CompileOptions
{
    std::string arch = "sm_90";            ///< --gpu-architecture, e.g. "sm_80", "sm_90".
    bool fastMath = false;                 ///< --use_fast_math
    bool lineInfo = false;                 ///< --generate-line-info: PTX and SASS say which source line they are
    std::vector<std::string> extraOptions; ///< Passed to NVRTC as they are.
    bool wantPtx = true;
    /// Wall time one compile may take; NVRTC has no limit of its own (a recursive template can run for hours).
    double timeoutSeconds = 60;
    std::size_t memoryLimitMb = 2048; ///< Resident memory one compile may use.
};

struct CompileResult
{
    bool ok = false;
    std::string cubin; ///< Binary image for cudaLibraryLoadData.
    std::string ptx;
    CompileStats stats;                      ///< registers/spills/shared from ptxas' verbose report; log; time.
    std::vector<KernelSignature> kernels;    ///< The extern "C" __global__ functions found.
    std::string error;                       ///< Short reason when !ok (the full text is stats.log).
    ErrorKind errorKind = ErrorKind::Failed; ///< Cancelled when stopped on request (Ctrl-C, a cancelled search).
};

/**
 * Compiles device-only CUDA C++ with NVRTC. Needs no GPU. The one place where candidate code meets NVRTC: the
 * device-only and include checks run first, and NVRTC itself runs in a kx-nvrtc child process (runNvrtcJob)
 * within the options' time and memory limits, so no candidate can hang or exhaust kx. Thread-safe.
 */
class NvrtcCompiler
{
public:
    /// False when the build has no NVRTC (then compile() returns an error result).
    static bool available();
    static std::string version(); ///< e.g. "13.0"
    /// A stop request ends the compile at once: the result is !ok with errorKind Cancelled.
    CompileResult compile(const std::string &source, const CompileOptions &options = {},
                          std::stop_token stop = {}) const;
};

} // namespace kx
