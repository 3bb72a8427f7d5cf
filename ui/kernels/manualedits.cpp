#include "ui/kernels/manualedits.h"

#include "ui/common/archivereader.h"
#include "ui/common/archivesession.h"
#include "ui/common/format.h"
#include "ui/kernels/manualeditdialog.h"
#include "ui/search/searchbridge.h"

#include <optional>

namespace kx::ui {

namespace {

struct Original
{
    std::optional<Candidate> candidate;
    std::optional<Op> op;
    int generation = 0; ///< The original's generation in its run.
};

} // namespace

ManualEdits::ManualEdits(ArchiveSession *session, SearchBridge *bridge, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_session(session)
    , m_bridge(bridge)
    , m_dialogParent(dialogParent)
{
    connect(
        m_bridge, &SearchBridge::manualEvaluated, this,
        [this](const Candidate &candidate, const Evaluation &evaluation) {
            QString text =
                tr("Candidate %1 evaluated: %2").arg(Format::shortId(candidate.id), Format::status(evaluation.status));
            if (evaluation.status == EvalStatus::Correct)
                text += QStringLiteral(", ") + Format::speedup(evaluation.speedup);
            emit evaluated(candidate, evaluation);
            emit message(text);
        });
    connect(m_bridge, &SearchBridge::manualEvaluationFailed, this,
            [this](const Candidate &candidate, const QString &why, ErrorKind kind) {
                const QString text =
                    kind == ErrorKind::NoGpu
                        ? tr("Candidate %1 is stored unevaluated: there is no GPU to evaluate it on (%2).")
                              .arg(Format::shortId(candidate.id), why)
                        : tr("Candidate %1 is stored unevaluated: %2").arg(Format::shortId(candidate.id), why);
                emit storedUnevaluated(candidate, text, kind);
                emit message(text);
            });
}

void ManualEdits::open(const QString &candidateId)
{
    if (candidateId.isEmpty() || !m_session->isOpen())
        return;
    if (m_session->isReadOnly()) {
        emit errorOccurred(tr("The archive is open read-only: a new candidate cannot be stored in it."));
        return;
    }
    const std::string id = candidateId.toStdString();
    readArchiveAsync(m_session->path(), [id](const Archive &archive) {
        Original original;
        original.candidate = archive.candidate(id);
        if (!original.candidate)
            return original;
        original.op = archive.op(original.candidate->opName);
        if (original.candidate->runId)
            for (const auto &[member, memberGeneration] : archive.runGenerations(*original.candidate->runId))
                if (member == id)
                    original.generation = memberGeneration;
        return original;
    }).then(this, m_originalRead.guard([this, candidateId](const ReadResult<Original> &result) {
        if (!result.ok()) {
            emit errorOccurred(result.error);
            return;
        }
        if (!result.value.candidate || !result.value.op) {
            emit errorOccurred(tr("The candidate %1 or its op is not in the archive.").arg(candidateId.left(12)));
            return;
        }
        if (m_dialog)
            m_dialog->close();
        auto *dialog = new ManualEditDialog(*result.value.candidate, *result.value.op, m_dialogParent);
        dialog->setWindowFlag(Qt::Window);
        m_dialog = dialog;
        const Op op = *result.value.op;
        const int childGeneration = result.value.generation + 1;
        connect(dialog, &ManualEditDialog::submitted, this,
                [this, op, childGeneration](const Candidate &candidate) { store(candidate, op, childGeneration); });
        dialog->show();
        emit dialogOpened(dialog);
    }));
}

void ManualEdits::store(const Candidate &candidate, const Op &op, int generation)
{
    const Expected<bool> added = m_session->addCandidate(candidate, generation);
    if (!added) {
        if (m_dialog)
            m_dialog->showSubmitError(tr("Not stored: %1").arg(QString::fromStdString(added.error().message)));
        return;
    }
    if (!*added) {
        if (m_dialog)
            m_dialog->showSubmitError(
                tr("Not stored: this exact kernel is in the archive already (%1).").arg(Format::shortId(candidate.id)));
        return;
    }
    if (m_dialog)
        m_dialog->accept();
    emit candidateStored(candidate, generation);
    emit message(tr("Stored candidate %1; evaluating it…").arg(Format::shortId(candidate.id)));
    m_bridge->evaluateManual(op, candidate);
}

} // namespace kx::ui
