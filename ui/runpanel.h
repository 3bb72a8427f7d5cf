#pragma once

#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/search/searchengine.h"
#include "core/util/expected.h"

#include <QWidget>

#include <optional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace kx::ui {

class SearchBridge;
class WorkersList;

/// The run controls dock: the op, budget and breeding settings, GPUs, Start / Pause / Resume / Stop /
/// Continue, progress with counts and an ETA, and the workers. All actions go through the SearchBridge.
class RunPanel : public QWidget
{
    Q_OBJECT

public:
    explicit RunPanel(SearchBridge *bridge, QWidget *parent = nullptr);

    void setOp(const std::optional<Op> &op);
    std::optional<Op> op() const { return m_op; }
    /// The run selected elsewhere (the lineage page), which Continue continues.
    void setSelectedRun(std::int64_t runId, RunState state);

    SearchSettings settings() const;
    void setSettings(const SearchSettings &settings);
    /// "" or "all": every GPU; else a comma-separated list of device numbers.
    static Expected<std::vector<int>> parseDevices(const QString &text);
    void setDevicesText(const QString &text);

    bool startSearch();
    bool continueSelectedRun();

    QAction *startAction() const { return m_startAction; }
    QAction *pauseAction() const { return m_pauseAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    QAction *stopAction() const { return m_stopAction; }
    QAction *continueAction() const { return m_continueAction; }
    QString messageText() const;
    QString countsText() const;
    WorkersList *workersList() const { return m_workers; }

signals:
    void chooseOpRequested();

private:
    void updateActions();
    void updateProgress();
    void showMessage(const QString &text, bool warning = false);

    SearchBridge *m_bridge; // Not owned
    std::optional<Op> m_op;
    std::int64_t m_selectedRun = 0;
    RunState m_selectedRunState = RunState::Created;

    QLabel *m_opLabel;
    QSpinBox *m_generations;
    QSpinBox *m_candidates;
    QSpinBox *m_minutes;
    QSpinBox *m_noImprovement;
    QSpinBox *m_seed;
    QSpinBox *m_children;
    QLineEdit *m_devices;
    QProgressBar *m_progress;
    QLabel *m_counts;
    QLabel *m_eta;
    QLabel *m_message;
    WorkersList *m_workers;
    QAction *m_startAction;
    QAction *m_pauseAction;
    QAction *m_resumeAction;
    QAction *m_stopAction;
    QAction *m_continueAction;
};

} // namespace kx::ui
