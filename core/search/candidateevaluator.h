#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"

#include "core/baseline/inductorpackager.h"

#include <future>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

/// What a run's baselines need, made ready before its first evaluation.
struct BaselinePreparation
{
    EvalSettings settings; ///< The run's settings with the Inductor baseline filled in.
    std::optional<InductorPackage> inductorPackage;
    std::string note; ///< One line for the run's log: how the Inductor baseline is timed.
};

/**
 * What the search engine needs from the evaluation layer: evaluate candidates, possibly many at once
 * (on several GPUs, compiling ahead). Every submitted candidate gets exactly one Evaluation.
 */
class CandidateEvaluator
{
public:
    virtual ~CandidateEvaluator() = default;
    virtual std::future<Evaluation> evaluate(const Op &op, const Candidate &candidate,
                                             const EvalSettings &settings) = 0;
    /// The GPUs evaluations run on (recorded with the run).
    virtual std::vector<GpuInfo> gpus() = 0;
    /// Evaluates on one GPU, gpus()[gpu]: how a search times its best kernels again on every GPU it has. The
    /// default evaluates wherever evaluate() does.
    virtual std::future<Evaluation> evaluateOn(std::size_t gpu, const Op &op, const Candidate &candidate,
                                               const EvalSettings &settings)
    {
        (void)gpu;
        return evaluate(op, candidate, settings);
    }
    /// Gets op's baselines ready (an Inductor package for the GPUs: minutes on a first build; a stop request ends
    /// it early). Never fails: what cannot be prepared is said in the settings. The default prepares nothing.
    virtual BaselinePreparation prepareBaselines(const Op &op, const EvalSettings &settings, std::stop_token stop)
    {
        return {settings, std::nullopt, {}};
    }
};

} // namespace kx
