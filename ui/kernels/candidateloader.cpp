#include "ui/kernels/candidateloader.h"

#include "ui/common/archivereader.h"

namespace kx::ui {

CandidateLoader::CandidateLoader(QObject *parent)
    : QObject(parent)
{}

void CandidateLoader::load(const QString &archivePath, const QString &candidateId)
{
    if (archivePath.isEmpty() || candidateId.isEmpty()) {
        clear();
        return;
    }
    m_candidateId = candidateId;
    const std::string id = candidateId.toStdString();
    readArchiveAsync(archivePath, [id](const Archive &archive) {
        std::optional<CandidateDetails> details;
        std::optional<Candidate> candidate = archive.candidate(id);
        if (!candidate)
            return details;
        details.emplace();
        details->op = archive.op(candidate->opName);
        details->opSourceText = archive.opSourceText(candidate->opName);
        details->evaluations = archive.evaluations(id);
        details->verdicts = archive.verdicts(id);
        details->currentVerdict = archive.currentVerdict(id);
        details->candidate = std::move(*candidate);
        details->candidate.provenance = archive.provenance(id);
        return details;
    }).then(this, m_load.guard([this, candidateId](const ReadResult<std::optional<CandidateDetails>> &result) {
        if (!result.ok())
            emit failed(candidateId, result.error);
        else if (!result.value)
            emit failed(candidateId, tr("The candidate %1 is not in the archive.").arg(candidateId));
        else
            emit loaded(*result.value);
    }));
}

void CandidateLoader::clear()
{
    m_load.invalidate();
    m_candidateId.clear();
    emit cleared();
}

} // namespace kx::ui
