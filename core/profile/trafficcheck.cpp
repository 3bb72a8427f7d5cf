#include "core/profile/trafficcheck.h"

#include "core/gpu/tensorview.h"
#include "core/plan/roofline.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace kx {
namespace {

std::string megabytes(double bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    return text;
}

// What the op must read: its inputs' sizes on these shapes.
Expected<double> inputBytes(const Op &op, const ShapeSet &shapes)
{
    double bytes = 0;
    for (const auto &spec : op.inputs) {
        const auto layout = resolveLayout(spec, shapes);
        if (!layout)
            return layout.error();
        bytes += double(layout->byteCount());
    }
    return bytes;
}

} // namespace

std::string trafficRule()
{
    char text[320];
    std::snprintf(text, sizeof text,
                  "DRAM bytes read + written under %.1fx the bytes the op must move, judged only where its inputs "
                  "exceed the L2 cache (smaller inputs can be served from L2)",
                  kMinTrafficFraction);
    return text;
}

TrafficComparison compareTraffic(const Op &op, const GpuInfo &gpu, const ProfileMetrics &metrics)
{
    TrafficComparison traffic;
    traffic.l2Bytes = gpu.l2Bytes;
    traffic.measuredBandwidthGBs = gpu.measuredBandwidthGBs;
    traffic.measuredBytes = metrics.dramBytes();
    if (op.shapeSets.empty()) {
        traffic.note = "the op has no shape set";
        return traffic;
    }
    const auto floor = rooflineFloor(op, op.shapeSets.front(), 0, 0);
    if (!floor) {
        traffic.note = "no byte model: " + floor.error().message;
        return traffic;
    }
    traffic.modelBytes = floor->bytes;
    if (const auto inputs = inputBytes(op, op.shapeSets.front()))
        traffic.inputBytes = *inputs;
    if (traffic.measuredBytes && traffic.modelBytes > 0)
        traffic.ratio = *traffic.measuredBytes / traffic.modelBytes;

    if (traffic.modelBytes <= 0)
        traffic.note = "not judged: the op has no byte model";
    else if (!traffic.measuredBytes)
        traffic.note = "not judged: ncu printed no DRAM byte counts";
    else if (traffic.l2Bytes <= 0)
        traffic.note = "not judged: the GPU's L2 size is unknown";
    else if (traffic.inputBytes <= double(traffic.l2Bytes))
        traffic.note = "not judged: the inputs (" + megabytes(traffic.inputBytes) + ") fit in the L2 cache ("
                       + megabytes(double(traffic.l2Bytes)) + ")";
    else {
        traffic.judged = true;
        traffic.note = trafficRule();
    }
    return traffic;
}

std::optional<Flag> movedTooFewBytes(const TrafficComparison &traffic)
{
    if (!traffic.judged || !traffic.ratio || *traffic.ratio >= kMinTrafficFraction)
        return std::nullopt;
    return Flag{"moved-too-few-bytes", nlohmann::json{{"measuredBytes", *traffic.measuredBytes},
                                                      {"modelBytes", traffic.modelBytes},
                                                      {"ratio", *traffic.ratio},
                                                      {"threshold", kMinTrafficFraction},
                                                      {"inputBytes", traffic.inputBytes},
                                                      {"l2Bytes", traffic.l2Bytes},
                                                      {"rule", trafficRule()}}
                                           .dump()};
}

void addTrafficEvidence(const Op &op, Profile &profile)
{
    profile.findings.clear();
    if (!profile.ok()) {
        profile.traffic.reset();
        return;
    }
    profile.traffic = compareTraffic(op, profile.gpu, profile.metrics);
    if (profile.target == ProfileTarget::Candidate)
        if (auto finding = movedTooFewBytes(*profile.traffic))
            profile.findings.push_back(std::move(*finding));
}

} // namespace kx
