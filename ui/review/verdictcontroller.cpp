#include "ui/review/verdictcontroller.h"

#include "ui/common/archivesession.h"
#include "ui/review/verdictcommand.h"
#include "ui/review/verdictdialog.h"

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

bool VerdictController::canRecord()
{
    if (m_session->isOpen() && !m_session->isReadOnly())
        return true;
    emit errorOccurred(tr("Verdicts need an archive opened for writing."));
    return false;
}

// From the kinds of flag the kernels carry (a small indexed read of the flags alone, on the session's own
// connection, which verdicts are written through too); "incorrect" when they cannot be read.
QString VerdictController::rejectReasonFor(const QStringList &candidateIds) const
{
    std::set<std::string> kinds;
    try {
        for (const QString &id : candidateIds)
            kinds.merge(m_session->archive()->flagKinds(id.toStdString()));
    } catch (const std::exception &) {
        return QStringLiteral("incorrect");
    }
    return VerdictDialog::rejectReasonFor(kinds);
}

void VerdictController::review(const QString &candidateId, bool accept)
{
    if (candidateId.isEmpty() || !canRecord())
        return;
    VerdictDialog dialog(candidateId, accept, m_dialogParent);
    dialog.setRejectReason(rejectReasonFor({candidateId}));
    if (dialog.exec() == QDialog::Accepted)
        record(dialog.verdict());
}

void VerdictController::reviewMany(const QStringList &candidateIds, bool accept)
{
    if (candidateIds.isEmpty() || !canRecord())
        return;
    if (candidateIds.size() == 1)
        return review(candidateIds.first(), accept);
    VerdictDialog dialog(candidateIds.first(), accept, m_dialogParent);
    dialog.setWindowTitle(tr("Verdict on %n kernel(s)", nullptr, int(candidateIds.size())));
    dialog.setRejectReason(rejectReasonFor(candidateIds));
    if (dialog.exec() != QDialog::Accepted)
        return;
    std::vector<Verdict> verdicts;
    for (const QString &id : candidateIds) {
        Verdict verdict = dialog.verdict();
        verdict.candidateId = id.toStdString();
        verdicts.push_back(std::move(verdict));
    }
    recordAll(verdicts);
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

bool VerdictController::recordAll(const std::vector<Verdict> &verdicts)
{
    m_lastWriteFailed = false;
    m_stack->beginMacro(tr("Verdict on %n kernel(s)", nullptr, int(verdicts.size())));
    for (const Verdict &verdict : verdicts)
        m_stack->push(new VerdictCommand(m_session, verdict, [this](const QString &message) {
            m_lastWriteFailed = true;
            emit errorOccurred(message);
        }));
    m_stack->endMacro();
    return !m_lastWriteFailed;
}

} // namespace kx::ui
