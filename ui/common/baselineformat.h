#pragma once

#include "core/domain/baseline.h"
#include "core/domain/evaluation.h"
#include "core/domain/precision.h"

#include <QColor>
#include <QCoreApplication>
#include <QString>

#include <optional>
#include <string>

namespace kx::ui {

/// How the UI writes precision policies, baseline measurements and a kernel's standing against eager PyTorch
/// and torch.compile (Inductor), in the words `kx best` and `kx archive show` use.
class BaselineFormat
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::BaselineFormat)

public:
    /// The policy's name as the CLI writes it ("fp32", "tf32", "kernelbench").
    static QString precision(Precision precision);
    /// What the policy allows and how strictly it checks, for tooltips.
    static QString precisionDescription(Precision precision);

    static QString kind(BaselineKind kind); ///< "eager", "Inductor"
    /// core's standingText in the UI's language ("beats eager, loses to Inductor" ...).
    static QString standing(double speedupOverEager, std::optional<double> speedupOverInductor);
    /// Beats eager PyTorch but loses to torch.compile: worth less than its eager speedup suggests.
    static bool losesToInductorOnly(double speedupOverEager, std::optional<double> speedupOverInductor);
    /// The mark of such kernels: a mid-tone that reads on light and dark palettes alike.
    static QColor losesToInductorColor();

    /// The parts describing one measurement: method, median, runs, drift, max errors; or "none: why".
    static QStringList measurementParts(const BaselineMeasurement &baseline);
    /// What older evaluations (timed with eager only) say about torch.compile.
    static QString noInductorMeasurement();
};

} // namespace kx::ui
