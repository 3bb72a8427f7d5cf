#pragma once

#include "core/domain/op.h"
#include "core/plan/nvrtccompiler.h"

#include <QString>
#include <QStringList>

namespace kx::ui {

/// What the checks found in a hand-edited kernel; messages name source lines ("line 12: ...").
struct ManualCheckResult
{
    bool ok = false;
    QStringList problems;
    int kernels = 0; ///< extern "C" __global__ functions found.
    int registers = 0;
    double compileMs = 0;
};

/**
 * The checks a hand-edited kernel passes before it is stored: device-only code, a launch plan that parses
 * and resolves for every shape set of the op, and an NVRTC compile for arch. Slow (NVRTC): call it off the
 * GUI thread.
 */
ManualCheckResult checkManualCandidate(const Op &op, const QString &source, const QString &launchPlan,
                                       const QString &arch = QString::fromLatin1(kDefaultArch));

/// NVRTC's "candidate.cu(12): error ..." lines as "line 12: error ...".
QString withLineNumbers(const QString &compilerLog);

} // namespace kx::ui
