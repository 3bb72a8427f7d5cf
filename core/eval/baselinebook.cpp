#include "core/eval/baselinebook.h"

#include "core/domain/domainjson.h"
#include "core/util/hash.h"

namespace kx {

BaselineBook::Key BaselineBook::keyFor(const EvaluateRequest &request)
{
    Key key;
    key.runId = request.candidate.runId.value_or(0);
    key.opName = request.op.name;
    key.opHash = sha256Hex(nlohmann::json(request.op).dump());
    key.precision = request.settings.precision;
    const auto &inductor = request.settings.inductor;
    key.inductor = inductor.method;
    for (const auto &argument : inductor.command)
        key.inductor += '\n' + argument;
    return key;
}

bool BaselineBook::needsMeasurement(const Key &key, const EvalSettings &settings, std::int64_t nowMs) const
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return true;
    const Entry &entry = it->second;
    if (settings.baselineEveryEvaluations > 0 && entry.evaluationsSince >= settings.baselineEveryEvaluations)
        return true;
    return settings.baselineEveryMinutes > 0
           && double(nowMs - entry.measuredAtMs) >= settings.baselineEveryMinutes * 60e3;
}

void BaselineBook::record(const Key &key, std::vector<BaselineMeasurement> &measurements, std::int64_t nowMs)
{
    Entry &entry = m_entries[key];
    for (auto &measurement : measurements) {
        if (!measurement.usable())
            continue;
        const auto [first, inserted] = entry.firstMedianMs.emplace(measurement.kind, measurement.timing.medianMs);
        measurement.driftPercent = inserted ? 0 : (measurement.timing.medianMs / first->second - 1) * 100;
    }
    entry.measurements = measurements;
    entry.measuredAtMs = nowMs;
    entry.evaluationsSince = 0;
}

const std::vector<BaselineMeasurement> &BaselineBook::current(const Key &key) const
{
    static const std::vector<BaselineMeasurement> none;
    const auto it = m_entries.find(key);
    return it == m_entries.end() ? none : it->second.measurements;
}

void BaselineBook::countEvaluation(const Key &key)
{
    if (const auto it = m_entries.find(key); it != m_entries.end())
        ++it->second.evaluationsSince;
}

} // namespace kx
