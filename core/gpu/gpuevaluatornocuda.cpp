// GpuEvaluator of a build without the CUDA toolkit: it explains that it cannot evaluate.
#include "core/gpu/baselinerunner.h"
#include "core/gpu/gpuevaluator.h"

#include "core/util/clock.h"

#include <ostream>

namespace kx {

class GpuEvaluator::Private
{
public:
    Phases phases;
};

GpuEvaluator::GpuEvaluator(int)
    : d(std::make_unique<Private>())
{}

GpuEvaluator::~GpuEvaluator() = default;

GpuInfo GpuEvaluator::describe()
{
    return {};
}

EvaluateOutcome GpuEvaluator::evaluate(const EvaluateRequest &request)
{
    EvaluateOutcome outcome;
    outcome.evaluation.candidateId = request.candidate.id;
    outcome.evaluation.runId = request.candidate.runId;
    outcome.evaluation.compile = request.compile;
    outcome.evaluation.status = EvalStatus::Crashed;
    outcome.evaluation.message = unavailableReason();
    outcome.evaluation.createdAtMs = nowMs();
    return outcome;
}

std::string GpuEvaluator::unavailableReason() const
{
    return "no GPU: this build has no CUDA support";
}

const GpuEvaluator::Phases &GpuEvaluator::lastPhases() const
{
    return d->phases;
}

int runInductorPackageBaseline(const std::string &, int, std::istream &, std::ostream &out)
{
    out << R"({"ok": false, "error": "this build has no CUDA support"})" << std::endl;
    return 1;
}

std::unique_ptr<Evaluator> makeGpuEvaluator(int device)
{
    return std::make_unique<GpuEvaluator>(device);
}

} // namespace kx
