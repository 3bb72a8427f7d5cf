#include "core/search/serviceevaluator.h"

#include "core/eval/evaluationservice.h"
#include "core/eval/workerpool.h"

#include <nlohmann/json.hpp>

namespace kx {

ServiceEvaluator::ServiceEvaluator(std::shared_ptr<EvaluationService> service, std::vector<std::string> runner,
                                   InductorPackager packager)
    : m_service(std::move(service))
    , m_runner(std::move(runner))
    , m_packager(std::move(packager))
{}

namespace {

// The workers that report a GPU, in the pool's order: gpus() and evaluateOn() count in it.
std::vector<WorkerStatus> gpuWorkers(EvaluationService &service)
{
    std::vector<WorkerStatus> result;
    for (const auto &worker : service.pool().workers())
        if (!worker.gpu.name.empty())
            result.push_back(worker);
    return result;
}

std::future<Evaluation> submitTo(EvaluationService &service, int device, const Op &op, const Candidate &candidate,
                                 const EvalSettings &settings)
{
    auto promise = std::make_shared<std::promise<Evaluation>>();
    auto future = promise->get_future();
    service.submit(
        op, candidate, settings,
        [promise, id = candidate.id](Expected<Evaluation> result) {
            if (result) {
                promise->set_value(std::move(*result));
                return;
            }
            Evaluation evaluation;
            evaluation.candidateId = id;
            evaluation.status = EvalStatus::Crashed;
            evaluation.message = "not evaluated: " + result.error().message;
            promise->set_value(std::move(evaluation));
        },
        device);
    return future;
}

} // namespace

std::future<Evaluation> ServiceEvaluator::evaluate(const Op &op, const Candidate &candidate,
                                                   const EvalSettings &settings)
{
    return submitTo(*m_service, -1, op, candidate, settings);
}

std::future<Evaluation> ServiceEvaluator::evaluateOn(std::size_t gpu, const Op &op, const Candidate &candidate,
                                                     const EvalSettings &settings)
{
    const auto workers = gpuWorkers(*m_service);
    return submitTo(*m_service, gpu < workers.size() ? workers[gpu].device : -1, op, candidate, settings);
}

std::vector<GpuInfo> ServiceEvaluator::gpus()
{
    std::vector<GpuInfo> result;
    for (const auto &worker : gpuWorkers(*m_service))
        result.push_back(worker.gpu);
    return result;
}

BaselinePreparation ServiceEvaluator::prepareBaselines(const Op &op, const EvalSettings &settings, std::stop_token stop)
{
    BaselinePreparation result{settings, std::nullopt, {}};
    if (!settings.inductorBaseline) {
        result.settings.inductor = {};
        result.note = "compared with eager PyTorch only (no Inductor baseline asked for)";
        return result;
    }
    // Packages are built for the architecture of the first running worker, on its GPU; workers of another
    // architecture cannot load them and report so in their measurements.
    const WorkerStatus *builder = nullptr;
    const auto workers = m_service->pool().workers();
    for (const auto &worker : workers)
        if (!builder && !worker.arch.empty()
            && (worker.state == WorkerState::Idle || worker.state == WorkerState::Busy))
            builder = &worker;
    if (!builder) {
        result.settings.inductor = {};
        result.settings.inductor.unavailable = "no Inductor baseline: no running worker to build it for";
        result.note = result.settings.inductor.unavailable;
        return result;
    }
    auto prepared = m_packager.prepare(op, builder->arch, builder->device, m_runner, std::move(stop));
    result.settings.inductor = prepared.settings;
    result.inductorPackage = prepared.package;
    if (prepared.package)
        result.note = "Inductor baseline: AOTInductor package for " + prepared.package->arch
                      + (prepared.package->fromCache ? " (from the cache)" : " (built now)");
    else if (!prepared.settings.command.empty())
        result.note =
            "Inductor baseline: torch.compile timed in Python ("
            + nlohmann::json::parse(prepared.settings.details, nullptr, false).value("packageError", std::string())
            + ")";
    else
        result.note = prepared.settings.unavailable;
    return result;
}

} // namespace kx
