#include "ui/common/archivereader.h"

#include <QFile>

namespace kx::ui {

std::string archivePathToStd(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

ArchiveRef archiveRef(const QString &path, ArchiveMode mode)
{
    return {archivePathToStd(path), mode};
}

QString archiveFilePath(const ArchiveRef &archive)
{
    return QFile::decodeName(QByteArray::fromStdString(archive.path));
}

QString readErrorText(const std::string &message)
{
    return message.empty() ? QStringLiteral("unknown error") : QString::fromStdString(message);
}

Expected<std::unique_ptr<Archive>> openForReading(const QString &path)
{
    try {
        return Archive::open(archivePathToStd(path), ArchiveMode::ReadOnly);
    } catch (const std::exception &error) {
        return Error{error.what()};
    }
}

} // namespace kx::ui
