#pragma once

#include "core/eval/evalrequest.h"

#include <memory>
#include <string>

namespace kx {

/**
 * Evaluates candidates on one CUDA device inside the worker process: loads the host-compiled cubin,
 * checks the candidate against the op's LibTorch reference over several trials, times both the same
 * way, and flags results that cannot be right.
 *
 * Where the GPU cannot be used (no driver, no device, LibTorch without CUDA, a build without CUDA)
 * describe() returns a GpuInfo with an empty name and evaluate() answers Crashed with the reason.
 * A sticky CUDA error answers Fault with workerMustExit set.
 */
class GpuEvaluator : public Evaluator
{
public:
    /// Where the last evaluate() spent its time (host wall clock), for benchmarks.
    struct Phases
    {
        double prepareMs = 0; ///< Plan resolution, loading the cubin, allocating and binding buffers.
        double checkMs = 0;   ///< Correctness trials.
        double timingMs = 0;  ///< Warmups, timed runs of candidate and reference, the timed-output check.
    };

    explicit GpuEvaluator(int device);
    ~GpuEvaluator() override;

    GpuInfo describe() override;
    EvaluateOutcome evaluate(const EvaluateRequest &request) override;

    /// Empty when the GPU can be used; otherwise why not.
    std::string unavailableReason() const;

    const Phases &lastPhases() const;

private:
    class Private;
    std::unique_ptr<Private> d;
};

/// The evaluator of a worker process; never null (see GpuEvaluator for an unusable GPU).
std::unique_ptr<Evaluator> makeGpuEvaluator(int device);

} // namespace kx
