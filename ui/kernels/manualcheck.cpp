#include "ui/kernels/manualcheck.h"

#include "core/plan/devicecodecheck.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

namespace kx::ui {

namespace {

// The context of this file's messages in the translation.
struct ManualCheck
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::ManualCheck)
};

} // namespace

QString withLineNumbers(const QString &compilerLog)
{
    static const QRegularExpression location(QStringLiteral("^[^\\n(]*\\((\\d+)\\): "));
    QStringList lines = compilerLog.split(QLatin1Char('\n'));
    for (QString &line : lines) {
        const QRegularExpressionMatch match = location.match(line);
        if (match.hasMatch())
            line = ManualCheck::tr("line %1: ").arg(match.captured(1)) + line.mid(match.capturedLength());
    }
    return lines.join(QLatin1Char('\n')).trimmed();
}

ManualCheckResult checkManualCandidate(const Op &op, const QString &source, const QString &launchPlan,
                                       const QString &arch)
{
    ManualCheckResult result;
    const std::string code = source.toStdString();
    if (code.find_first_not_of(" \t\r\n") == std::string::npos) {
        result.problems << ManualCheck::tr("The source is empty.");
        return result;
    }
    const Status deviceOnly = checkDeviceOnly(code);
    if (!deviceOnly)
        result.problems << QString::fromStdString(deviceOnly.error().message);

    const Expected<LaunchPlan> plan = parseLaunchPlan(launchPlan.toStdString());
    if (!plan)
        result.problems << ManualCheck::tr("Launch plan: %1").arg(QString::fromStdString(plan.error().message));

    // NVRTC runs the same check first and would only repeat its message.
    if (!deviceOnly)
        return result;
    if (!NvrtcCompiler::available()) {
        result.problems << ManualCheck::tr("This build has no NVRTC (the CUDA toolkit was missing when it was built).");
        return result;
    }
    CompileOptions options;
    options.arch = arch.toStdString();
    options.wantPtx = false;
    const CompileResult compiled = NvrtcCompiler().compile(code, options);
    result.compileMs = compiled.stats.compileMs;
    if (!compiled.ok) {
        const QString log = withLineNumbers(QString::fromStdString(compiled.stats.log));
        result.problems
            << ManualCheck::tr("NVRTC: %1").arg(log.isEmpty() ? QString::fromStdString(compiled.error) : log);
        return result;
    }
    result.kernels = int(compiled.kernels.size());
    result.registers = compiled.stats.registers;

    if (plan)
        if (const Status fits = checkLaunchPlanFits(*plan, op, compiled.kernels); !fits)
            result.problems << ManualCheck::tr("Launch plan: %1").arg(QString::fromStdString(fits.error().message));
    result.ok = result.problems.isEmpty();
    return result;
}

} // namespace kx::ui
