#pragma once

#include "ui/common/latestjob.h"
#include "ui/proposers/proposerconfig.h"

#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/search/searchengine.h"
#include "core/util/expected.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace kx::ui {

class BaselineSettingsEditor;
class ProposerSettingsDialog;
class RunCostLabel;
class SearchBridge;
class SecretStore;
class WorkersList;
class WorkerPlacementEditor;

/// The run controls dock: the op, the proposer, budget and breeding settings, GPUs, the baselines (precision
/// policy, torch.compile, re-timing), Start / Pause / Resume / Stop / Continue, progress with counts, model
/// tokens and cost and an ETA, the stored model cost of the selected run, the workers and the run's log. All
/// actions go through the SearchBridge.
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
    void setDevicesText(const QString &text);

    /// The proposer of the next run, as saved in the settings (QSettings) and shown in the summary line.
    ProposerConfig proposerConfig() const { return m_proposer; }
    void setProposerConfig(const ProposerConfig &config);
    /// Where API keys are kept; by default the system keychain. @p store is not owned.
    void setSecretStore(SecretStore *store);
    SecretStore *secretStore() const { return m_secrets; }
    /// Opens Proposer Settings (not modal to the event loop: the dialog is returned, deleted on close);
    /// accepting it saves the settings and updates the summary.
    ProposerSettingsDialog *showProposerSettings();
    QAction *proposerSettingsAction() const { return m_proposerSettingsAction; }
    QString proposerSummaryText() const;

    /// Starts a search; with a keychain key the key is read first and the search starts when it is there.
    /// False when it cannot begin (the message says why).
    bool startSearch();
    bool continueSelectedRun();

    QAction *startAction() const { return m_startAction; }
    QAction *pauseAction() const { return m_pauseAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    QAction *stopAction() const { return m_stopAction; }
    QAction *continueAction() const { return m_continueAction; }
    QString messageText() const;
    QString countsText() const;
    /// The stored model tokens and cost of the selected run.
    QString runCostText() const;
    /// The run's log (a tab beside the workers): notes of the search (how the baselines are timed, what could not
    /// be prepared), and when runs started and ended.
    QString logText() const;
    /// The log tab's title, with the number of lines added while it was not shown.
    QString logTitle() const;
    WorkersList *workersList() const { return m_workers; }

signals:
    void chooseOpRequested();

private:
    /// Runs start with the proposer settings, the API key read from the keychain when the config says so.
    bool withProposer(std::function<bool(const ProposerSettings &)> start);
    void updateProposerSummary();
    /// Hands the bridge the worker command of the field; false when it cannot be split (said, when starting).
    bool applyWorkerCommand(bool starting);
    /// The GPUs a start or continue uses, with the worker command applied; nullopt (and a message) when either
    /// is wrong.
    std::optional<std::vector<int>> devicesToStart();
    /// The worker field's hint follows where workers run.
    void updateWorkerFields();
    void updateActions();
    void updateProgress();
    void showMessage(const QString &text, bool warning = false);
    void appendLog(const QString &text);
    void updateLogTitle();

    SearchBridge *m_bridge; // Not owned
    SecretStore *m_secrets; // Not owned (the default one is a child)
    ProposerConfig m_proposer;
    LatestJob m_keyRead; // Stop drops a read still running.
    bool m_readingKey = false;
    std::optional<Op> m_op;
    std::int64_t m_selectedRun = 0;
    RunState m_selectedRunState = RunState::Created;

    QLabel *m_opLabel;
    QLabel *m_proposerLabel;
    QSpinBox *m_generations;
    QSpinBox *m_candidates;
    QSpinBox *m_minutes;
    QSpinBox *m_noImprovement;
    QSpinBox *m_seed;
    QSpinBox *m_children;
    QLineEdit *m_devices;
    QLineEdit *m_worker;                // Empty: this computer's kx worker.
    WorkerPlacementEditor *m_placement; // This computer, SSH hosts or Slurm jobs.
    BaselineSettingsEditor *m_baselines;
    QProgressBar *m_progress;
    QLabel *m_counts;
    QLabel *m_eta;
    RunCostLabel *m_runCost;
    QLabel *m_message;
    QPlainTextEdit *m_log;
    WorkersList *m_workers;
    QTabWidget *m_tabs;    // The workers and the log.
    int m_unreadNotes = 0; // Log lines added while the log was not shown.
    QAction *m_startAction;
    QAction *m_pauseAction;
    QAction *m_resumeAction;
    QAction *m_stopAction;
    QAction *m_continueAction;
    QAction *m_proposerSettingsAction;
    QPointer<ProposerSettingsDialog> m_settingsDialog;
};

} // namespace kx::ui
