#pragma once

#include "core/domain/op.h"
#include "core/domain/profile.h"

#include <optional>
#include <string>

namespace kx {

/// A candidate whose profiled DRAM traffic is under this fraction of what the op must move moved too few bytes.
inline constexpr double kMinTrafficFraction = 0.5;

/// The rule behind "moved-too-few-bytes", as the evidence states it.
std::string trafficRule();

/**
 * The DRAM bytes a profile measured beside what the op must read and write on its first shape set (the roofline
 * model's bytes, core/plan/roofline.h), on the GPU the profile ran on.
 *
 * The rule judges only ops whose inputs are larger than the GPU's L2 cache. Nsight Compute flushes the caches
 * before every replay pass (--cache-control all), so such an op's inputs must come from DRAM, and at most the
 * L2's size of its outputs can stay in L2 when the kernel ends: an honest launch moves at least the larger of
 * inputs and outputs, which is at least half of their sum. Smaller inputs could be served from L2 and would prove
 * nothing. An op without a byte model, a GPU of unknown L2 size or a profile without DRAM counts is not judged.
 */
TrafficComparison compareTraffic(const Op &op, const GpuInfo &gpu, const ProfileMetrics &metrics);

/// The "moved-too-few-bytes" finding with its numbers (JSON evidence), when the comparison judged and failed it.
std::optional<Flag> movedTooFewBytes(const TrafficComparison &traffic);

/// Fills in a profile's traffic comparison and findings (findings only for the candidate's own launch).
void addTrafficEvidence(const Op &op, Profile &profile);

} // namespace kx
