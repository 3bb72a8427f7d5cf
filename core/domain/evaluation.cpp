#include "core/domain/evaluation.h"

#include <algorithm>
#include <cmath>

namespace kx {

std::string GpuInfo::fingerprint() const
{
    // The card too: two GPUs of one model keep their own rows, so their times for the same kernel compare.
    return name + "|sm" + computeCapability + "|driver " + driverVersion + "|cuda " + cudaRuntimeVersion + "|torch "
           + torchVersion + (uuid.empty() ? std::string() : "|" + uuid);
}

namespace {
// Linear interpolation between closest ranks (the common "type 7" quantile).
double quantile(const std::vector<double> &sorted, double q)
{
    const double position = q * double(sorted.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const auto upper = std::min(lower + 1, sorted.size() - 1);
    const double fraction = position - double(lower);
    return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}
} // namespace

TimingSummary summarize(std::vector<double> samples)
{
    TimingSummary summary;
    if (samples.empty())
        return summary;
    std::sort(samples.begin(), samples.end());
    summary.runs = int(samples.size());
    summary.medianMs = quantile(samples, 0.5);
    summary.iqrMs = quantile(samples, 0.75) - quantile(samples, 0.25);
    summary.minMs = samples.front();
    return summary;
}

std::string standingText(double speedupOverEager, std::optional<double> speedupOverInductor)
{
    const char *eager = speedupOverEager > 1 ? "beats eager" : "loses to eager";
    if (!speedupOverInductor)
        return std::string(eager) + " (no Inductor time)";
    const bool beatsInductor = *speedupOverInductor > 1;
    if ((speedupOverEager > 1) == beatsInductor)
        return std::string(eager) + " and Inductor";
    return std::string(eager) + (beatsInductor ? ", beats Inductor" : ", loses to Inductor");
}

const BaselineMeasurement *findBaseline(const std::vector<BaselineMeasurement> &baselines, BaselineKind kind)
{
    for (const auto &baseline : baselines)
        if (baseline.kind == kind)
            return &baseline;
    return nullptr;
}

std::optional<double> speedupOverInductor(const Evaluation &evaluation)
{
    const auto *inductor = findBaseline(evaluation.baselines, BaselineKind::Inductor);
    if (evaluation.status != EvalStatus::Correct || !inductor || !inductor->usable() || evaluation.timing.medianMs <= 0)
        return std::nullopt;
    return inductor->timing.medianMs / evaluation.timing.medianMs;
}

bool hasFlag(const Evaluation &evaluation, const std::string &kind)
{
    return std::any_of(evaluation.flags.begin(), evaluation.flags.end(),
                       [&](const Flag &flag) { return flag.kind == kind; });
}

bool countsTowardsBest(const Evaluation &evaluation)
{
    return evaluation.status == EvalStatus::Correct && evaluation.speedup > 0 && !hasFlag(evaluation, "impossible");
}

} // namespace kx
