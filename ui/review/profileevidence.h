#pragma once

#include "core/domain/profile.h"

#include <QCoreApplication>
#include <QString>

#include <vector>

namespace kx::ui {

/// A candidate's Nsight Compute evidence as HTML: its latest profile beside the eager reference's and the
/// roofline model's numbers (bytes the op must move against DRAM bytes measured, achieved bandwidth against the
/// card's copy bandwidth), throughput, occupancy, registers, L2 hit rate, the top stall reasons, the findings and
/// what failed.
class ProfileEvidence
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::ProfileEvidence)

public:
    static QString html(const std::vector<Profile> &profiles);
};

} // namespace kx::ui
