#include "ui/common/baselineformat.h"

#include "ui/common/format.h"

#include <QLocale>

namespace kx::ui {

namespace {

constexpr const char kContext[] = "kx::ui::BaselineFormat";

// Every text core's standingText() can return, so that lupdate offers them for translation.
[[maybe_unused]] constexpr const char *kStandings[] = {
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "beats eager and Inductor"),
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "beats eager, loses to Inductor"),
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "loses to eager, beats Inductor"),
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "loses to eager and Inductor"),
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "beats eager (no Inductor time)"),
    QT_TRANSLATE_NOOP("kx::ui::BaselineFormat", "loses to eager (no Inductor time)"),
};

} // namespace

QString BaselineFormat::precision(Precision precision)
{
    return QString::fromLatin1(toString(precision));
}

QString BaselineFormat::precisionDescription(Precision precision)
{
    switch (precision) {
    case Precision::Fp32:
        return tr("fp32: no TF32 anywhere (candidates, eager PyTorch and Inductor alike); the op's own tolerance.");
    case Precision::Tf32:
        return tr("tf32: candidates may use TF32 tensor cores, and eager PyTorch and Inductor run with TF32 allowed "
                  "in cuBLAS and cuDNN, so the comparison stays fair; the tolerance widens with the reduction "
                  "length.");
    case Precision::KernelBench:
        return tr("kernelbench: KernelBench's own check (atol = rtol = 1e-2) with TF32 allowed, to compare with "
                  "published results.");
    }
    return {};
}

QString BaselineFormat::kind(BaselineKind kind)
{
    return kind == BaselineKind::Eager ? tr("eager") : tr("Inductor");
}

QString BaselineFormat::standing(double speedupOverEager, std::optional<double> speedupOverInductor)
{
    // The rule and its English words are core's; only the translation is looked up here.
    const std::string text = standingText(speedupOverEager, speedupOverInductor);
    return QCoreApplication::translate(kContext, text.c_str());
}

bool BaselineFormat::losesToInductorOnly(double speedupOverEager, std::optional<double> speedupOverInductor)
{
    return speedupOverEager > 1 && speedupOverInductor && *speedupOverInductor <= 1;
}

QColor BaselineFormat::losesToInductorColor()
{
    return QColor(0x79, 0x50, 0xf2);
}

QStringList BaselineFormat::measurementParts(const BaselineMeasurement &baseline)
{
    QStringList parts;
    if (!baseline.method.empty())
        parts << Format::text(baseline.method);
    if (!baseline.usable()) {
        parts << tr("none: %1").arg(baseline.error.empty() ? tr("no timed runs") : Format::text(baseline.error));
        return parts;
    }
    const QLocale locale;
    parts << tr("median %1 ms").arg(Format::ms(baseline.timing.medianMs)) << tr("n = %1").arg(baseline.timing.runs)
          << tr("drift %1%")
                 .arg((baseline.driftPercent > 0 ? QStringLiteral("+") : QString())
                      + locale.toString(baseline.driftPercent, 'f', 1))
          << tr("max abs error %1").arg(QString::number(baseline.maxAbsError, 'g', 3))
          << tr("max rel error %1").arg(QString::number(baseline.maxRelError, 'g', 3));
    return parts;
}

QString BaselineFormat::noInductorMeasurement()
{
    return tr("no Inductor measurement");
}

} // namespace kx::ui
