#pragma once

#include "ui/common/latestjob.h"

#include <QLabel>

#include <cstdint>

namespace kx::ui {

/**
 * What one stored run spent on language models and commands: how many of its candidates they made, their
 * tokens and the estimated cost, read from the archive off the GUI thread (Archive::runCost). Empty when
 * no run is shown.
 */
class RunCostLabel : public QLabel
{
    Q_OBJECT

public:
    explicit RunCostLabel(QWidget *parent = nullptr);

    /// Reads runId's cost from the archive at path (runId 0: shows nothing).
    void showRun(const QString &archivePath, std::int64_t runId);
    /// Reads the shown run again (after it grew).
    void refresh();
    std::int64_t runId() const { return m_runId; }

signals:
    /// The text was updated from the archive.
    void loaded();

private:
    QString m_archivePath;
    std::int64_t m_runId = 0;
    LatestJob m_read;
};

} // namespace kx::ui
