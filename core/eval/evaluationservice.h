#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"
#include "core/util/expected.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace kx {

class WorkerPool;

/// Notifications of the evaluation pipeline (for the engine and, through a bridge, the UI).
/// Called on the service's or the pool's threads: implementations must be thread-safe and quick.
class EvaluationObserver
{
public:
    virtual ~EvaluationObserver() = default;
    /// NVRTC is done with a candidate; result.ok is false for a compile error.
    virtual void compiled(const Candidate &candidate, const CompileResult &result) {}
    /// A candidate's evaluation is final: from a worker, or a compile or plan error found on the host.
    virtual void evaluated(const Candidate &candidate, const Evaluation &evaluation) {}
};

struct EvaluationServiceOptions
{
    int compileThreads = 2;
    /// The arch to compile for, e.g. "sm_90". Empty: that of the pool's first running worker.
    std::string arch;
    /// NVRTC options; arch is replaced by the one above.
    CompileOptions compile;
    /// Checked by resolveLaunchPlan for every shape set of the op.
    DeviceLimits limits;
};

/**
 * Evaluates candidates: compiles each with NVRTC and resolves its launch plan for every shape set of the op on
 * a few CPU threads, ahead of the GPU, then hands the request to the WorkerPool. A compile error gives an
 * Evaluation with status CompileError and an invalid plan one with status PlanError; neither reaches a worker.
 *
 * Every submitted candidate gets exactly one completion: an Evaluation, or an Error when it never reached an
 * evaluation (cancelled, stopped, no worker). Completions run on internal threads; they must not call stop()
 * or destroy the service.
 */
class EvaluationService
{
public:
    using Completion = std::function<void(Expected<Evaluation>)>;

    /// @p observer is not owned and may be null; it must outlive the service.
    EvaluationService(std::unique_ptr<WorkerPool> pool, EvaluationServiceOptions options = {},
                      EvaluationObserver *observer = nullptr);
    ~EvaluationService(); ///< Stops.
    EvaluationService(const EvaluationService &) = delete;
    EvaluationService &operator=(const EvaluationService &) = delete;

    /**
     * Starts the pool (unless it runs already), learns the target arch and starts compiling. Candidates
     * submitted before are kept and compiled then; if start fails they complete with its error, of kind NoGpu when
     * there is nothing to compile for or evaluate on (no NVRTC, no worker came up).
     */
    Status start();

    /// device >= 0: evaluate on that device's worker only (see WorkerPool::submit).
    void submit(Op op, Candidate candidate, EvalSettings settings, Completion done, int device = -1);
    std::future<Expected<Evaluation>> submit(Op op, Candidate candidate, EvalSettings settings);

    /// Drops every candidate not yet handed to a worker (waiting for or in compilation, or queued in the pool);
    /// each completes with an Error. A compile in progress is stopped. Returns how many were waiting for
    /// compilation.
    std::size_t cancelPending();
    /// Cancels pending work, stops the compile threads and the pool. Idempotent.
    void stop();

    /// The arch candidates are compiled for (empty before start()).
    std::string targetArch() const;
    WorkerPool &pool() { return *m_pool; }

private:
    struct Job
    {
        Op op;
        Candidate candidate;
        EvalSettings settings;
        Completion done;
        std::uint64_t generation = 0;
        int device = -1;
    };

    void runCompiler(std::stop_token stop);
    void process(Job job, std::stop_token stop);
    Evaluation hostEvaluation(const Job &job, EvalStatus status, std::string message, const CompileStats &stats) const;
    void finish(const Job &job, Expected<Evaluation> result);

    std::unique_ptr<WorkerPool> m_pool;
    const EvaluationServiceOptions m_options;
    EvaluationObserver *m_observer; // Not owned.
    NvrtcCompiler m_compiler;

    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::deque<Job> m_queue;
    std::string m_arch;
    GpuInfo m_targetGpu;               // Reported in evaluations that never reach a worker.
    std::optional<Error> m_startError; // Why start() failed; later submissions fail with it.
    std::uint64_t m_generation = 0;    // Bumped by cancelPending(): older jobs still compiling are dropped.
    std::stop_source m_cancelCompiles; // Stops the compiles in progress; replaced by cancelPending().
    bool m_started = false;
    bool m_stopping = false;
    std::vector<std::jthread> m_threads;
};

} // namespace kx
