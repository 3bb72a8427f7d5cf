#include "ui/window/archivedialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMimeData>
#include <QUrl>

namespace kx::ui {
namespace {

QString archiveFileFilter()
{
    return ArchiveDialogs::tr("Kernel archives (*.kxdb);;All files (*)");
}

} // namespace

QString ArchiveDialogs::askToOpen(QWidget *parent, const QString &title, const QString &folder)
{
    return QFileDialog::getOpenFileName(parent, title, folder, archiveFileFilter());
}

QString ArchiveDialogs::askForNew(QWidget *parent, const QString &folder)
{
    QString path = QFileDialog::getSaveFileName(parent, tr("New Archive"), folder, archiveFileFilter(), nullptr,
                                                QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".kxdb");
    return path;
}

QString ArchiveDialogs::droppedFile(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().first().isLocalFile())
        return {};
    return mime->urls().first().toLocalFile();
}

} // namespace kx::ui
