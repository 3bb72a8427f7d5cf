#pragma once

#include "core/domain/evaluation.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

/// The arch compiled for when no GPU says otherwise: Hopper with its arch-specific instructions (wgmma), which
/// compiles everything plain sm_90 does.
inline constexpr const char *kDefaultArch = "sm_90a";

/// "8.6" -> "sm_86", "9.0" -> "sm_90a": Hopper's arch-specific features (wgmma, tensor memory access) exist only
/// for sm_90a, and a kernel is compiled for the GPU it runs on. Empty when the capability is not of the form
/// major.minor.
std::string archForComputeCapability(const std::string &computeCapability);

struct CompileOptions
{
    std::string arch = kDefaultArch;       ///< --gpu-architecture, e.g. "sm_80", "sm_90a".
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
