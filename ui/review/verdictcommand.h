#pragma once

#include "core/domain/verdict.h"

#include <QUndoCommand>

#include <functional>

namespace kx::ui {

class ArchiveSession;

/// Recording a verdict as an undoable step: redo stores it, undo retracts it (the archive keeps it as history).
class VerdictCommand : public QUndoCommand
{
public:
    using ErrorHandler = std::function<void(const QString &message)>;

    /// session is not owned and must outlive the command.
    VerdictCommand(ArchiveSession *session, const Verdict &verdict, ErrorHandler onError);

    void redo() override;
    void undo() override;

    /// Id of the stored verdict while it is in force (0 after undo or a failed write).
    std::int64_t verdictId() const { return m_verdictId; }

private:
    ArchiveSession *m_session; // Not owned
    Verdict m_verdict;
    ErrorHandler m_onError;
    std::int64_t m_verdictId = 0;
};

} // namespace kx::ui
