#include "ui/common/archivepage.h"

#include "ui/common/archivesession.h"

namespace kx::ui {

void ArchivePage::attach(ArchiveSession *session)
{
    connect(session, &ArchiveSession::archiveChanged, this, [this, session] { setArchive(session->ref()); });
    connect(session, &ArchiveSession::verdictsChanged, this, &ArchivePage::onVerdictsChanged);
    connect(session, &ArchiveSession::candidateAdded, this, &ArchivePage::onCandidateAdded);
    setArchive(session->ref());
}

void ArchivePage::showCandidate(const QString &) {}

QList<QAction *> ArchivePage::pageActions() const
{
    return {};
}

void ArchivePage::onVerdictsChanged(const QString &) {}

void ArchivePage::onCandidateAdded(const Candidate &, int) {}

} // namespace kx::ui
