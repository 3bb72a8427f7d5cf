#pragma once

#include "core/domain/verdict.h"

#include <QObject>

class QUndoStack;
class QWidget;

namespace kx::ui {

class ArchiveSession;

/**
 * Review actions on candidates: asks for a verdict, records it through the session as an undoable
 * step and keeps the undo history of the open archive (cleared when another archive is opened).
 */
class VerdictController : public QObject
{
    Q_OBJECT

public:
    /// session is not owned; dialogs open over dialogParent.
    VerdictController(ArchiveSession *session, QWidget *dialogParent);

    QUndoStack *undoStack() const { return m_stack; }

    /// Opens the verdict dialog for the candidate with accept or reject preselected.
    void review(const QString &candidateId, bool accept);
    /// One dialog, then the same verdict for every candidate, as one undoable step.
    void reviewMany(const QStringList &candidateIds, bool accept);
    /// Records a verdict as an undoable step; false (with errorOccurred) when it could not be stored.
    bool record(const Verdict &verdict);
    /// Records several verdicts as one undoable step (one Undo takes them all back); false when any failed.
    bool recordAll(const std::vector<Verdict> &verdicts);

signals:
    void errorOccurred(const QString &message);

private:
    bool canRecord();
    QString rejectReasonFor(const QStringList &candidateIds) const;

    ArchiveSession *m_session; // Not owned
    QWidget *m_dialogParent;   // Not owned
    QUndoStack *m_stack;
    bool m_lastWriteFailed = false;
};

} // namespace kx::ui
