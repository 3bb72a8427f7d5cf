#pragma once

#include "core/eval/evalrequest.h"

class QSettings;

namespace kx::ui {

/**
 * The run settings that decide what a speedup is measured against: the precision policy, whether torch.compile
 * (Inductor) is timed besides eager PyTorch, and when the baselines are timed again. Kept in QSettings between
 * sessions, as the proposer's settings are.
 */
struct BaselineSettings
{
    Precision precision = Precision::Fp32;
    bool inductor = true;       ///< Compare with torch.compile too.
    int everyEvaluations = 200; ///< Re-time after this many evaluations on a GPU (0: never).
    double everyMinutes = 10;   ///< ... or after this many minutes (0: never).

    /// The fields as core's EvalSettings holds them (its defaults are these settings' defaults).
    static BaselineSettings of(const EvalSettings &eval);
    void applyTo(EvalSettings &eval) const;

    /// Stored values, core's defaults where there are none (or they are not valid).
    static BaselineSettings load(const QSettings &store);
    void save(QSettings &store) const;

    bool operator==(const BaselineSettings &) const = default;
};

} // namespace kx::ui
