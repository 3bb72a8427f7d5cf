#include "ui/kernels/kernelsproxymodel.h"

#include "ui/kernels/kernelsmodel.h"

namespace kx::ui {

KernelsProxyModel::KernelsProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(KernelsModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setSortLocaleAware(true);
}

void KernelsProxyModel::setTextFilter(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_text)
        return;
    m_text = trimmed;
    invalidateRowsFilter();
}

void KernelsProxyModel::setOpFilter(const QString &opName)
{
    if (opName == m_op)
        return;
    m_op = opName;
    invalidateRowsFilter();
}

void KernelsProxyModel::setStatusFilter(const QString &statusKey)
{
    if (statusKey == m_status)
        return;
    m_status = statusKey;
    invalidateRowsFilter();
}

void KernelsProxyModel::setOnlyFlagged(bool onlyFlagged)
{
    if (onlyFlagged == m_onlyFlagged)
        return;
    m_onlyFlagged = onlyFlagged;
    invalidateRowsFilter();
}

void KernelsProxyModel::clearFilters()
{
    m_text.clear();
    m_op.clear();
    m_status.clear();
    m_onlyFlagged = false;
    invalidateRowsFilter();
}

bool KernelsProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!m_op.isEmpty() && index.data(KernelsModel::OpNameRole).toString() != m_op)
        return false;
    if (!m_status.isEmpty()) {
        const QString status = index.data(KernelsModel::StatusKeyRole).toString();
        if (m_status == kNotEvaluated ? !status.isEmpty() : status != m_status)
            return false;
    }
    if (m_onlyFlagged && index.data(KernelsModel::FlagCountRole).toInt() == 0)
        return false;
    if (!m_text.isEmpty() && !index.data(KernelsModel::SearchTextRole).toString().contains(m_text, Qt::CaseInsensitive))
        return false;
    return true;
}

} // namespace kx::ui
