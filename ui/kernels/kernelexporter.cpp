#include "ui/kernels/kernelexporter.h"

#include "core/archive/archive.h"
#include "core/export/kernelexport.h"
#include "ui/common/archivereader.h"

#include <QFile>

namespace kx::ui {

KernelExporter::KernelExporter(QObject *parent)
    : QObject(parent)
{}

void KernelExporter::exportKernel(const QString &archivePath, const QString &candidateId, const QString &parentFolder)
{
    struct Outcome
    {
        bool found = false; ///< The candidate and its op are in the archive.
        std::string folder; ///< Where the export went; empty when it failed.
        std::string error;
    };
    const std::string id = candidateId.toStdString();
    const std::string parent = QFile::encodeName(parentFolder).toStdString();
    // Reading and writing both happen on the pool thread; only the signal comes back to the GUI thread.
    readArchiveAsync(archivePath, [id, parent](const Archive &archive) {
        Outcome outcome;
        const auto candidate = archive.candidate(id);
        const auto op = candidate ? archive.op(candidate->opName) : std::nullopt;
        if (!candidate || !op)
            return outcome;
        outcome.found = true;
        // As before kx export existed: exporting a kernel again replaces the files of its folder.
        const auto written =
            kx::exportKernel(*candidate, *op, archive.currentVerdict(id), parent, ExistingFolder::ReplaceFiles);
        if (written)
            outcome.folder = written->folder;
        else
            outcome.error = written.error().message;
        return outcome;
    }).then(this, [this, candidateId](const ReadResult<Outcome> &result) {
        QString error = result.error;
        if (error.isEmpty() && !result.value.found)
            error = tr("The candidate %1 or its op is not in the archive.").arg(candidateId.left(12));
        if (error.isEmpty() && result.value.error.empty()) {
            emit exported(QFile::decodeName(QByteArray::fromStdString(result.value.folder)));
            return;
        }
        emit failed(error.isEmpty() ? QString::fromStdString(result.value.error) : error);
    });
}

} // namespace kx::ui
