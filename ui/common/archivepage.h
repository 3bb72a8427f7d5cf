#pragma once

#include "core/archive/archiveref.h"

#include <QList>
#include <QWidget>

class QAction;

namespace kx {
struct Candidate;
}

namespace kx::ui {

class ArchiveSession;

/**
 * A central page of the main window. Once attached to the window's ArchiveSession it follows the session by
 * itself: another archive (setArchive), a verdict recorded or retracted, a candidate stored. The window asks
 * only for what the session cannot tell: read everything again (F5, a search finished) and show the candidate
 * the docks show; it puts the page's actions in its menus.
 */
class ArchivePage : public QWidget
{
    Q_OBJECT

public:
    using QWidget::QWidget;

    /// Shows the session's archive now and follows the session from here on.
    void attach(ArchiveSession *session);

    /// The archive to read (an empty handle: nothing to show).
    virtual void setArchive(const ArchiveRef &archive) = 0;
    /// The archive was written behind the session's back (a search, another program): read it again.
    virtual void reload() = 0;
    /// The docks now show this candidate (empty: none); a page that follows the selection shows it too.
    virtual void showCandidate(const QString &candidateId);
    /// What acts on this page, for the window's menus (none by default).
    virtual QList<QAction *> pageActions() const;

protected:
    /// A verdict of the candidate was recorded or retracted through the session.
    virtual void onVerdictsChanged(const QString &candidateId);
    /// A candidate was stored through the session (a hand-made one); generation is its place in its run.
    virtual void onCandidateAdded(const kx::Candidate &candidate, int generation);
};

} // namespace kx::ui
