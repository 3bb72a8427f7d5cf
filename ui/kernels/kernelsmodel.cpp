#include "ui/kernels/kernelsmodel.h"

#include "ui/common/baselineformat.h"
#include "ui/common/format.h"

#include <QBrush>
#include <QSet>

#include <algorithm>

namespace kx::ui {

namespace {

bool hasCorrectBest(const CandidateSummary &row)
{
    return row.bestStatus == EvalStatus::Correct;
}

bool losesToInductorOnly(const CandidateSummary &row)
{
    return hasCorrectBest(row) && BaselineFormat::losesToInductorOnly(row.bestSpeedup, row.bestSpeedupOverInductor);
}

} // namespace

KernelsModel::KernelsModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void KernelsModel::setSummaries(std::vector<CandidateSummary> summaries)
{
    beginResetModel();
    m_rows = std::move(summaries);
    endResetModel();
}

void KernelsModel::clear()
{
    setSummaries({});
}

int KernelsModel::rowOf(const QString &candidateId) const
{
    const std::string id = candidateId.toStdString();
    const auto it =
        std::find_if(m_rows.begin(), m_rows.end(), [&](const CandidateSummary &row) { return row.id == id; });
    return it == m_rows.end() ? -1 : int(it - m_rows.begin());
}

QStringList KernelsModel::opNames() const
{
    QSet<QString> names;
    for (const CandidateSummary &row : m_rows)
        names.insert(Format::text(row.opName));
    QStringList sorted(names.begin(), names.end());
    sorted.sort(Qt::CaseInsensitive);
    return sorted;
}

int KernelsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KernelsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CandidateSummary &row = m_rows[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return display(row, column);
    case Qt::ToolTipRole: return toolTip(row, column);
    case SortRole: return sortValue(row, column);
    case CandidateIdRole: return Format::text(row.id);
    case OpNameRole: return Format::text(row.opName);
    case StatusKeyRole: return row.bestStatus ? QString::fromLatin1(toString(*row.bestStatus)) : QString();
    case FlagCountRole: return row.flagCount;
    case StandingRole:
        return hasCorrectBest(row) ? BaselineFormat::standing(row.bestSpeedup, row.bestSpeedupOverInductor) : QString();
    case LosesToInductorRole: return losesToInductorOnly(row);
    case SearchTextRole:
        return QStringList{Format::text(row.id), Format::text(row.opName), Format::text(row.description),
                           Format::text(row.operatorName)}
            .join(QLatin1Char('\n'));
    case Qt::TextAlignmentRole:
        switch (column) {
        case SpeedupColumn:
        case InductorSpeedupColumn:
        case MedianColumn:
        case FlagsColumn: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
        }
    case Qt::ForegroundRole:
        if (column == StatusColumn && row.bestStatus)
            return QBrush(Format::statusColor(*row.bestStatus));
        // Beating eager while losing to torch.compile is marked on both speedups.
        if ((column == SpeedupColumn || column == InductorSpeedupColumn) && losesToInductorOnly(row))
            return QBrush(BaselineFormat::losesToInductorColor());
        if (column == FlagsColumn && row.flagCount > 0)
            return QBrush(Format::warningColor());
        if (column == VerdictColumn && row.accepted)
            return QBrush(Format::statusColor(*row.accepted ? EvalStatus::Correct : EvalStatus::Incorrect));
        return {};
    default: return {};
    }
}

QVariant KernelsModel::display(const CandidateSummary &row, int column) const
{
    switch (column) {
    case IdColumn: return Format::shortId(row.id);
    case OpColumn: return Format::text(row.opName);
    case OriginColumn: return Format::origin(row.origin);
    case OperatorColumn: return Format::text(row.operatorName);
    case StatusColumn: return Format::status(row.bestStatus);
    case SpeedupColumn: return hasCorrectBest(row) ? Format::speedup(row.bestSpeedup) : QString();
    case InductorSpeedupColumn:
        return hasCorrectBest(row) && row.bestSpeedupOverInductor ? Format::speedup(*row.bestSpeedupOverInductor)
                                                                  : QString();
    case PrecisionColumn: return row.bestStatus ? BaselineFormat::precision(row.bestPrecision) : QString();
    case GpuColumn: return Format::text(row.bestGpu);
    case MedianColumn: return row.bestStatus && row.bestMedianMs > 0 ? Format::ms(row.bestMedianMs) : QString();
    case FlagsColumn: return row.flagCount > 0 ? QString::number(row.flagCount) : QString();
    case VerdictColumn: return Format::verdict(row.accepted);
    case CreatedColumn: return Format::timestamp(row.createdAtMs);
    case DescriptionColumn: return Format::text(row.description).section(QLatin1Char('\n'), 0, 0);
    }
    return {};
}

QVariant KernelsModel::sortValue(const CandidateSummary &row, int column) const
{
    switch (column) {
    // Kernels without a correct result sort below every measured one.
    case SpeedupColumn: return hasCorrectBest(row) ? row.bestSpeedup : -1.0;
    case InductorSpeedupColumn:
        return hasCorrectBest(row) && row.bestSpeedupOverInductor ? *row.bestSpeedupOverInductor : -1.0;
    case MedianColumn: return row.bestStatus && row.bestMedianMs > 0 ? row.bestMedianMs : qInf();
    case FlagsColumn: return row.flagCount;
    case CreatedColumn: return qlonglong(row.createdAtMs);
    case StatusColumn: return row.bestStatus ? int(*row.bestStatus) : int(EvalStatus::Crashed) + 1;
    case IdColumn: return Format::text(row.id);
    default: return display(row, column);
    }
}

QVariant KernelsModel::toolTip(const CandidateSummary &row, int column) const
{
    switch (column) {
    case IdColumn: return Format::text(row.id);
    case VerdictColumn: return Format::text(row.verdictReason);
    case StatusColumn: return tr("Evaluations: %1").arg(row.evaluationCount);
    case DescriptionColumn: return Format::text(row.description);
    case SpeedupColumn:
    case InductorSpeedupColumn:
        if (!hasCorrectBest(row))
            return {};
        return BaselineFormat::standing(row.bestSpeedup, row.bestSpeedupOverInductor);
    case PrecisionColumn: return row.bestStatus ? BaselineFormat::precisionDescription(row.bestPrecision) : QVariant();
    default: return {};
    }
}

QVariant KernelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case SpeedupColumn: return tr("Speedup of the best evaluation over eager PyTorch");
        case InductorSpeedupColumn:
            return tr("Speedup of the same evaluation over torch.compile (Inductor) on the same GPU, under the "
                      "same precision policy; empty where torch.compile was not measured");
        case PrecisionColumn: return tr("The precision policy the best evaluation was checked and timed under");
        default: return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn: return tr("Id");
    case OpColumn: return tr("Op");
    case OriginColumn: return tr("Origin");
    case OperatorColumn: return tr("Operator");
    case StatusColumn: return tr("Status");
    case SpeedupColumn: return tr("× eager");
    case InductorSpeedupColumn: return tr("× Inductor");
    case PrecisionColumn: return tr("Precision");
    case GpuColumn: return tr("Best GPU");
    case MedianColumn: return tr("Median (ms)");
    case FlagsColumn: return tr("Flags");
    case VerdictColumn: return tr("Verdict");
    case CreatedColumn: return tr("Created");
    case DescriptionColumn: return tr("Description");
    }
    return {};
}

} // namespace kx::ui
