#include "ui/kernels/kernelexporter.h"

#include "core/archive/archive.h"
#include "ui/common/archivereader.h"
#include "ui/kernels/kernelexport.h"

#include <optional>

namespace kx::ui {

KernelExporter::KernelExporter(QObject *parent)
    : QObject(parent)
{}

void KernelExporter::exportKernel(const QString &archivePath, const QString &candidateId, const QString &parentFolder)
{
    struct Exportable
    {
        std::optional<Candidate> candidate;
        std::optional<Op> op;
        std::optional<Verdict> verdict;
    };
    const std::string id = candidateId.toStdString();
    readArchiveAsync(archivePath, [id](const Archive &archive) {
        Exportable data;
        data.candidate = archive.candidate(id);
        if (data.candidate) {
            data.op = archive.op(data.candidate->opName);
            data.verdict = archive.currentVerdict(id);
        }
        return data;
    }).then(this, [this, parentFolder, candidateId](const ReadResult<Exportable> &result) {
        QString error = result.error;
        if (error.isEmpty() && (!result.value.candidate || !result.value.op))
            error = tr("The candidate %1 or its op is not in the archive.").arg(candidateId.left(12));
        if (error.isEmpty()) {
            auto written = KernelExport::write(*result.value.candidate, *result.value.op, result.value.verdict,
                                               parentFolder);
            if (written) {
                emit exported(written->folder);
                return;
            }
            error = QString::fromStdString(written.error().message);
        }
        emit failed(error);
    });
}

} // namespace kx::ui
