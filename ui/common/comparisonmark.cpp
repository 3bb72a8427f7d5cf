#include "ui/common/comparisonmark.h"

#include "ui/common/format.h"

#include <QAction>
#include <QMenu>

namespace kx::ui {

void ComparisonMark::set(const QString &candidateId)
{
    if (candidateId == m_id)
        return;
    m_id = candidateId;
    emit changed(m_id);
}

void ComparisonMark::addActions(QMenu &menu, const QString &candidateId, const DiffRequest &diff)
{
    QAction *mark = menu.addAction(tr("&Mark for Comparison"));
    mark->setObjectName(QStringLiteral("markForComparison"));
    mark->setEnabled(candidateId != m_id);
    connect(mark, &QAction::triggered, this, [this, candidateId] { set(candidateId); });

    QAction *compare =
        menu.addAction(m_id.isEmpty() ? tr("&Diff with Marked")
                                      : tr("&Diff with Marked (%1)").arg(Format::shortId(m_id.toStdString())));
    compare->setObjectName(QStringLiteral("diffWithMarked"));
    compare->setEnabled(!m_id.isEmpty() && candidateId != m_id);
    connect(compare, &QAction::triggered, this, [this, candidateId, diff] { diff(m_id, candidateId); });
}

} // namespace kx::ui
