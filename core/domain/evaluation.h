#pragma once

#include "core/domain/baseline.h"
#include "core/domain/gpuinfo.h"
#include "core/domain/precision.h"
#include "core/domain/timing.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// Outcome of one evaluation.
enum class EvalStatus {
    Correct,      ///< Compiled, ran, matched the reference on every trial.
    Incorrect,    ///< Ran, but an output or input check failed.
    CompileError, ///< NVRTC rejected it.
    PlanError,    ///< The launch plan was invalid; nothing was launched.
    LaunchError,  ///< A launch failed (bad config, too much shared memory) without killing the context.
    Fault,        ///< Sticky CUDA error (illegal address ...); the worker was restarted.
    Timeout,      ///< It hung; the worker was killed and restarted.
    Crashed,      ///< The worker died for another reason.
};

struct CompileStats
{
    int registers = 0;
    int spillBytes = 0; ///< Local memory (stack frame + spills), bytes per thread.
    int staticSharedBytes = 0;
    double compileMs = 0;
    std::string log;

    bool operator==(const CompileStats &) const = default;
};

/// How far outputs are from the exact (float64) answer, over a sample of their elements. An element's relative
/// error is |actual - exact| / max(|exact|, 1e-3 * the RMS of the exact outputs), so near-zero outputs count
/// by their absolute error.
struct ErrorProfile
{
    std::int64_t samples = 0; ///< Elements compared (both values finite).
    double maxRelError = 0;
    double p99RelError = 0;
    double medianRelError = 0;

    bool operator==(const ErrorProfile &) const = default;
};

/// The candidate's error profile beside that of the fp32 reference on the same inputs (trial 0).
struct PrecisionAudit
{
    ErrorProfile candidate;
    ErrorProfile fp32Reference;
    /// Eager as the policy lets it run, where that differs from the fp32 reference: the reference with TF32
    /// allowed under `tf32`. Empty (no samples) under `fp32`.
    ErrorProfile policyReference;
    std::string unavailable; ///< Why there is no audit (the reference cannot run in float64 ...).

    bool operator==(const PrecisionAudit &) const = default;
};

struct CorrectnessReport
{
    int trials = 0;
    int shapeSets = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::int64_t mismatches = 0;
    std::vector<std::string> checksPassed; ///< e.g. "inputs-unchanged", "deterministic", "timed-outputs".
    std::string failure;                   ///< Empty when correct; otherwise which check failed and how.
    /// The input distributions the trials drew, in order, with how any was rescaled, e.g. "normal",
    /// "wide x1/256 (the reference was not finite at full scale)".
    std::vector<std::string> inputs;
    int timingInputSets = 0; ///< Input sets the timed runs cycled through.
    std::optional<PrecisionAudit> precisionAudit;

    bool operator==(const CorrectnessReport &) const = default;
};

/// A warning attached to an evaluation, with the numbers that justify it.
struct Flag
{
    std::string kind;     ///< "impossible", "suspicious", "input-insensitive", ...
    std::string evidence; ///< JSON text with the numbers.

    bool operator==(const Flag &) const = default;
};

struct Evaluation
{
    std::int64_t id = 0; ///< Archive row id (0 until stored).
    std::string candidateId;
    std::optional<std::int64_t> runId;
    GpuInfo gpu;
    EvalStatus status = EvalStatus::Crashed;
    std::string message; ///< Short human-readable outcome.
    CompileStats compile;
    CorrectnessReport correctness;
    std::vector<double> samplesMs;     ///< Every timed run of the candidate.
    std::vector<double> wallSamplesMs; ///< The same runs on the host's wall clock (up to a device sync).
    TimingSummary timing;
    std::vector<double> baselineSamplesMs; ///< Eager PyTorch, measured the same way (see baselines).
    std::vector<double> baselineWallSamplesMs;
    TimingSummary baseline;                ///< Eager PyTorch: the summary of the eager baseline.
    double speedup = 0;                    ///< baseline.medianMs / timing.medianMs (0 when not correct).
    Precision precision = Precision::Fp32; ///< The policy the candidate was checked and timed under.
    /// The baseline measurements this evaluation was compared with: eager, and Inductor when there is one (a
    /// measurement with an error says why there is no Inductor number). Archives older than baselines have none.
    std::vector<BaselineMeasurement> baselines;
    std::vector<Flag> flags;
    std::int64_t createdAtMs = 0;

    bool operator==(const Evaluation &) const = default;
};

/// The Inductor baseline's median over the kernel's, when both were measured: the speedup over torch.compile.
std::optional<double> speedupOverInductor(const Evaluation &evaluation);

bool hasFlag(const Evaluation &evaluation, const std::string &kind);

/// Whether an evaluation may make its kernel the best: correct, with a speedup, not flagged "impossible". A
/// kernel whose current verdict rejects it never counts. One rule for the lineage, the plots and `kx best`.
bool countsTowardsBest(const Evaluation &evaluation);

const char *toString(EvalStatus status);
EvalStatus evalStatusFromString(const std::string &text); ///< Throws std::invalid_argument.

} // namespace kx
