#pragma once

#include "core/archive/archive.h"

#include <QAbstractTableModel>

#include <vector>

namespace kx::ui {

/// The kernels table: one row per candidate with its best evaluation and current verdict.
class KernelsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        IdColumn,
        OpColumn,
        OriginColumn,
        OperatorColumn,
        StatusColumn,
        SpeedupColumn,         ///< Over eager PyTorch.
        InductorSpeedupColumn, ///< Over torch.compile (Inductor), when it was measured.
        PrecisionColumn,       ///< The precision policy of the best evaluation.
        GpuColumn,
        MedianColumn,
        FlagsColumn,
        VerdictColumn,
        CreatedColumn,
        DescriptionColumn,
        ColumnCount
    };

    enum Role {
        SortRole = Qt::UserRole + 1, ///< Numbers for numeric columns, text otherwise.
        CandidateIdRole,             ///< Full candidate id.
        OpNameRole,
        StatusKeyRole, ///< Status word ("correct" ...) or "" when not evaluated.
        FlagCountRole,
        SearchTextRole,      ///< What the text filter looks at.
        StandingRole,        ///< Against eager and Inductor ("beats eager, loses to Inductor"), if correct.
        LosesToInductorRole, ///< True when the kernel beats eager but loses to Inductor.
    };

    explicit KernelsModel(QObject *parent = nullptr);

    void setSummaries(std::vector<CandidateSummary> summaries);
    void clear();
    const CandidateSummary &summary(int row) const { return m_rows.at(std::size_t(row)); }
    /// Row of a candidate, or -1.
    int rowOf(const QString &candidateId) const;
    /// The distinct op names, sorted.
    QStringList opNames() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const CandidateSummary &row, int column) const;
    QVariant sortValue(const CandidateSummary &row, int column) const;
    QVariant toolTip(const CandidateSummary &row, int column) const;

    std::vector<CandidateSummary> m_rows;
};

} // namespace kx::ui
