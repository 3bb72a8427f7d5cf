#pragma once

#include <QCoreApplication>
#include <QString>

class QMimeData;
class QWidget;

namespace kx::ui {

/// Choosing an archive (*.kxdb) file: the file dialogs and drops. Each returns the chosen path, or an empty string.
class ArchiveDialogs
{
    Q_DECLARE_TR_FUNCTIONS(ArchiveDialogs)

public:
    static QString askToOpen(QWidget *parent, const QString &title, const QString &folder);
    /// A new archive's path; ".kxdb" is added where the name has no suffix. An existing file is not overwritten
    /// by the dialog's say-so: opening it is the caller's choice.
    static QString askForNew(QWidget *parent, const QString &folder);
    /// The single local file of a drag (an archive or a problem file for the window to open).
    static QString droppedFile(const QMimeData *mime);
};

} // namespace kx::ui
