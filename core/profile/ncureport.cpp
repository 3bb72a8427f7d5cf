#include "core/profile/ncureport.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace kx {

namespace ncumetrics {
const std::vector<std::string> kDuration{"gpu__time_duration.sum", "gpu__time_duration.avg", "gpu__time_duration"};
const std::vector<std::string> kDramRead{"dram__bytes_read.sum", "dram__bytes_read"};
const std::vector<std::string> kDramWrite{"dram__bytes_write.sum", "dram__bytes_write"};
const std::vector<std::string> kSmThroughput{"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                             "sm__throughput.avg.pct_of_peak_sustained_active"};
const std::vector<std::string> kTensorPipe{
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
};
const std::vector<std::string> kAchievedOccupancy{"sm__warps_active.avg.pct_of_peak_sustained_active",
                                                  "sm__warps_active.avg.pct_of_peak_sustained_elapsed"};
const std::vector<std::string> kRegisters{"launch__registers_per_thread", "launch__registers_per_thread_allocated"};
const std::vector<std::string> kL2HitRate{"lts__t_sector_hit_rate.pct", "lts__t_sector_hit_rate"};
const std::vector<std::string> kL2Sectors{"lts__t_sectors.sum", "lts__t_sectors_op_read.sum"};
} // namespace ncumetrics

namespace {

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

// "1,234,567.5" (ncu groups thousands with commas) as a number; nullopt for "", "n/a" and the like.
std::optional<double> number(std::string_view text)
{
    std::string digits;
    for (const char c : trimmed(text))
        if (c != ',')
            digits += c;
    if (digits.empty())
        return std::nullopt;
    char *end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size())
        return std::nullopt;
    return value;
}

// How many base units (byte, nanosecond, byte/second) one unit is; 1 for units kept as they are (%, cycle ...).
double scaleToBase(std::string_view unit)
{
    static const std::pair<std::string_view, double> scales[] = {
        {"byte", 1},
        {"Kbyte", 1e3},
        {"Mbyte", 1e6},
        {"Gbyte", 1e9},
        {"Tbyte", 1e12},
        {"KB", 1e3},
        {"MB", 1e6},
        {"GB", 1e9},
        {"nsecond", 1},
        {"ns", 1},
        {"usecond", 1e3},
        {"us", 1e3},
        {"msecond", 1e6},
        {"ms", 1e6},
        {"second", 1e9},
        {"s", 1e9},
        {"byte/second", 1},
        {"Kbyte/second", 1e3},
        {"Mbyte/second", 1e6},
        {"Gbyte/second", 1e9},
        {"Tbyte/second", 1e12},
    };
    const std::string_view clean = trimmed(unit);
    for (const auto &[name, scale] : scales)
        if (clean == name)
            return scale;
    return 1;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}
bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool isKernelRow(const std::vector<std::string> &row)
{
    return !row.empty() && number(row.front()).has_value();
}

// Duration-weighted mean over the kernels that have a value; nullopt when none has.
class WeightedMean
{
public:
    void add(std::optional<double> value, double weight)
    {
        if (!value)
            return;
        m_sum += *value * weight;
        m_weight += weight;
        m_seen = true;
    }
    std::optional<double> mean() const
    {
        if (!m_seen)
            return std::nullopt;
        return m_weight > 0 ? std::optional<double>(m_sum / m_weight) : std::nullopt;
    }

private:
    double m_sum = 0;
    double m_weight = 0;
    bool m_seen = false;
};

class Sum
{
public:
    void add(std::optional<double> value)
    {
        if (value) {
            m_sum += *value;
            m_seen = true;
        }
    }
    std::optional<double> total() const { return m_seen ? std::optional<double>(m_sum) : std::nullopt; }

private:
    double m_sum = 0;
    bool m_seen = false;
};

} // namespace

std::vector<std::vector<std::string>> parseCsv(std::string_view text)
{
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;
    bool fieldStarted = false;
    const auto endField = [&] {
        record.push_back(std::move(field));
        field.clear();
        fieldStarted = false;
    };
    const auto endRecord = [&] {
        if (fieldStarted || !record.empty())
            endField();
        if (!record.empty())
            records.push_back(std::move(record));
        record.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
            fieldStarted = true;
        } else if (c == ',') {
            endField();
            fieldStarted = true; // a trailing comma still opens an (empty) last field
        } else if (c == '\n') {
            endRecord();
        } else if (c != '\r') {
            field += c;
            fieldStarted = true;
        }
    }
    endRecord();
    return records;
}

