#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QMenu;

namespace kx::ui {

/**
 * The kernel marked for comparison: any two kernels of the archive can be diffed by marking one (in the lineage
 * or the Kernels table) and choosing "Diff with Marked" on the other, as file managers' compare tools do.
 * One mark for the whole window; it is cleared with the archive.
 */
class ComparisonMark : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    using DiffRequest = std::function<void(const QString &leftId, const QString &rightId)>;

    QString id() const { return m_id; }
    void set(const QString &candidateId);
    void clear() { set({}); }

    /// Adds "Mark for Comparison" and "Diff with Marked" for the kernel to a context menu; the second calls diff
    /// with the marked kernel on the left. The actions are named markForComparison and diffWithMarked.
    void addActions(QMenu &menu, const QString &candidateId, const DiffRequest &diff);

signals:
    void changed(const QString &candidateId);

private:
    QString m_id;
};

} // namespace kx::ui
