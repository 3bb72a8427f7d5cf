#include "core/domain/profile.h"

#include "core/domain/domainjson.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace kx {
namespace {

using nlohmann::json;

// A metric ncu did not print is null in JSON, never 0: a zero would read as "measured nothing".
template <typename T>
json optional(const std::optional<T> &value)
{
    return value ? json(*value) : json(nullptr);
}

template <typename T>
void readOptional(const json &j, const char *key, std::optional<T> &value)
{
    if (const auto it = j.find(key); it != j.end() && !it->is_null())
        value = it->get<T>();
    else
        value.reset();
}

template <typename T>
void read(const json &j, const char *key, T &value)
{
    if (const auto it = j.find(key); it != j.end() && !it->is_null())
        it->get_to(value);
}

} // namespace

const char *toString(ProfileTarget target)
{
    return target == ProfileTarget::Candidate ? "candidate" : "eager";
}

ProfileTarget profileTargetFromString(const std::string &text)
{
    if (text == "candidate")
        return ProfileTarget::Candidate;
    if (text == "eager")
        return ProfileTarget::Eager;
    throw std::invalid_argument("unknown profile target '" + text + "' (candidate or eager)");
}

void to_json(json &j, const ProfiledKernel &v)
{
    j = {{"name", v.name},
         {"durationNs", optional(v.durationNs)},
         {"dramReadBytes", optional(v.dramReadBytes)},
         {"dramWriteBytes", optional(v.dramWriteBytes)}};
}
void from_json(const json &j, ProfiledKernel &v)
{
    read(j, "name", v.name);
    readOptional(j, "durationNs", v.durationNs);
    readOptional(j, "dramReadBytes", v.dramReadBytes);
    readOptional(j, "dramWriteBytes", v.dramWriteBytes);
}

void to_json(json &j, const StallReason &v)
{
    j = {{"name", v.name}, {"cyclesPerIssue", v.cyclesPerIssue}};
}
void from_json(const json &j, StallReason &v)
{
    j.at("name").get_to(v.name);
    read(j, "cyclesPerIssue", v.cyclesPerIssue);
}

void to_json(json &j, const ProfileMetrics &v)
{
    j = {{"kernels", v.kernels},
         {"durationNs", optional(v.durationNs)},
         {"dramReadBytes", optional(v.dramReadBytes)},
         {"dramWriteBytes", optional(v.dramWriteBytes)},
         {"achievedBandwidthGBs", optional(v.achievedBandwidthGBs)},
         {"smThroughputPct", optional(v.smThroughputPct)},
         {"tensorPipePct", optional(v.tensorPipePct)},
         {"achievedOccupancyPct", optional(v.achievedOccupancyPct)},
         {"registersPerThread", optional(v.registersPerThread)},
         {"l2HitRatePct", optional(v.l2HitRatePct)},
         {"topStalls", v.topStalls},
         {"missing", v.missing}};
}
void from_json(const json &j, ProfileMetrics &v)
{
    read(j, "kernels", v.kernels);
    readOptional(j, "durationNs", v.durationNs);
    readOptional(j, "dramReadBytes", v.dramReadBytes);
    readOptional(j, "dramWriteBytes", v.dramWriteBytes);
    readOptional(j, "achievedBandwidthGBs", v.achievedBandwidthGBs);
    readOptional(j, "smThroughputPct", v.smThroughputPct);
    readOptional(j, "tensorPipePct", v.tensorPipePct);
    readOptional(j, "achievedOccupancyPct", v.achievedOccupancyPct);
    readOptional(j, "registersPerThread", v.registersPerThread);
    readOptional(j, "l2HitRatePct", v.l2HitRatePct);
    read(j, "topStalls", v.topStalls);
    read(j, "missing", v.missing);
}

void to_json(json &j, const TrafficComparison &v)
{
    j = {{"modelBytes", v.modelBytes}, {"inputBytes", v.inputBytes},
         {"l2Bytes", v.l2Bytes},       {"measuredBytes", optional(v.measuredBytes)},
         {"ratio", optional(v.ratio)}, {"measuredBandwidthGBs", v.measuredBandwidthGBs},
         {"judged", v.judged},         {"note", v.note}};
}
void from_json(const json &j, TrafficComparison &v)
{
    read(j, "modelBytes", v.modelBytes);
    read(j, "inputBytes", v.inputBytes);
    read(j, "l2Bytes", v.l2Bytes);
    readOptional(j, "measuredBytes", v.measuredBytes);
    readOptional(j, "ratio", v.ratio);
    read(j, "measuredBandwidthGBs", v.measuredBandwidthGBs);
    read(j, "judged", v.judged);
    read(j, "note", v.note);
}

void to_json(json &j, const Profile &v)
{
    j = {{"candidate", v.candidateId},
         {"target", toString(v.target)},
         {"gpu", v.gpu},
         {"ncuVersion", v.ncuVersion},
         {"createdAtMs", v.createdAtMs},
         {"metrics", v.metrics},
         {"kernels", v.kernels},
         {"traffic", v.traffic ? json(*v.traffic) : json(nullptr)},
         {"findings", v.findings},
         {"check", v.check},
         {"error", v.error}};
}
void from_json(const json &j, Profile &v)
{
    read(j, "candidate", v.candidateId);
    v.target = profileTargetFromString(j.at("target").get<std::string>());
    read(j, "gpu", v.gpu);
    read(j, "ncuVersion", v.ncuVersion);
    read(j, "createdAtMs", v.createdAtMs);
    read(j, "metrics", v.metrics);
    read(j, "kernels", v.kernels);
    readOptional(j, "traffic", v.traffic);
    read(j, "findings", v.findings);
    read(j, "check", v.check);
    read(j, "error", v.error);
}

} // namespace kx
