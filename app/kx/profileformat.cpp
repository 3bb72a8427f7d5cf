#include "profileformat.h"

#include "core/util/clock.h"

#include <cstdio>
#include <string>

namespace kx::cli {
namespace {

std::string printed(const char *format, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string megabytes(double bytes)
{
    return printed("%.2f MB", bytes / 1e6);
}
std::string microseconds(double ns)
{
    return printed("%.2f us", ns / 1e3);
}
std::string percent(const std::optional<double> &value)
{
    return value ? printed("%.1f%%", *value) : "-";
}
std::string orDash(const std::optional<double> &bytes)
{
    return bytes ? megabytes(*bytes) : "-";
}

void printTraffic(std::ostream &out, const Profile &profile)
{
    const ProfileMetrics &metrics = profile.metrics;
    out << "  DRAM traffic:     " << orDash(metrics.dramReadBytes) << " read + " << orDash(metrics.dramWriteBytes)
        << " written";
    if (const auto &traffic = profile.traffic; traffic && traffic->modelBytes > 0) {
        out << "; the model expects " << megabytes(traffic->modelBytes);
        if (traffic->ratio)
            out << " (measured " << printed("%.2fx", *traffic->ratio) << ")";
    }
    out << '\n';
    out << "  bandwidth:        "
        << (metrics.achievedBandwidthGBs ? printed("%.0f GB/s achieved", *metrics.achievedBandwidthGBs) : "-");
    const double cardGBs = profile.traffic ? profile.traffic->measuredBandwidthGBs : profile.gpu.measuredBandwidthGBs;
    if (cardGBs > 0) {
        out << "; the card's copy bandwidth " << printed("%.0f GB/s", cardGBs);
        if (metrics.achievedBandwidthGBs)
            out << " (" << printed("%.0f%%", 100 * *metrics.achievedBandwidthGBs / cardGBs) << ")";
    }
    out << '\n';
    if (profile.traffic && !profile.traffic->note.empty())
        out << "  traffic rule:     " << profile.traffic->note << '\n';
}

} // namespace

void printProfile(std::ostream &out, const Profile &profile)
{
    out << "profile of the " << (profile.target == ProfileTarget::Candidate ? "candidate" : "eager reference");
    if (!profile.gpu.name.empty())
        out << " on " << profile.gpu.name << (profile.gpu.host.empty() ? "" : " (" + profile.gpu.host + ")");
    out << ", ncu " << (profile.ncuVersion.empty() ? "?" : profile.ncuVersion) << ", " << isoUtc(profile.createdAtMs)
        << '\n';
    if (!profile.ok()) {
        out << "  failed: " << profile.error << '\n';
        return;
    }
    const ProfileMetrics &metrics = profile.metrics;
    out << "  kernels:          " << metrics.kernels
        << (metrics.durationNs ? ", " + microseconds(*metrics.durationNs) + " in all" : std::string()) << '\n';
    printTraffic(out, profile);
    out << "  SM throughput:    " << percent(metrics.smThroughputPct) << ", tensor pipes "
        << percent(metrics.tensorPipePct) << ", achieved occupancy " << percent(metrics.achievedOccupancyPct) << '\n';
    out << "  registers:        "
        << (metrics.registersPerThread ? std::to_string(*metrics.registersPerThread) + " per thread" : "-")
        << ", L2 hit rate " << percent(metrics.l2HitRatePct) << '\n';
    if (!metrics.topStalls.empty()) {
        out << "  top stalls:       ";
        for (std::size_t i = 0; i < metrics.topStalls.size(); ++i)
            out << (i ? ", " : "") << metrics.topStalls[i].name << ' '
                << printed("%.2f", metrics.topStalls[i].cyclesPerIssue);
        out << " (cycles per issued instruction)\n";
    }
    if (!profile.check.empty())
        out << "  check:            " << profile.check << '\n';
    for (const auto &finding : profile.findings)
        out << "  finding " << finding.kind << ": " << finding.evidence << '\n';
    if (!metrics.missing.empty()) {
        out << "  not printed by this ncu:";
        for (const auto &name : metrics.missing)
            out << ' ' << name;
        out << '\n';
    }
    for (const auto &kernel : profile.kernels)
        out << "  kernel " << kernel.name << ": "
            << (kernel.durationNs ? microseconds(*kernel.durationNs) : std::string("-")) << ", "
            << orDash(kernel.dramReadBytes) << " read, " << orDash(kernel.dramWriteBytes) << " written\n";
}

} // namespace kx::cli
