#include "ui/review/reviewqueuemodel.h"

#include "ui/common/baselineformat.h"
#include "ui/common/format.h"

#include <QBrush>

#include <algorithm>

namespace kx::ui {

ReviewQueueModel::ReviewQueueModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void ReviewQueueModel::setQueue(std::vector<CandidateSummary> queue)
{
    beginResetModel();
    m_rows = std::move(queue);
    endResetModel();
}

int ReviewQueueModel::rowOf(const QString &candidateId) const
{
    const std::string id = candidateId.toStdString();
    const auto it =
        std::find_if(m_rows.begin(), m_rows.end(), [&](const CandidateSummary &row) { return row.id == id; });
    return it == m_rows.end() ? -1 : int(it - m_rows.begin());
}

int ReviewQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ReviewQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReviewQueueModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CandidateSummary &row = m_rows.at(std::size_t(index.row()));
    // The queue holds correct kernels only: every row has an eager speedup.
    const bool losesToInductor = BaselineFormat::losesToInductorOnly(row.bestSpeedup, row.bestSpeedupOverInductor);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn: return index.row() + 1;
        case IdColumn: return Format::shortId(row.id);
        case OpColumn: return Format::text(row.opName);
        case SpeedupColumn: return Format::speedup(row.bestSpeedup);
        case InductorSpeedupColumn:
            return row.bestSpeedupOverInductor ? Format::speedup(*row.bestSpeedupOverInductor) : QString();
        case PrecisionColumn: return BaselineFormat::precision(row.bestPrecision);
        case GpuColumn: return Format::text(row.bestGpu);
        case FlagsColumn: return row.flagCount;
        case DescriptionColumn: return Format::text(row.description).section(QLatin1Char('\n'), 0, 0);
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == IdColumn)
            return Format::text(row.id);
        if (index.column() == DescriptionColumn)
            return Format::text(row.description);
        if (index.column() == SpeedupColumn || index.column() == InductorSpeedupColumn)
            return BaselineFormat::standing(row.bestSpeedup, row.bestSpeedupOverInductor);
        if (index.column() == PrecisionColumn)
            return BaselineFormat::precisionDescription(row.bestPrecision);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == RankColumn || index.column() == SpeedupColumn || index.column() == InductorSpeedupColumn
            || index.column() == FlagsColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == FlagsColumn)
            return QBrush(Format::warningColor());
        if ((index.column() == SpeedupColumn || index.column() == InductorSpeedupColumn) && losesToInductor)
            return QBrush(BaselineFormat::losesToInductorColor());
        return {};
    case CandidateIdRole: return Format::text(row.id);
    case StandingRole: return BaselineFormat::standing(row.bestSpeedup, row.bestSpeedupOverInductor);
    case LosesToInductorRole: return losesToInductor;
    }
    return {};
}

QVariant ReviewQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("#");
    case IdColumn: return tr("Kernel");
    case OpColumn: return tr("Op");
    case SpeedupColumn: return tr("× eager");
    case InductorSpeedupColumn: return tr("× Inductor");
    case PrecisionColumn: return tr("Precision");
    case GpuColumn: return tr("GPU");
    case FlagsColumn: return tr("Flags");
    case DescriptionColumn: return tr("Description");
    }
    return {};
}

} // namespace kx::ui
