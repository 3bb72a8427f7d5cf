#pragma once

#include "core/domain/profile.h"
#include "core/util/expected.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kx {

/// Splits CSV text into records (RFC 4180: quoted fields hold commas, line breaks and doubled quotes).
std::vector<std::vector<std::string>> parseCsv(std::string_view text);

/**
 * What `ncu --csv --page raw` printed: a header row of metric names, a row of their units, then one row per
 * profiled kernel. Whatever else is on the same output (ncu's own ==PROF== lines, the profiled program's
 * output) is skipped. Values are read in base units (bytes, nanoseconds, percent) whatever scale ncu chose.
 *
 * Metric names differ between ncu versions and GPUs: each quantity is looked up by a list of names, and
 * aggregate() says which quantities none of its names gave.
 */
class NcuReport
{
public:
    /// The table in output, or an Error when there is none (then ncuErrors() usually says why).
    static Expected<NcuReport> parse(std::string_view output);

    int kernelCount() const { return int(m_rows.size()); }
    std::string kernelName(int kernel) const;
    /// The metric's value for one kernel in base units; nullopt when absent, empty or not a number ("n/a").
    std::optional<double> value(int kernel, const std::string &metric) const;
    /// The value of the first of names that the kernel has.
    std::optional<double> firstOf(int kernel, const std::vector<std::string> &names) const;
    bool hasColumn(const std::string &metric) const { return m_columns.count(metric) > 0; }
    const std::vector<std::string> &columns() const { return m_header; }

    /// Every kernel's name, duration and DRAM bytes.
    std::vector<ProfiledKernel> kernels() const;
    /// All kernels together: sums, duration-weighted means, the largest register count, the top stall reasons.
    ProfileMetrics aggregate() const;

private:
    std::vector<std::string> m_header;
    std::vector<std::string> m_units;
    std::vector<std::vector<std::string>> m_rows;
    std::map<std::string, std::size_t> m_columns;
};

/// The names each aggregated quantity is looked up by, first match wins (exposed for tests and documentation).
namespace ncumetrics {
extern const std::vector<std::string> kDuration;
extern const std::vector<std::string> kDramRead;
extern const std::vector<std::string> kDramWrite;
extern const std::vector<std::string> kSmThroughput;
/// Tensor pipes: every one found counts, the busiest gives the kernel's figure (HMMA, GMMA, IMMA ... differ by GPU).
extern const std::vector<std::string> kTensorPipe;
extern const std::vector<std::string> kAchievedOccupancy;
extern const std::vector<std::string> kRegisters;
extern const std::vector<std::string> kL2HitRate;
extern const std::vector<std::string> kL2Sectors;
} // namespace ncumetrics

/// The reason named by a warp-stall metric ("long_scoreboard"), or empty when the column is no stall metric.
/// Both spellings count: smsp__average_warp_latency_issue_stalled_X.ratio and
/// smsp__average_warps_issue_stalled_X_per_issue_active.ratio.
std::string stallReasonOf(const std::string &metric);

/// ncu's ==ERROR== lines (and its permission message) in output, joined by line breaks; empty when none.
std::string ncuErrors(std::string_view output);

/// The version in `ncu --version`'s output ("Version 2025.3.0.0 (build ...)" gives "2025.3.0.0"); empty if none.
std::string ncuVersionOf(std::string_view output);

} // namespace kx
