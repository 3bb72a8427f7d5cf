#pragma once

#include "ui/common/latestjob.h"

#include "core/archive/archiveref.h"

#include <QWidget>

class QLabel;

namespace kx::ui {

class ArchiveSession;

/// The status bar's permanent part: which archive is open, how much it holds, and whether it is read-only.
class ArchiveStatusWidget : public QWidget
{
    Q_OBJECT

public:
    explicit ArchiveStatusWidget(QWidget *parent = nullptr);

    /// Shows the session's archive and follows it: another archive, and new counts after a verdict or a stored
    /// candidate.
    void attach(ArchiveSession *session);
    /// An empty handle shows that no archive is open.
    void setArchive(const ArchiveRef &archive);
    /// Re-reads the counts (off the GUI thread).
    void refresh();

    QString pathText() const;
    QString countsText() const;
    bool readOnlyShown() const;

private:
    ArchiveRef m_archive;
    LatestJob m_read;
    QLabel *m_pathLabel;
    QLabel *m_countsLabel;
    QLabel *m_readOnlyLabel;
};

} // namespace kx::ui
