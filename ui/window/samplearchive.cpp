#include "ui/window/samplearchive.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/archivelocation.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <fstream>

namespace kx::ui {

QString SampleArchive::exportFile()
{
    const QStringList candidates{
        QDir(QCoreApplication::applicationDirPath())
            .filePath(QStringLiteral("../share/kernel-explorer/sample-archive.json")),
        QStringLiteral(KX_SOURCE_SAMPLE_EXPORT),
    };
    for (const QString &candidate : candidates)
        if (QFileInfo(candidate).isFile())
            return QDir::cleanPath(candidate);
    return {};
}

QString SampleArchive::archivePath()
{
    return QFileInfo(QString::fromStdString(defaultArchivePath())).dir().filePath(QStringLiteral("sample.kxdb"));
}

QString SampleArchive::prepare(QString *error)
{
    const QString path = archivePath();
    if (QFileInfo::exists(path))
        return path;
    const QString source = exportFile();
    if (source.isEmpty()) {
        *error = QCoreApplication::translate("kx::ui::SampleArchive", "The sample archive is not installed.");
        return {};
    }
    const auto fail = [&](const QString &why) {
        for (const QString &file : {path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")})
            QFile::remove(file);
        *error =
            QCoreApplication::translate("kx::ui::SampleArchive", "The sample archive could not be made from %1: %2")
                .arg(QDir::toNativeSeparators(source), why);
        return QString();
    };
    if (!ensureParentFolder(QFile::encodeName(path).toStdString()))
        return fail(QCoreApplication::translate("kx::ui::SampleArchive", "cannot create the folder of %1").arg(path));
    nlohmann::json document;
    try {
        std::ifstream in(QFile::encodeName(source).toStdString());
        document = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &exception) {
        return fail(QString::fromUtf8(exception.what()));
    }
    auto archive = Archive::open(QFile::encodeName(path).toStdString());
    if (!archive)
        return fail(QString::fromStdString(archive.error().message));
    if (const auto imported = importArchive(**archive, document); !imported) {
        archive->reset();
        return fail(QString::fromStdString(imported.error().message));
    }
    return path;
}

} // namespace kx::ui
