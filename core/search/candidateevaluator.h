#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/eval/evalrequest.h"

#include <future>
#include <vector>

namespace kx {

/**
 * What the search engine needs from the evaluation layer: evaluate candidates, possibly many at once
 * (on several GPUs, compiling ahead). Every submitted candidate gets exactly one Evaluation.
 */
class CandidateEvaluator
{
public:
    virtual ~CandidateEvaluator() = default;
    virtual std::future<Evaluation> evaluate(const Op &op, const Candidate &candidate, const EvalSettings &settings) = 0;
    /// The GPUs evaluations run on (recorded with the run).
    virtual std::vector<GpuInfo> gpus() = 0;
};

} // namespace kx
