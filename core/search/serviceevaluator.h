#pragma once

#include "core/search/candidateevaluator.h"

#include <memory>

namespace kx {

class EvaluationService;

/// The search engine's view of the real evaluation pipeline (NVRTC on CPU threads, GPU workers).
/// A candidate that never reaches an evaluation (cancelled, no worker) comes back as status Crashed
/// with the reason, so every candidate still gets exactly one Evaluation.
class ServiceEvaluator : public CandidateEvaluator
{
public:
    explicit ServiceEvaluator(std::shared_ptr<EvaluationService> service);
    std::future<Evaluation> evaluate(const Op &op, const Candidate &candidate, const EvalSettings &settings) override;
    std::vector<GpuInfo> gpus() override;

private:
    std::shared_ptr<EvaluationService> m_service;
};

} // namespace kx
