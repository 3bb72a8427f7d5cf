#pragma once

#include "ui/common/latestjob.h"

#include <QWidget>

class QLabel;

namespace kx::ui {

/// The status bar's permanent part: which archive is open, how much it holds, and whether it is read-only.
class ArchiveStatusWidget : public QWidget
{
    Q_OBJECT

public:
    explicit ArchiveStatusWidget(QWidget *parent = nullptr);

    /// An empty path shows that no archive is open.
    void setArchive(const QString &path, bool readOnly);
    /// Re-reads the counts (off the GUI thread).
    void refresh();

    QString pathText() const;
    QString countsText() const;
    bool readOnlyShown() const;

private:
    QString m_path;
    LatestJob m_read;
    QLabel *m_pathLabel;
    QLabel *m_countsLabel;
    QLabel *m_readOnlyLabel;
};

} // namespace kx::ui
