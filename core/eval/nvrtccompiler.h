#pragma once

#include "core/domain/evaluation.h"
#include "core/eval/launchplan.h"

#include <string>
#include <vector>

namespace kx {

struct CompileOptions
{
    std::string arch = "sm_90";             ///< --gpu-architecture, e.g. "sm_80", "sm_90".
    bool fastMath = false;                  ///< --use_fast_math
    std::vector<std::string> extraOptions;  ///< Passed to NVRTC as they are.
    bool wantPtx = true;
};

struct CompileResult
{
    bool ok = false;
    std::string cubin;                      ///< Binary image for cudaLibraryLoadData.
    std::string ptx;
    CompileStats stats;                     ///< registers/spills/shared from ptxas' verbose report; log; time.
    std::vector<KernelSignature> kernels;   ///< The extern "C" __global__ functions found.
    std::string error;                      ///< Short reason when !ok (the full text is stats.log).
};

/// Compiles device-only CUDA C++ with NVRTC. Needs no GPU. Thread-safe: each call has its own program.
class NvrtcCompiler
{
public:
    /// False when the build has no NVRTC (then compile() returns an error result).
    static bool available();
    static std::string version();           ///< e.g. "13.0"
    CompileResult compile(const std::string &source, const CompileOptions &options = {}) const;
};

} // namespace kx
