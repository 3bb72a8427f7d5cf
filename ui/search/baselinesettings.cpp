#include "ui/search/baselinesettings.h"

#include <QSettings>

#include <cmath>
#include <stdexcept>

namespace kx::ui {

namespace {

// Keys under the "run" group, beside the proposer's.
const char kPrecision[] = "run/precision";
const char kInductor[] = "run/inductorBaseline";
const char kEveryEvaluations[] = "run/baselineEveryEvaluations";
const char kEveryMinutes[] = "run/baselineEveryMinutes";

} // namespace

BaselineSettings BaselineSettings::of(const EvalSettings &eval)
{
    return {eval.precision, eval.inductorBaseline, eval.baselineEveryEvaluations, eval.baselineEveryMinutes};
}

void BaselineSettings::applyTo(EvalSettings &eval) const
{
    eval.precision = precision;
    eval.inductorBaseline = inductor;
    eval.baselineEveryEvaluations = everyEvaluations;
    eval.baselineEveryMinutes = everyMinutes;
}

BaselineSettings BaselineSettings::load(const QSettings &store)
{
    BaselineSettings settings = of(EvalSettings{});
    try {
        if (store.contains(QLatin1String(kPrecision)))
            settings.precision = precisionFromString(store.value(QLatin1String(kPrecision)).toString().toStdString());
    } catch (const std::invalid_argument &) {
        // A policy this version does not know: keep the default.
    }
    settings.inductor = store.value(QLatin1String(kInductor), settings.inductor).toBool();
    bool ok = false;
    const int evaluations = store.value(QLatin1String(kEveryEvaluations), settings.everyEvaluations).toInt(&ok);
    if (ok && evaluations >= 0)
        settings.everyEvaluations = evaluations;
    const double minutes = store.value(QLatin1String(kEveryMinutes), settings.everyMinutes).toDouble(&ok);
    if (ok && std::isfinite(minutes) && minutes >= 0)
        settings.everyMinutes = minutes;
    return settings;
}

void BaselineSettings::save(QSettings &store) const
{
    store.setValue(QLatin1String(kPrecision), QString::fromLatin1(toString(precision)));
    store.setValue(QLatin1String(kInductor), inductor);
    store.setValue(QLatin1String(kEveryEvaluations), everyEvaluations);
    store.setValue(QLatin1String(kEveryMinutes), everyMinutes);
}

} // namespace kx::ui
