#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"

#include <cstdint>
#include <string>

namespace kx {

/// How hard a candidate is checked and timed. Defaults follow the evaluation issue's minimums.
struct EvalSettings
{
    int trials = 5;                 ///< Correctness trials, each with fresh inputs from a distinct seed.
    int warmupRuns = 10;
    int timedRuns = 100;            ///< At least this many timed runs ...
    double timeBudgetMs = 2000;     ///< ... unless timing alone would exceed this budget (then at least 10).
    std::uint64_t seed = 0;         ///< Base seed for input generation.
    double suspiciousSpeedup = 10;  ///< Speedups above this are flagged "suspicious".
    double timeoutMs = 30000;       ///< Per-candidate wall time before the worker is killed.

    bool operator==(const EvalSettings &) const = default;
};

/// What a worker needs to evaluate one candidate: compiled on the host, run on the worker's GPU.
struct EvaluateRequest
{
    std::int64_t id = 0;            ///< Request id, echoed in the result.
    Op op;
    Candidate candidate;
    std::string arch;               ///< e.g. "sm_90": what the cubin was compiled for.
    std::string cubin;              ///< NVRTC output (binary).
    CompileStats compile;
    EvalSettings settings;
};

/// A worker's answer. workerMustExit is set after a sticky CUDA error: the context is unusable.
struct EvaluateOutcome
{
    Evaluation evaluation;
    bool workerMustExit = false;
};

/**
 * Evaluates candidates on one GPU. The worker process owns one; tests substitute their own.
 */
class Evaluator
{
public:
    virtual ~Evaluator() = default;
    /// The GPU and software environment (sent in the worker's hello).
    virtual GpuInfo describe() = 0;
    virtual EvaluateOutcome evaluate(const EvaluateRequest &request) = 0;
};

} // namespace kx
