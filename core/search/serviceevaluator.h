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
    /// runner: what times Inductor packages on the workers' machine (e.g. {"/usr/bin/kx", "baseline-runner"});
    /// empty when the workers cannot (then Inductor is timed in Python, as torch.compile).
    explicit ServiceEvaluator(std::shared_ptr<EvaluationService> service, std::vector<std::string> runner = {},
                              InductorPackager packager = {});
    std::future<Evaluation> evaluate(const Op &op, const Candidate &candidate, const EvalSettings &settings) override;
    std::vector<GpuInfo> gpus() override;
    std::future<Evaluation> evaluateOn(std::size_t gpu, const Op &op, const Candidate &candidate,
                                       const EvalSettings &settings) override;
    BaselinePreparation prepareBaselines(const Op &op, const EvalSettings &settings, std::stop_token stop) override;

private:
    std::shared_ptr<EvaluationService> m_service;
    std::vector<std::string> m_runner;
    InductorPackager m_packager;
};

} // namespace kx
