#include "ui/review/verdictcommand.h"

#include "ui/common/archivesession.h"
#include "ui/common/format.h"

#include <QCoreApplication>

namespace kx::ui {

VerdictCommand::VerdictCommand(ArchiveSession *session, const Verdict &verdict, ErrorHandler onError)
    : m_session(session)
    , m_verdict(verdict)
    , m_onError(std::move(onError))
{
    const QString shortId = Format::shortId(verdict.candidateId);
    setText(verdict.accepted ? QCoreApplication::translate("kx::ui::VerdictCommand", "Accept %1").arg(shortId)
                             : QCoreApplication::translate("kx::ui::VerdictCommand", "Reject %1").arg(shortId));
}

void VerdictCommand::redo()
{
    // Redo after undo adds the verdict again as a new row: retracted rows stay as history.
    Expected<std::int64_t> id = m_session->addVerdict(m_verdict);
    if (!id) {
        m_verdictId = 0;
        setObsolete(true); // The stack drops a command whose first redo failed.
        if (m_onError)
            m_onError(QString::fromStdString(id.error().message));
        return;
    }
    m_verdictId = *id;
}

void VerdictCommand::undo()
{
    if (m_verdictId == 0)
        return;
    const Status status = m_session->retractVerdict(m_verdictId, QString::fromStdString(m_verdict.candidateId));
    if (!status) {
        if (m_onError)
            m_onError(QString::fromStdString(status.error().message));
        return;
    }
    m_verdictId = 0;
}

} // namespace kx::ui
