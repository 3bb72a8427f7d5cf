#pragma once

#include "core/domain/baseline.h"
#include "core/eval/evalrequest.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace kx {

/**
 * A worker's record of the baselines it compares candidates with: measured once per run, op, precision and
 * Inductor setup, measured again after settings.baselineEveryEvaluations evaluations or
 * settings.baselineEveryMinutes minutes, and each new measurement's drift against the first one of its kind.
 * Logic only: the worker does the measuring.
 */
class BaselineBook
{
public:
    /// What a measurement is valid for.
    struct Key
    {
        std::int64_t runId = 0; ///< 0: evaluations outside a run.
        std::string opName;
        std::string opHash; ///< The op's definition: a changed op is another op.
        Precision precision = Precision::Fp32;
        std::string inductor; ///< The Inductor setup (command and method).

        auto tie() const { return std::tie(runId, opName, opHash, precision, inductor); }
        bool operator<(const Key &other) const { return tie() < other.tie(); }
    };

    static Key keyFor(const EvaluateRequest &request);

    /// True when there is no measurement for key yet, or it has served its evaluations or minutes.
    bool needsMeasurement(const Key &key, const EvalSettings &settings, std::int64_t nowMs) const;
    /// Keeps new measurements for key (replacing the last ones) and sets their driftPercent against the first
    /// usable measurement of the same kind for key.
    void record(const Key &key, std::vector<BaselineMeasurement> &measurements, std::int64_t nowMs);
    /// The measurements in use for key (empty when there are none).
    const std::vector<BaselineMeasurement> &current(const Key &key) const;
    /// Counts one evaluation compared with key's measurements.
    void countEvaluation(const Key &key);

private:
    struct Entry
    {
        std::vector<BaselineMeasurement> measurements;
        std::map<BaselineKind, double> firstMedianMs;
        std::int64_t measuredAtMs = 0;
        int evaluationsSince = 0;
    };
    std::map<Key, Entry> m_entries;
};

} // namespace kx
