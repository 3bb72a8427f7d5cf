#pragma once

#include "core/archive/archive.h"

#include <QAbstractTableModel>

#include <vector>

namespace kx::ui {

/// The review queue: correct, flagged, unreviewed candidates, most suspicious first (the archive's order).
class ReviewQueueModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        IdColumn,
        OpColumn,
        SpeedupColumn,         ///< Over eager PyTorch.
        InductorSpeedupColumn, ///< Over torch.compile (Inductor), when it was measured.
        PrecisionColumn,
        GpuColumn,
        FlagsColumn,
        DescriptionColumn,
        ColumnCount
    };
    enum Role {
        CandidateIdRole = Qt::UserRole + 1,
        StandingRole,        ///< Against eager and Inductor ("beats eager, loses to Inductor").
        LosesToInductorRole, ///< True when the kernel beats eager but loses to Inductor.
    };

    explicit ReviewQueueModel(QObject *parent = nullptr);

    void setQueue(std::vector<CandidateSummary> queue);
    void clear() { setQueue({}); }
    const CandidateSummary &summary(int row) const { return m_rows.at(std::size_t(row)); }
    int rowOf(const QString &candidateId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<CandidateSummary> m_rows;
};

} // namespace kx::ui
