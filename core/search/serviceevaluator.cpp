#include "core/search/serviceevaluator.h"

#include "core/eval/evaluationservice.h"
#include "core/eval/workerpool.h"

namespace kx {

ServiceEvaluator::ServiceEvaluator(std::shared_ptr<EvaluationService> service) : m_service(std::move(service)) {}

std::future<Evaluation> ServiceEvaluator::evaluate(const Op &op, const Candidate &candidate, const EvalSettings &settings)
{
    auto promise = std::make_shared<std::promise<Evaluation>>();
    auto future = promise->get_future();
    m_service->submit(op, candidate, settings, [promise, id = candidate.id](Expected<Evaluation> result) {
        if (result) {
            promise->set_value(std::move(*result));
            return;
        }
        Evaluation evaluation;
        evaluation.candidateId = id;
        evaluation.status = EvalStatus::Crashed;
        evaluation.message = "not evaluated: " + result.error().message;
        promise->set_value(std::move(evaluation));
    });
    return future;
}

std::vector<GpuInfo> ServiceEvaluator::gpus()
{
    std::vector<GpuInfo> result;
    for (const auto &worker : m_service->pool().workers())
        if (!worker.gpu.name.empty())
            result.push_back(worker.gpu);
    return result;
}

} // namespace kx
