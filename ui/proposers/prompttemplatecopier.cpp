#include "ui/proposers/prompttemplatecopier.h"

#include "core/propose/promptbuilder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace kx::ui {

PromptTemplateCopier::Result PromptTemplateCopier::copyTo(const QString &folder)
{
    Result result;
    const auto source = PromptTemplates::findDir();
    if (!source) {
        result.error = QString::fromStdString(source.error().message);
        return result;
    }
    const QDir from(QFile::decodeName(QByteArray::fromStdString(*source)));
    QDir to(folder);
    if (!to.mkpath(QStringLiteral("."))) {
        result.error = tr("Cannot create the folder %1.").arg(QDir::toNativeSeparators(folder));
        return result;
    }
    for (const QString &name : from.entryList({QStringLiteral("*.txt")}, QDir::Files, QDir::Name)) {
        if (QFileInfo::exists(to.filePath(name))) {
            ++result.kept;
            continue;
        }
        if (!QFile::copy(from.filePath(name), to.filePath(name))) {
            result.error = tr("Cannot copy %1 to %2.").arg(name, QDir::toNativeSeparators(folder));
            return result;
        }
        // Installed files can be read-only; the copies are there to be edited.
        QFile::setPermissions(to.filePath(name), QFile::permissions(to.filePath(name)) | QFileDevice::WriteOwner);
        ++result.copied;
    }
    return result;
}

} // namespace kx::ui
