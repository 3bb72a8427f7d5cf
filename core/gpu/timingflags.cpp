#include "core/gpu/timingflags.h"

#include "core/plan/launchplan.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kx {

double reductionLength(const Op &op, const ShapeSet &shapes)
{
    if (op.flopsExpr.empty())
        return 1;
    const auto flops = evaluateIntExpression(op.flopsExpr, shapes);
    if (!flops)
        return 1;
    double outputs = 0;
    for (const auto &spec : op.outputs) {
        double elements = 1;
        for (const auto &dimension : spec.shape) {
            const auto size = evaluateIntExpression(dimension, shapes);
            if (!size)
                return 1;
            elements *= double(*size);
        }
        outputs += elements;
    }
    return outputs > 0 ? std::max(1.0, double(*flops) / (2 * outputs)) : 1;
}

Tolerance checkTolerance(const Op &op, const EvalSettings &settings, const ShapeSet &shapes)
{
    return toleranceFor(op.policy, settings.precision, reductionLength(op, shapes));
}

std::vector<Flag> timingFlags(const TimingEvidence &evidence, const EvalSettings &settings)
{
    std::vector<Flag> flags;
    const auto &candidate = evidence.candidate;
    if (candidate.runs == 0)
        return flags;

    if (evidence.floor && isBelowFloor(candidate.medianMs, *evidence.floor)) {
        const auto &floor = *evidence.floor;
        flags.push_back({"impossible", nlohmann::json{{"floorMs", floor.floorMs},
                                                      {"bytes", floor.bytes},
                                                      {"flops", floor.flops},
                                                      {"bandwidthGBs", floor.bandwidthGBs},
                                                      {"peakTflops", floor.peakTflops},
                                                      {"measuredMs", candidate.medianMs},
                                                      {"slack", kFloorSlack}}
                                           .dump()});
    }

    if (evidence.speedup > settings.suspiciousSpeedup) {
        flags.push_back({"suspicious", nlohmann::json{{"reason", "speedup above the threshold"},
                                                      {"speedup", evidence.speedup},
                                                      {"threshold", settings.suspiciousSpeedup},
                                                      {"candidateMs", candidate.medianMs},
                                                      {"baselineMs", evidence.baseline.medianMs}}
                                           .dump()});
    }

    // The wall clock also counts launch and sync overhead; the reference shows how much of that is normal.
    const double candidateGap = candidate.wallMedianMs - candidate.medianMs;
    const double referenceGap =
        evidence.baseline.runs > 0 ? std::max(0.0, evidence.baseline.wallMedianMs - evidence.baseline.medianMs) : 0;
    const double margin = 0.2 + 0.5 * candidate.medianMs + referenceGap;
    const char *reason = nullptr;
    if (candidateGap > margin)
        reason = "host wall-clock time far exceeds the GPU event time (work outside the timed events?)";
    else if (candidate.wallMedianMs < candidate.medianMs * 0.9 - 0.01)
        reason = "GPU event time exceeds the host wall-clock time";
    if (reason) {
        flags.push_back({"suspicious", nlohmann::json{{"reason", reason},
                                                      {"eventMedianMs", candidate.medianMs},
                                                      {"wallMedianMs", candidate.wallMedianMs},
                                                      {"referenceEventMedianMs", evidence.baseline.medianMs},
                                                      {"referenceWallMedianMs", evidence.baseline.wallMedianMs},
                                                      {"marginMs", margin}}
                                           .dump()});
    }
    return flags;
}

} // namespace kx
