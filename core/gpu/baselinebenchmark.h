#pragma once

#include "core/domain/baseline.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/gpu/opreference.h"
#include "core/gpu/runtimer.h"
#include "core/gpu/shapeworkspace.h"

#include <string>

namespace kx {

/**
 * Times a baseline (eager PyTorch, an Inductor package) the way CandidateBenchmark times candidates: the
 * same timing inputs, L2 flush, warmups and number of runs, under the precision policy's TF32 setting. Its
 * outputs are first compared with the fp32 reference: the error is recorded, and a baseline outside the
 * policy's tolerance is recorded with an error instead of a time (it computes something else).
 */
class BaselineBenchmark
{
public:
    BaselineBenchmark(const Op &op, const EvalSettings &settings, RunTimer &timer);

    /// A measurement without gpu, uid and run id (the caller's). Throws CudaFailure, std::runtime_error from
    /// the harness.
    BaselineMeasurement run(ShapeWorkspace &workspace, OpReference &baseline, BaselineKind kind,
                            const std::string &method);

private:
    const Op &m_op;
    EvalSettings m_settings;
    RunTimer &m_timer; // Not owned
};

} // namespace kx
