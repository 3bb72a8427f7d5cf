#pragma once

#include "ui/common/latestjob.h"
#include "ui/kernels/manualeditdialog.h"

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/util/expected.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace kx::ui {

class ArchiveSession;
class SearchBridge;

/**
 * "New candidate from this one": reads the original and its op off the GUI thread, opens the edit dialog,
 * stores what the user submits as a Manual child of the original (in its run) through the ArchiveSession,
 * and has the SearchBridge evaluate it: on the running search's workers, or on workers started for it alone.
 * Without a GPU the candidate stays stored, unevaluated, and the message says so.
 */
class ManualEdits : public QObject
{
    Q_OBJECT

public:
    ManualEdits(ArchiveSession *session, SearchBridge *bridge, QWidget *dialogParent);

    /// Opens the edit dialog on a copy of the candidate (asynchronously: dialogOpened follows).
    void open(const QString &candidateId);
    ManualEditDialog *dialog() const { return m_dialog; }

signals:
    void dialogOpened(kx::ui::ManualEditDialog *dialog);
    /// The new candidate is in the archive; generation is its place in the run's lineage.
    void candidateStored(const kx::Candidate &candidate, int generation);
    void evaluated(const kx::Candidate &candidate, const kx::Evaluation &evaluation);
    /// Stored, but not evaluated (kind NoGpu: there was no GPU to evaluate it on).
    void storedUnevaluated(const kx::Candidate &candidate, const QString &message, kx::ErrorKind kind);
    /// For the status bar.
    void message(const QString &text);
    void errorOccurred(const QString &message);

private:
    void store(const Candidate &candidate, const Op &op, int generation);

    ArchiveSession *m_session; // Not owned
    SearchBridge *m_bridge;    // Not owned
    QWidget *m_dialogParent;   // Not owned
    QPointer<ManualEditDialog> m_dialog;
    LatestJob m_originalRead;
};

} // namespace kx::ui
