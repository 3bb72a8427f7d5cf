#include "ui/verdictcontroller.h"

#include "ui/archivesession.h"
#include "ui/verdictcommand.h"
#include "ui/verdictdialog.h"

#include "core/archive/archive.h"

#include <QUndoStack>

namespace kx::ui {

VerdictController::VerdictController(ArchiveSession *session, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_session(session)
    , m_dialogParent(dialogParent)
    , m_stack(new QUndoStack(this))
{
    // Verdict ids belong to one archive: the history cannot follow to another.
    connect(m_session, &ArchiveSession::archiveChanged, m_stack, &QUndoStack::clear);
}

void VerdictController::review(const QString &candidateId, bool accept)
{
    if (candidateId.isEmpty())
        return;
    if (!m_session->isOpen() || m_session->isReadOnly()) {
        emit errorOccurred(tr("Verdicts need an archive opened for writing."));
        return;
    }
    VerdictDialog dialog(candidateId, accept, m_dialogParent);
    try { // one candidate's rows, on the session's own connection (verdicts are written through it too)
        dialog.setRejectReason(VerdictDialog::rejectReasonFor(m_session->archive()->evaluations(candidateId.toStdString())));
    } catch (const std::exception &) {
        // The reason stays "incorrect results"; the reviewer picks another.
    }
    if (dialog.exec() == QDialog::Accepted)
        record(dialog.verdict());
}

bool VerdictController::record(const Verdict &verdict)
{
    m_lastWriteFailed = false;
    m_stack->push(new VerdictCommand(m_session, verdict, [this](const QString &message) {
        m_lastWriteFailed = true;
        emit errorOccurred(message);
    }));
    return !m_lastWriteFailed;
}

} // namespace kx::ui
