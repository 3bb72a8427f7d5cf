#include "ui/search/runcostlabel.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"

namespace kx::ui {

RunCostLabel::RunCostLabel(QWidget *parent)
    : QLabel(parent)
{
    setObjectName(QStringLiteral("runCost"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
}

void RunCostLabel::showRun(const QString &archivePath, std::int64_t runId)
{
    m_archivePath = archivePath;
    m_runId = runId;
    refresh();
}

void RunCostLabel::refresh()
{
    m_read.invalidate();
    if (m_runId <= 0 || m_archivePath.isEmpty()) {
        clear();
        return;
    }
    const std::int64_t runId = m_runId;
    readArchiveAsync(m_archivePath, [runId](const Archive &archive) {
        return archive.runCost(runId);
    }).then(this, m_read.guard([this, runId](const ReadResult<RunCost> &result) {
        if (!result.ok()) {
            setText(tr("Run %1: its model costs cannot be read: %2").arg(runId).arg(result.error));
        } else if (result.value.candidates == 0) {
            setText(tr("Run %1: no candidates from models or commands.").arg(runId));
        } else {
            const RunCost &cost = result.value;
            QString text =
                tr("Run %1: %n candidate(s) from models or commands", nullptr, int(cost.candidates)).arg(runId);
            // Commands report no tokens: no "0 prompt + 0 completion tokens" for them.
            if (cost.promptTokens > 0 || cost.completionTokens > 0 || cost.cost > 0)
                text += QStringLiteral(" · ") + Format::modelUsage(cost.promptTokens, cost.completionTokens, cost.cost);
            setText(text);
        }
        emit loaded();
    }));
}

} // namespace kx::ui
