#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"

#include <QCoreApplication>
#include <QString>

#include <optional>
#include <vector>

namespace kx::ui {

/// The case for and against a candidate's result, as HTML: per evaluation the precision policy, the speedups
/// over eager PyTorch and torch.compile (Inductor) with the baselines' methods and the kernel's standing against
/// both, the roofline floor against the measured time, event against wall-clock timing, the checks that passed
/// and each flag's evidence.
class ReviewEvidence
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::ReviewEvidence)

public:
    static QString html(const std::optional<Op> &op, const std::vector<Evaluation> &evaluations);
};

} // namespace kx::ui