Expected<NcuReport> NcuReport::parse(std::string_view output)
{
    // The table starts at the line whose first field is "ID"; lines before it belong to ncu or the program.
    std::size_t start = std::string_view::npos;
    for (std::size_t at = 0; at < output.size();) {
        const std::size_t end = std::min(output.find('\n', at), output.size());
        if (startsWith(trimmed(output.substr(at, end - at)), "\"ID\",")) {
            start = at;
            break;
        }
        at = end + 1;
    }
    if (start == std::string_view::npos)
        return Error{"no metrics table in ncu's output (no kernel was profiled?)"};

    NcuReport report;
    auto records = parseCsv(output.substr(start));
    report.m_header = std::move(records.front());
    for (std::size_t i = 0; i < report.m_header.size(); ++i)
        report.m_columns.emplace(report.m_header[i], i);
    std::size_t next = 1;
    // The units row: empty under the identification columns, so it is no kernel row.
    if (next < records.size() && !isKernelRow(records[next]))
        report.m_units = std::move(records[next++]);
    for (; next < records.size(); ++next)
        if (isKernelRow(records[next]))
            report.m_rows.push_back(std::move(records[next]));
    report.m_units.resize(report.m_header.size());
    if (report.m_rows.empty())
        return Error{"ncu's metrics table has no kernel rows (no kernel was profiled)"};
    return report;
}

std::string NcuReport::kernelName(int kernel) const
{
    for (const char *column : {"Kernel Name", "Function Name", "Name"})
        if (const auto it = m_columns.find(column); it != m_columns.end() && it->second < m_rows[kernel].size())
            return m_rows[kernel][it->second];
    return "kernel " + std::to_string(kernel);
}

std::optional<double> NcuReport::value(int kernel, const std::string &metric) const
{
    const auto it = m_columns.find(metric);
    if (it == m_columns.end() || kernel < 0 || kernel >= kernelCount() || it->second >= m_rows[kernel].size())
        return std::nullopt;
    const auto parsed = number(m_rows[kernel][it->second]);
    if (!parsed)
        return std::nullopt;
    return *parsed * scaleToBase(m_units[it->second]);
}

std::optional<double> NcuReport::firstOf(int kernel, const std::vector<std::string> &names) const
{
    for (const auto &name : names)
        if (const auto found = value(kernel, name))
            return found;
    return std::nullopt;
}

std::vector<ProfiledKernel> NcuReport::kernels() const
{
    std::vector<ProfiledKernel> kernels;
    for (int k = 0; k < kernelCount(); ++k)
        kernels.push_back({kernelName(k), firstOf(k, ncumetrics::kDuration), firstOf(k, ncumetrics::kDramRead),
                           firstOf(k, ncumetrics::kDramWrite)});
    return kernels;
}

std::string stallReasonOf(const std::string &metric)
{
    static constexpr std::string_view latencyPrefix = "smsp__average_warp_latency_issue_stalled_";
    static constexpr std::string_view latencySuffix = ".ratio";
    static constexpr std::string_view warpsPrefix = "smsp__average_warps_issue_stalled_";
    static constexpr std::string_view warpsSuffix = "_per_issue_active.ratio";
    std::string_view reason;
    if (startsWith(metric, latencyPrefix) && endsWith(metric, latencySuffix))
        reason = std::string_view(metric).substr(latencyPrefix.size(),
                                                 metric.size() - latencyPrefix.size() - latencySuffix.size());
    else if (startsWith(metric, warpsPrefix) && endsWith(metric, warpsSuffix))
        reason = std::string_view(metric).substr(warpsPrefix.size(),
                                                 metric.size() - warpsPrefix.size() - warpsSuffix.size());
    // "selected" is the warp that issued: no stall.
    if (reason.empty() || reason == "selected")
        return {};
    return std::string(reason);
}

