#pragma once

#include <QSortFilterProxyModel>

namespace kx::ui {

/// Filters the kernels table by text, op, status and flags, and sorts numbers as numbers.
class KernelsProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    /// Status filter key for kernels without any evaluation.
    static inline const QString kNotEvaluated = QStringLiteral("not-evaluated");

    explicit KernelsProxyModel(QObject *parent = nullptr);

    /// Case-insensitive substring of id, op, description or operator; empty: all.
    void setTextFilter(const QString &text);
    QString textFilter() const { return m_text; }
    /// Exact op name; empty: all ops.
    void setOpFilter(const QString &opName);
    QString opFilter() const { return m_op; }
    /// A status word as core writes it ("correct", "compile-error" ...), kNotEvaluated, or empty for all.
    void setStatusFilter(const QString &statusKey);
    QString statusFilter() const { return m_status; }
    void setOnlyFlagged(bool onlyFlagged);
    bool onlyFlagged() const { return m_onlyFlagged; }
    void clearFilters();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    QString m_op;
    QString m_status;
    bool m_onlyFlagged = false;
};

} // namespace kx::ui
