#pragma once

#include "core/domain/candidate.h"
#include "core/domain/gpuinfo.h"
#include "core/domain/op.h"
#include "core/domain/precision.h"
#include "core/domain/profile.h"
#include "core/util/expected.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace kx {

/// What the profiled child (`kx profile-launch`) runs: one candidate of an op, or the op's eager reference.
struct ProfileLaunchRequest
{
    Op op;
    Candidate candidate;                   ///< Source and launch plan (unused for the eager reference).
    Precision precision = Precision::Fp32; ///< Whether library steps and eager PyTorch may use TF32.
    std::uint64_t seed = 0;                ///< Of the inputs (normal distribution, the op's first shape set).
    int warmupRuns = 3;                    ///< Runs before the profiled one, outside the profiled range.
};

/// What the child reports besides the metrics, which ncu itself prints.
struct ProfileLaunchResult
{
    GpuInfo gpu; ///< With its measured copy bandwidth.
    /// Why the launch failed (compile, plan, a fault ...; an empty message: it ran). Of kind NoGpu when the GPU
    /// (or LibTorch on it) cannot be used: then nothing ran.
    Error error;
    std::string check; ///< What the profiled run's outputs showed against the reference.

    bool ran() const { return error.message.empty(); }
};

void to_json(nlohmann::json &j, const ProfileLaunchRequest &v);
void from_json(const nlohmann::json &j, ProfileLaunchRequest &v);
void to_json(nlohmann::json &j, const ProfileLaunchResult &v);
void from_json(const nlohmann::json &j, ProfileLaunchResult &v);

/**
 * The child's work (it runs candidate code, so never in the process that writes the archive): opens GPU `device`,
 * prepares the target on the op's first shape set with fresh inputs (compiling the candidate with NVRTC for that
 * GPU), runs it warmupRuns times, then runs it once more between cudaProfilerStart() and cudaProfilerStop(), so
 * that `ncu --profile-from-start off` measures exactly that run: all kernels of the candidate's launch plan
 * (library steps included), or all kernels of the eager reference, and nothing of the harness around them.
 * Never throws.
 */
ProfileLaunchResult runProfiledLaunch(const ProfileLaunchRequest &request, ProfileTarget target, int device);

} // namespace kx