ProfileMetrics NcuReport::aggregate() const
{
    ProfileMetrics metrics;
    metrics.kernels = kernelCount();
    Sum duration, dramRead, dramWrite;
    WeightedMean sm, tensor, occupancy, l2Hit;
    std::optional<int> registers;
    std::map<std::string, WeightedMean> stalls;
    for (int k = 0; k < kernelCount(); ++k) {
        const auto kernelDuration = firstOf(k, ncumetrics::kDuration);
        // Without durations every kernel weighs the same.
        const double weight = kernelDuration.value_or(1);
        duration.add(kernelDuration);
        dramRead.add(firstOf(k, ncumetrics::kDramRead));
        dramWrite.add(firstOf(k, ncumetrics::kDramWrite));
        sm.add(firstOf(k, ncumetrics::kSmThroughput), weight);
        std::optional<double> busiestTensorPipe;
        for (const auto &name : ncumetrics::kTensorPipe)
            if (const auto pipe = value(k, name))
                busiestTensorPipe = std::max(busiestTensorPipe.value_or(0), *pipe);
        tensor.add(busiestTensorPipe, weight);
        occupancy.add(firstOf(k, ncumetrics::kAchievedOccupancy), weight);
        // L2 hit rates weigh by the sectors looked up, where ncu gave them: a tiny kernel's 100% says little.
        l2Hit.add(firstOf(k, ncumetrics::kL2HitRate), firstOf(k, ncumetrics::kL2Sectors).value_or(weight));
        if (const auto used = firstOf(k, ncumetrics::kRegisters))
            registers = std::max(registers.value_or(0), int(*used));
        for (const auto &column : m_header)
            if (const std::string reason = stallReasonOf(column); !reason.empty())
                stalls[reason].add(value(k, column), weight);
    }
    metrics.durationNs = duration.total();
    metrics.dramReadBytes = dramRead.total();
    metrics.dramWriteBytes = dramWrite.total();
    if (const auto bytes = metrics.dramBytes(); bytes && metrics.durationNs && *metrics.durationNs > 0)
        metrics.achievedBandwidthGBs = *bytes / *metrics.durationNs; // bytes per ns = GB/s
    metrics.smThroughputPct = sm.mean();
    metrics.tensorPipePct = tensor.mean();
    metrics.achievedOccupancyPct = occupancy.mean();
    metrics.registersPerThread = registers;
    metrics.l2HitRatePct = l2Hit.mean();
    for (const auto &[reason, mean] : stalls)
        if (const auto cycles = mean.mean(); cycles && *cycles > 0)
            metrics.topStalls.push_back({reason, *cycles});
    std::sort(metrics.topStalls.begin(), metrics.topStalls.end(),
              [](const StallReason &a, const StallReason &b) { return a.cyclesPerIssue > b.cyclesPerIssue; });
    if (metrics.topStalls.size() > 3)
        metrics.topStalls.resize(3);

    const auto noteMissing = [&](const std::optional<double> &found, const std::vector<std::string> &names) {
        if (!found)
            metrics.missing.push_back(names.front());
    };
    noteMissing(metrics.durationNs, ncumetrics::kDuration);
    noteMissing(metrics.dramReadBytes, ncumetrics::kDramRead);
    noteMissing(metrics.dramWriteBytes, ncumetrics::kDramWrite);
    noteMissing(metrics.smThroughputPct, ncumetrics::kSmThroughput);
    noteMissing(metrics.tensorPipePct, ncumetrics::kTensorPipe);
    noteMissing(metrics.achievedOccupancyPct, ncumetrics::kAchievedOccupancy);
    if (!registers)
        metrics.missing.push_back(ncumetrics::kRegisters.front());
    noteMissing(metrics.l2HitRatePct, ncumetrics::kL2HitRate);
    if (stalls.empty())
        metrics.missing.push_back("smsp__average_warps_issue_stalled_*_per_issue_active.ratio");
    return metrics;
}

std::string ncuErrors(std::string_view output)
{
    std::string errors;
    for (std::size_t at = 0; at < output.size();) {
        const std::size_t end = std::min(output.find('\n', at), output.size());
        const std::string_view line = trimmed(output.substr(at, end - at));
        if (startsWith(line, "==ERROR==") || line.find("ERR_NVGPUCTRPERM") != std::string_view::npos)
            errors += (errors.empty() ? "" : "\n") + std::string(line);
        at = end + 1;
    }
    return errors;
}

std::string ncuVersionOf(std::string_view output)
{
    const std::size_t at = output.find("Version ");
    if (at == std::string_view::npos)
        return {};
    std::size_t begin = at + 8, end = begin;
    while (end < output.size() && !std::isspace(static_cast<unsigned char>(output[end])))
        ++end;
    return std::string(output.substr(begin, end - begin));
}

} // namespace kx
