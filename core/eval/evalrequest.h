#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kx {

/// How the worker times the Inductor baseline: a child process on the worker's own GPU (a crash there never
/// takes the worker down). The host fills this in when a run starts (see CandidateEvaluator::prepareBaselines).
struct InductorBaselineSettings
{
    /// The child: reads the baseline request (JSON) on stdin, writes a BaselineMeasurement (JSON) as its last
    /// stdout line. The worker appends "--device" N. Empty: no Inductor baseline.
    std::vector<std::string> command;
    std::string method;      ///< See baselinemethod: what the child measures.
    std::string unavailable; ///< Why there is no Inductor baseline (with an empty command).
    std::string details;     ///< JSON recorded with the measurement (package, build time ...).

    bool operator==(const InductorBaselineSettings &) const = default;
};

/// How hard a candidate is checked and timed. Defaults follow the evaluation issue's minimums.
struct EvalSettings
{
    /// Correctness trials, each with fresh inputs from a distinct seed; 11 draw each input distribution once.
    int trials = 11;
    /// Input sets the timed runs cycle through, each run checked against its own set's reference: a kernel
    /// that replays an earlier answer fails.
    int timingInputSets = 3;
    int warmupRuns = 10;
    int timedRuns = 100;                   ///< At least this many timed runs ...
    double timeBudgetMs = 2000;            ///< ... unless timing alone would exceed this budget (then at least 10).
    std::uint64_t seed = 0;                ///< Base seed for input generation.
    double suspiciousSpeedup = 10;         ///< Speedups above this are flagged "suspicious".
    double timeoutMs = 30000;              ///< Per-candidate wall time before the worker is killed.
    Precision precision = Precision::Fp32; ///< What candidates may round, and the baselines with them.
    /// The baselines are timed once per run, GPU and op, then again after this many evaluations on that GPU
    /// (0: never again) ...
    int baselineEveryEvaluations = 200;
    double baselineEveryMinutes = 10;  ///< ... or once this many minutes have passed (0: never again).
    double baselineTimeoutMs = 600000; ///< Longest a baseline measurement may take (the Inductor child included).
    bool inductorBaseline = true;      ///< Compare with torch.compile too (false: eager only).
    InductorBaselineSettings inductor;

    bool operator==(const EvalSettings &) const = default;
};

/// What a worker needs to evaluate one candidate: compiled on the host, run on the worker's GPU.
struct EvaluateRequest
{
    std::int64_t id = 0; ///< Request id, echoed in the result.
    Op op;
    Candidate candidate;
    std::string arch;  ///< e.g. "sm_90": what the cubin was compiled for.
    std::string cubin; ///< NVRTC output (binary).
    CompileStats compile;
    EvalSettings settings;
    int device = -1; ///< Routing only (not sent): >= 0 sends it to that device's worker.
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
    /// Tells the host that the current request will take up to extraMs longer (a baseline measurement).
    using BusyNotice = std::function<void(double extraMs, const std::string &what)>;

    virtual ~Evaluator() = default;
    /// Set by the worker loop before each evaluate(); may be empty.
    BusyNotice busy;
    /// The GPU and software environment (sent in the worker's hello).
    virtual GpuInfo describe() = 0;
    virtual EvaluateOutcome evaluate(const EvaluateRequest &request) = 0;
};

/**
 * A request for source and plan (the candidate's id made from them), compiled for arch into cubin with these
 * statistics, checked and timed under settings: what the benchmarks and GPU suites hand an evaluator directly.
 */
inline EvaluateRequest compiledRequest(const Op &op, const std::string &source, const std::string &plan,
                                       const std::string &arch, const std::string &cubin, const CompileStats &compile,
                                       const EvalSettings &settings)
{
    EvaluateRequest request;
    request.op = op;
    request.candidate.opName = op.name;
    request.candidate.source = source;
    request.candidate.launchPlan = plan;
    request.candidate.id = makeCandidateId(source, plan);
    request.arch = arch;
    request.cubin = cubin;
    request.compile = compile;
    request.settings = settings;
    return request;
}

} // namespace kx
