#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/gpuinfo.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// What one profile measured: the candidate's whole launch plan, or the eager LibTorch reference.
enum class ProfileTarget { Candidate, Eager };

const char *toString(ProfileTarget target);
ProfileTarget profileTargetFromString(const std::string &text); ///< Throws std::invalid_argument.

/// One kernel of a profiled launch, as Nsight Compute measured it (absent: ncu did not print the metric).
struct ProfiledKernel
{
    std::string name;
    std::optional<double> durationNs;
    std::optional<double> dramReadBytes;
    std::optional<double> dramWriteBytes;

    bool operator==(const ProfiledKernel &) const = default;
};

/// A warp stall reason and its weight (warp cycles stalled per issued instruction, duration-weighted).
struct StallReason
{
    std::string name; ///< e.g. "long_scoreboard"
    double cyclesPerIssue = 0;

    bool operator==(const StallReason &) const = default;
};

/// The metrics of all kernels of one launch together.
struct ProfileMetrics
{
    int kernels = 0;
    std::optional<double> durationNs;           ///< Sum over the kernels.
    std::optional<double> dramReadBytes;        ///< Sum.
    std::optional<double> dramWriteBytes;       ///< Sum.
    std::optional<double> achievedBandwidthGBs; ///< DRAM bytes over the summed duration.
    std::optional<double> smThroughputPct;      ///< Duration-weighted.
    std::optional<double> tensorPipePct;        ///< Duration-weighted.
    std::optional<double> achievedOccupancyPct; ///< Duration-weighted.
    std::optional<int> registersPerThread;      ///< The most any kernel used.
    std::optional<double> l2HitRatePct;         ///< Weighted by L2 sectors (by duration where ncu gave none).
    std::vector<StallReason> topStalls;         ///< At most three, largest first.
    std::vector<std::string> missing;           ///< Metrics none of whose names ncu printed.

    std::optional<double> dramBytes() const
    {
        if (!dramReadBytes && !dramWriteBytes)
            return std::nullopt;
        return dramReadBytes.value_or(0) + dramWriteBytes.value_or(0);
    }

    bool operator==(const ProfileMetrics &) const = default;
};

/**
 * The bytes the roofline model says an op must move beside what the profile measured, and whether the rule
 * "moved too few bytes" could judge them (see core/profile/trafficcheck.h).
 */
struct TrafficComparison
{
    double modelBytes = 0;               ///< What the op must read and write (its bytesMoved expression).
    double inputBytes = 0;               ///< What it must read.
    std::int64_t l2Bytes = 0;            ///< The GPU's L2 size.
    std::optional<double> measuredBytes; ///< DRAM bytes read + written, as profiled.
    std::optional<double> ratio;         ///< measured / model.
    double measuredBandwidthGBs = 0;     ///< The GPU's copy bandwidth (0: not measured).
    bool judged = false;                 ///< False: the rule does not apply (see note).
    std::string note;                    ///< Why it was not judged, or the rule that was applied.

    bool operator==(const TrafficComparison &) const = default;
};

/// One launch of a candidate (or of the eager reference) under Nsight Compute, as stored in the archive.
struct Profile
{
    std::int64_t id = 0; ///< Archive row id (0 until stored).
    std::string candidateId;
    ProfileTarget target = ProfileTarget::Candidate;
    GpuInfo gpu;            ///< Empty name: profiling failed before the GPU was reached.
    std::string ncuVersion; ///< e.g. "2025.3.0.0"
    std::int64_t createdAtMs = 0;
    ProfileMetrics metrics;
    std::vector<ProfiledKernel> kernels;
    std::optional<TrafficComparison> traffic;
    std::vector<Flag> findings; ///< e.g. "moved-too-few-bytes", with the numbers as JSON.
    std::string check;          ///< What the profiled run's outputs showed against the reference.
    std::string error;          ///< Why profiling failed; empty when it worked.

    bool ok() const { return error.empty(); }
    bool operator==(const Profile &) const = default;
};

void to_json(nlohmann::json &j, const ProfiledKernel &v);
void from_json(const nlohmann::json &j, ProfiledKernel &v);
void to_json(nlohmann::json &j, const StallReason &v);
void from_json(const nlohmann::json &j, StallReason &v);
void to_json(nlohmann::json &j, const ProfileMetrics &v);
void from_json(const nlohmann::json &j, ProfileMetrics &v);
void to_json(nlohmann::json &j, const TrafficComparison &v);
void from_json(const nlohmann::json &j, TrafficComparison &v);
/// Profile JSON leaves out the archive row id, as Evaluation JSON does.
void to_json(nlohmann::json &j, const Profile &v);
void from_json(const nlohmann::json &j, Profile &v);

} // namespace kx
