#include "ui/search/runpanel.h"

#include "ui/common/archivereader.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/proposers/keychainsecretstore.h"
#include "ui/proposers/proposersettingsdialog.h"
#include "ui/proposers/sessionfallbacksecretstore.h"
#include "ui/search/baselinesettingseditor.h"
#include "ui/search/runcostlabel.h"
#include "ui/search/searchbridge.h"
#include "ui/search/workerplacementeditor.h"
#include "ui/search/workerslist.h"

#include "core/plan/devicelist.h"
#include "core/util/commandline.h"

#include <QAction>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTime>
#include <QToolButton>
#include <QVBoxLayout>

#include <climits>
#include <cmath>
#include <set>

namespace kx::ui {

namespace {

// The worker command outlives the session, like the proposer settings.
const QString kWorkerCommandKey = QStringLiteral("search/workerCommand");

QSpinBox *spinBox(int minimum, int maximum, const QString &zeroText, QWidget *parent)
{
    auto *box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    if (!zeroText.isEmpty())
        box->setSpecialValueText(zeroText);
    box->setAccelerated(true);
    return box;
}

QString duration(double seconds)
{
    const qint64 s = qint64(std::llround(seconds));
    if (s < 60)
        return RunPanel::tr("%1 s").arg(s);
    if (s < 3600)
        return RunPanel::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return RunPanel::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QPushButton *button(QAction *action, QWidget *parent)
{
    auto *b = new QPushButton(action->icon(), action->iconText(), parent);
    b->setToolTip(action->toolTip());
    b->setEnabled(action->isEnabled());
    QObject::connect(b, &QPushButton::clicked, action, &QAction::trigger);
    QObject::connect(action, &QAction::changed, b, [b, action] { b->setEnabled(action->isEnabled()); });
    return b;
}

} // namespace

RunPanel::RunPanel(SearchBridge *bridge, QWidget *parent)
    : QWidget(parent)
    , m_bridge(bridge)
    // Keys go to the system keychain; where there is none they are kept for this session only.
    , m_secrets(new SessionFallbackSecretStore(new KeychainSecretStore(QString(), this), this))
    , m_proposer(ProposerConfig::load(QSettings()))
    , m_opLabel(new QLabel(this))
    , m_proposerLabel(new QLabel(this))
    , m_generations(spinBox(0, 100000, tr("no limit"), this))
    , m_candidates(spinBox(0, 10000000, tr("no limit"), this))
    , m_minutes(spinBox(0, 100000, tr("no limit"), this))
    , m_noImprovement(spinBox(0, 100000, tr("never"), this))
    , m_seed(spinBox(0, INT_MAX, QString(), this))
    , m_children(spinBox(1, 1024, QString(), this))
    , m_devices(new QLineEdit(this))
    , m_worker(new QLineEdit(this))
    , m_placement(new WorkerPlacementEditor(this))
    , m_baselines(new BaselineSettingsEditor(this))
    , m_progress(new QProgressBar(this))
    , m_counts(new QLabel(this))
    , m_eta(new QLabel(this))
    , m_runCost(new RunCostLabel(this))
    , m_message(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
    , m_workers(new WorkersList(this))
    , m_tabs(new QTabWidget(this))
    , m_startAction(new QAction(icon(QStringLiteral("search-start")), tr("&Start Search"), this))
    , m_pauseAction(new QAction(icon(QStringLiteral("search-pause")), tr("&Pause"), this))
    , m_resumeAction(new QAction(icon(QStringLiteral("search-resume")), tr("&Resume"), this))
    , m_stopAction(new QAction(icon(QStringLiteral("search-stop")), tr("S&top"), this))
    , m_continueAction(new QAction(icon(QStringLiteral("search-continue")), tr("&Continue Run"), this))
    , m_proposerSettingsAction(new QAction(icon(QStringLiteral("proposer-settings")), tr("Pro&poser Settings…"), this))
{
    setObjectName(QStringLiteral("runPanel"));
    m_opLabel->setObjectName(QStringLiteral("runOp"));
    m_opLabel->setWordWrap(true);
    m_proposerLabel->setObjectName(QStringLiteral("runProposer"));
    m_proposerLabel->setWordWrap(true);
    m_proposerLabel->setTextFormat(Qt::PlainText);
    m_minutes->setSuffix(tr(" min"));
    m_generations->setObjectName(QStringLiteral("budgetGenerations"));
    m_candidates->setObjectName(QStringLiteral("budgetCandidates"));
    m_minutes->setObjectName(QStringLiteral("budgetMinutes"));
    m_noImprovement->setObjectName(QStringLiteral("budgetNoImprovement"));
    m_seed->setObjectName(QStringLiteral("searchSeed"));
    m_children->setObjectName(QStringLiteral("searchChildren"));
    m_devices->setObjectName(QStringLiteral("searchGpus"));
    m_devices->setPlaceholderText(tr("all"));
    m_devices->setToolTip(tr("GPUs to search on: empty for all, or device numbers such as 0,1"));
    m_worker->setObjectName(QStringLiteral("searchWorker"));
    m_worker->setPlaceholderText(tr("kx worker on this computer"));
    m_worker->setToolTip(tr("The program started once per GPU, with --device N added; written as in a shell. "
                            "Empty: this computer's kx worker. For GPUs reachable by SSH: ssh gpu-box kx worker"));
    m_worker->setText(QSettings().value(kWorkerCommandKey).toString());
    connect(m_worker, &QLineEdit::editingFinished, this,
            [this] { QSettings().setValue(kWorkerCommandKey, m_worker->text().trimmed()); });
    // The bridge follows the field (manual evaluations use it too); a command that cannot be split is reported
    // when a search starts.
    connect(m_worker, &QLineEdit::textChanged, this, [this] { applyWorkerCommand(false); });
    connect(m_placement, &WorkerPlacementEditor::kindChanged, this, [this] {
        updateWorkerFields();
        applyWorkerCommand(false);
    });
    if (!m_worker->text().isEmpty() || m_placement->kind() != WorkerPlacement::Kind::Local)
        applyWorkerCommand(false);
    m_counts->setObjectName(QStringLiteral("runCounts"));
    m_counts->setWordWrap(true);
    m_eta->setObjectName(QStringLiteral("runEta"));
    m_message->setObjectName(QStringLiteral("runMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_progress->setTextVisible(true);
    m_log->setObjectName(QStringLiteral("runLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(500);
    m_log->setPlaceholderText(tr("Notes of the run: how the baselines are timed, what could not be prepared."));
    // The workers and the notes share the bottom of the dock: it is short of height on a laptop screen.
    m_tabs->setObjectName(QStringLiteral("runTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_workers, tr("Workers"));
    m_tabs->addTab(m_log, QString());
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_log)
            m_unreadNotes = 0;
        updateLogTitle();
    });
    updateLogTitle();
    // The baselines keep their stored settings; the rest starts from core's defaults.
    SearchSettings initial;
    m_baselines->settings().applyTo(initial.eval);
    setSettings(initial);

    // F5 is Reload (QKeySequence::Refresh) in the main window.
    m_startAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_startAction->setToolTip(tr("Start a search on the chosen op (Ctrl+R)"));
    m_pauseAction->setShortcut(QKeySequence(Qt::Key_F6));
    m_pauseAction->setToolTip(tr("Pause after the current evaluations (F6)"));
    m_resumeAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F6));
    m_resumeAction->setToolTip(tr("Resume the paused search (Shift+F6)"));
    m_stopAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    m_stopAction->setToolTip(tr("Stop after the evaluations in flight; the run can be continued (Shift+F5)"));
    m_continueAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));
    m_continueAction->setToolTip(tr("Continue the run selected in the lineage with its own settings (Ctrl+F5)"));
    m_startAction->setObjectName(QStringLiteral("startSearchAction"));
    m_pauseAction->setObjectName(QStringLiteral("pauseSearchAction"));
    m_resumeAction->setObjectName(QStringLiteral("resumeSearchAction"));
    m_stopAction->setObjectName(QStringLiteral("stopSearchAction"));
    m_continueAction->setObjectName(QStringLiteral("continueRunAction"));
    // The application's settings are the proposer's: they take the usual Preferences shortcut.
    m_proposerSettingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_proposerSettingsAction->setMenuRole(QAction::PreferencesRole);
    connect(m_startAction, &QAction::triggered, this, &RunPanel::startSearch);
    connect(m_pauseAction, &QAction::triggered, m_bridge, &SearchBridge::pause);
    connect(m_resumeAction, &QAction::triggered, m_bridge, &SearchBridge::resume);
    m_proposerSettingsAction->setObjectName(QStringLiteral("proposerSettingsAction"));
    m_proposerSettingsAction->setToolTip(
        tr("Choose who proposes candidates: templates, a language model, a command "
           "or a mix (%1)")
            .arg(m_proposerSettingsAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_stopAction, &QAction::triggered, this, [this] {
        if (m_readingKey) {
            m_keyRead.invalidate(); // The search starts when the key arrives: drop it instead.
            m_readingKey = false;
            showMessage(tr("Stopped before the search began."));
            updateActions();
            return;
        }
        m_bridge->cancel();
    });
    connect(m_proposerSettingsAction, &QAction::triggered, this, &RunPanel::showProposerSettings);
    connect(m_continueAction, &QAction::triggered, this, &RunPanel::continueSelectedRun);

    connect(m_bridge, &SearchBridge::stateChanged, this, [this] {
        updateActions();
        updateProgress();
    });
    connect(m_bridge, &SearchBridge::progressChanged, this, &RunPanel::updateProgress);
    connect(m_bridge, &SearchBridge::workersChanged, this, [this] { m_workers->setWorkers(m_bridge->workers()); });
    connect(m_bridge, &SearchBridge::started, this, [this](qint64 runId) {
        showMessage(tr("Searching: run %1.").arg(runId));
        appendLog(tr("Run %1 started.").arg(runId));
    });
    connect(m_bridge, &SearchBridge::noteAdded, this, &RunPanel::appendLog);
    connect(m_bridge, &SearchBridge::startFailed, this, [this](const QString &message, ErrorKind kind) {
        if (kind == ErrorKind::Cancelled)
            showMessage(message); // the user stopped it: no error
        else if (kind == ErrorKind::NoGpu)
            showMessage(tr("No GPU to search on: %1\nBrowsing the archive still works.").arg(message), true);
        else
            showMessage(tr("The search could not start: %1").arg(message), true);
    });
    connect(m_bridge, &SearchBridge::errorOccurred, this, [this](const QString &message) {
        showMessage(message, true);
        appendLog(message);
    });
    connect(m_bridge, &SearchBridge::finished, this, [this](RunState state, const QString &reason) {
        switch (state) {
        case RunState::Finished: showMessage(tr("Finished: %1.").arg(reason)); break;
        case RunState::Cancelled: showMessage(tr("Stopped. Continue the run to go on from here.")); break;
        default: showMessage(tr("The search failed: %1").arg(reason), true); break;
        }
        appendLog(m_message->text());
        updateProgress();
        m_runCost->refresh();
    });

    auto *opRow = new QHBoxLayout;
    opRow->addWidget(m_opLabel, 1);
    auto *choose = new QToolButton(this);
    choose->setText(tr("Choose…"));
    choose->setIcon(icon(QStringLiteral("op-open")));
    choose->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    choose->setToolTip(tr("Open an op (Ctrl+Shift+O)"));
    connect(choose, &QToolButton::clicked, this, &RunPanel::chooseOpRequested);
    opRow->addWidget(choose);

    auto *proposerRow = new QHBoxLayout;
    proposerRow->addWidget(m_proposerLabel, 1);
    auto *proposerButton = new QToolButton(this);
    proposerButton->setObjectName(QStringLiteral("runProposerSettings"));
    proposerButton->setText(tr("Settings…"));
    proposerButton->setIcon(m_proposerSettingsAction->icon());
    proposerButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    proposerButton->setToolTip(m_proposerSettingsAction->toolTip());
    connect(proposerButton, &QToolButton::clicked, m_proposerSettingsAction, &QAction::trigger);
    connect(m_proposerSettingsAction, &QAction::changed, proposerButton,
            [proposerButton, this] { proposerButton->setEnabled(m_proposerSettingsAction->isEnabled()); });
    proposerRow->addWidget(proposerButton);

    // The budget in two columns: the dock is short of height, not of width.
    auto *budget = new QGroupBox(tr("Budget"), this);
    auto *budgetGrid = new QGridLayout(budget);
    const std::pair<QString, QSpinBox *> limits[] = {{tr("&Generations:"), m_generations},
                                                     {tr("C&andidates:"), m_candidates},
                                                     {tr("&Time:"), m_minutes},
                                                     {tr("&No improvement for:"), m_noImprovement}};
    for (int i = 0; i < int(std::size(limits)); ++i) {
        auto *label = new QLabel(limits[i].first, budget);
        label->setBuddy(limits[i].second);
        budgetGrid->addWidget(label, i / 2, (i % 2) * 2);
        budgetGrid->addWidget(limits[i].second, i / 2, (i % 2) * 2 + 1);
    }
    budgetGrid->setColumnStretch(1, 1);
    budgetGrid->setColumnStretch(3, 1);

    auto *breeding = new QGroupBox(tr("Search"), this);
    auto *breedingForm = new QFormLayout(breeding);
    breedingForm->addRow(tr("S&eed:"), m_seed);
    breedingForm->addRow(tr("C&hildren per generation:"), m_children);
    // Where workers run shares the GPUs row: this computer's GPU list, the SSH hosts or the Slurm request.
    m_placement->setLocalField(m_devices);
    breedingForm->addRow(tr("G&PUs:"), m_placement);
    breedingForm->addRow(tr("Wor&ker:"), m_worker);
    m_baselines->addRows(breedingForm);

    auto *buttons = new QHBoxLayout;
    for (QAction *action : {m_startAction, m_pauseAction, m_resumeAction, m_stopAction, m_continueAction})
        buttons->addWidget(button(action, this));
    buttons->addStretch();

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(opRow);
    layout->addLayout(proposerRow);
    layout->addWidget(budget);
    layout->addWidget(breeding);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_counts);
    layout->addWidget(m_eta);
    layout->addWidget(m_runCost);
    layout->addWidget(m_message);
    layout->addWidget(m_tabs, 1);

    setOp(std::nullopt);
    updateProposerSummary();
    updateProgress();
}

void RunPanel::setOp(const std::optional<Op> &op)
{
    m_op = op;
    m_opLabel->setText(
        op ? tr("<b>%1</b> — %2")
                 .arg(Format::text(op->name).toHtmlEscaped(), Format::text(op->description).toHtmlEscaped())
           : tr("No op chosen: File ▸ Open Op…"));
    updateActions();
}

void RunPanel::setSelectedRun(std::int64_t runId, RunState state)
{
    m_selectedRun = runId;
    m_selectedRunState = state;
    m_runCost->showRun(archiveFilePath(m_bridge->archive()), runId);
    updateActions();
}

SearchSettings RunPanel::settings() const
{
    SearchSettings settings;
    settings.seed = std::uint64_t(m_seed->value());
    settings.childrenPerGeneration = m_children->value();
    settings.budget.generations = m_generations->value();
    settings.budget.candidates = m_candidates->value();
    settings.budget.seconds = m_minutes->value() * 60.0;
    settings.budget.noImprovement = m_noImprovement->value();
    m_baselines->settings().applyTo(settings.eval);
    return settings;
}

void RunPanel::setSettings(const SearchSettings &settings)
{
    m_seed->setValue(int(std::min<std::uint64_t>(settings.seed, INT_MAX)));
    m_children->setValue(settings.childrenPerGeneration);
    m_generations->setValue(settings.budget.generations);
    m_candidates->setValue(settings.budget.candidates);
    m_minutes->setValue(int(std::ceil(settings.budget.seconds / 60.0)));
    m_noImprovement->setValue(settings.budget.noImprovement);
    m_baselines->setSettings(BaselineSettings::of(settings.eval));
}

void RunPanel::setDevicesText(const QString &text)
{
    m_devices->setText(text);
}

void RunPanel::setProposerConfig(const ProposerConfig &config)
{
    m_proposer = config;
    m_proposer.settings.llm.apiKey.clear();
    QSettings store;
    m_proposer.save(store);
    updateProposerSummary();
}

void RunPanel::setSecretStore(SecretStore *store)
{
    m_secrets = store;
}

ProposerSettingsDialog *RunPanel::showProposerSettings()
{
    if (m_settingsDialog && m_settingsDialog->isVisible()) {
        m_settingsDialog->raise();
        m_settingsDialog->activateWindow();
        return m_settingsDialog;
    }
    m_settingsDialog = new ProposerSettingsDialog(m_proposer, m_secrets, this);
    m_settingsDialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_settingsDialog, &QDialog::accepted, this, [this, dialog = m_settingsDialog] {
        if (dialog)
            setProposerConfig(dialog->config());
    });
    m_settingsDialog->open();
    return m_settingsDialog;
}

QString RunPanel::proposerSummaryText() const
{
    return m_proposerLabel->text();
}

void RunPanel::updateProposerSummary()
{
    m_proposerLabel->setText(tr("Proposer: %1").arg(m_proposer.summary()));
    QStringList details;
    if (m_proposer.usesModel())
        details << tr("Endpoint: %1").arg(QString::fromStdString(m_proposer.settings.llm.endpoint))
                << m_proposer.keyDescription();
    if (m_proposer.usesCommand())
        details << tr("Command: %1").arg(QString::fromStdString(m_proposer.settings.command.command));
    m_proposerLabel->setToolTip(details.join(QLatin1Char('\n')));
}

bool RunPanel::withProposer(std::function<bool(const ProposerSettings &)> start)
{
    if (m_readingKey)
        return false;
    const ProposerConfig config = m_proposer;
    if (!config.needsKeychainKey())
        return start(config.settings);
    if (!m_secrets) {
        showMessage(tr("The search could not start: %1")
                        .arg(SecretStore::describe({SecretResult::Status::Unavailable, {}, {}})),
                    true);
        return false;
    }
    m_readingKey = true;
    updateActions();
    showMessage(tr("Reading the API key from the system keychain…"));
    m_secrets->read(ProposerConfig::keychainEntry(), this,
                    m_keyRead.guard([this, config, start = std::move(start)](const SecretResult &result) {
                        m_readingKey = false;
                        updateActions();
                        if (!result.ok() || result.secret.isEmpty()) {
                            SecretResult missing = result;
                            if (result.ok())
                                missing.status = SecretResult::Status::NotFound;
                            showMessage(tr("The search could not start: %1").arg(SecretStore::describe(missing)), true);
                            return;
                        }
                        ProposerSettings settings = config.settings;
                        settings.llm.apiKey = result.secret.toStdString();
                        start(settings);
                    }));
    return true;
}

bool RunPanel::applyWorkerCommand(bool starting)
{
    const QString text = m_worker->text().trimmed();
    QStringList command;
    if (!text.isEmpty()) {
        const auto words = splitCommandLine(text.toStdString());
        if (!words) {
            if (starting)
                showMessage(tr("Worker: %1").arg(QString::fromStdString(words.error().message)), true);
            return false;
        }
        for (const auto &word : *words)
            command << QString::fromStdString(word);
    }
    if (m_placement->kind() != WorkerPlacement::Kind::Local) {
        // On SSH hosts and Slurm nodes the field is the worker command there (empty: kx worker).
        const auto placement = m_placement->placement(command);
        if (!placement) {
            if (starting)
                showMessage(QString::fromStdString(placement.error().message), true);
            return false;
        }
        m_bridge->setPlacement(*placement);
        return true;
    }
    m_bridge->setPlacement(std::nullopt);
    if (command.isEmpty()) {
        // At a start an empty field leaves the bridge as it is: the default, unless a caller set another.
        if (!starting)
            m_bridge->setWorkerCommand(SearchBridge::defaultWorkerCommand());
        return true;
    }
    m_bridge->setWorkerCommand(command);
    return true;
}

void RunPanel::updateWorkerFields()
{
    const bool local = m_placement->kind() == WorkerPlacement::Kind::Local;
    m_worker->setPlaceholderText(local ? tr("kx worker on this computer") : tr("kx worker on the hosts"));
}

std::optional<std::vector<int>> RunPanel::devicesToStart()
{
    const auto devices = parseDeviceList(m_devices->text().toStdString());
    if (!devices) {
        showMessage(QString::fromStdString(devices.error().message), true);
        return std::nullopt;
    }
    if (!applyWorkerCommand(true))
        return std::nullopt;
    return *devices;
}

bool RunPanel::startSearch()
{
    if (!m_op) {
        showMessage(tr("Choose an op first (File ▸ Open Op…)."), true);
        return false;
    }
    const auto devices = devicesToStart();
    if (!devices)
        return false;
    return withProposer(
        [this, op = *m_op, settings = settings(), devices = *devices](const ProposerSettings &proposer) {
            showMessage(tr("Starting the GPU workers…"));
            m_bridge->setProposerSettings(proposer);
            return m_bridge->start(op, settings, devices);
        });
}

bool RunPanel::continueSelectedRun()
{
    if (m_selectedRun <= 0) {
        showMessage(tr("Select a run in the lineage first."), true);
        return false;
    }
    const auto devices = devicesToStart();
    if (!devices)
        return false;
    // Runs do not store their proposer: a continued run uses the current one.
    return withProposer([this, runId = m_selectedRun, devices = *devices,
                         seconds = m_minutes->value() * 60.0](const ProposerSettings &proposer) {
        showMessage(tr("Starting the GPU workers to continue run %1…").arg(runId));
        m_bridge->setProposerSettings(proposer);
        return m_bridge->continueRun(runId, devices, seconds);
    });
}

void RunPanel::updateActions()
{
    const SearchBridge::State state = m_bridge->state();
    const bool idle = state == SearchBridge::State::Idle && !m_readingKey;
    m_startAction->setEnabled(idle && m_op.has_value());
    m_pauseAction->setEnabled(state == SearchBridge::State::Running);
    m_resumeAction->setEnabled(state == SearchBridge::State::Paused);
    m_stopAction->setEnabled(m_readingKey || state == SearchBridge::State::Starting
                             || state == SearchBridge::State::Running || state == SearchBridge::State::Paused);
    m_proposerSettingsAction->setEnabled(idle);
    m_continueAction->setEnabled(idle && m_selectedRun > 0 && m_selectedRunState != RunState::Created);
    for (QWidget *field : std::initializer_list<QWidget *>{m_generations, m_candidates, m_minutes, m_noImprovement,
                                                           m_seed, m_children, m_devices, m_worker, m_placement})
        field->setEnabled(idle);
    updateWorkerFields();
    m_baselines->setEnabled(idle);
}

void RunPanel::updateProgress()
{
    const SearchProgress progress = m_bridge->progress();
    const SearchBudget budget = m_bridge->budget();
    const SearchBridge::State state = m_bridge->state();
    if (state == SearchBridge::State::Starting) {
        m_progress->setRange(0, 0); // Busy: the workers are measuring their GPUs.
    } else if (budget.candidates > 0) {
        m_progress->setRange(0, budget.candidates);
        m_progress->setValue(std::min(progress.evaluated, budget.candidates));
        m_progress->setFormat(tr("%v of %m candidates"));
    } else if (budget.generations > 0) {
        m_progress->setRange(0, budget.generations);
        m_progress->setValue(std::min(progress.generation, budget.generations));
        m_progress->setFormat(tr("generation %v of %m"));
    } else {
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_progress->setFormat(tr("generation %1").arg(progress.generation));
    }
    QString counts = tr("Proposed %1 · compiled %2 · verified %3 · failed %4")
                         .arg(progress.proposed)
                         .arg(m_bridge->compiledCount())
                         .arg(progress.correct)
                         .arg(progress.failed);
    if (const auto cost = m_bridge->modelCost())
        counts += QStringLiteral(" · ")
                  + tr("model: %1").arg(Format::modelUsage(cost->promptTokens, cost->completionTokens, cost->cost));
    m_counts->setText(counts);
    QString eta;
    if (state == SearchBridge::State::Running) {
        if (const auto seconds = SearchBridge::estimateRemainingSeconds(budget, progress))
            eta = tr("About %1 left").arg(duration(*seconds));
    }
    if (progress.bestSpeedup > 0)
        eta +=
            (eta.isEmpty() ? QString() : QStringLiteral(" · "))
            + tr("best %1 (%2)").arg(Format::speedup(progress.bestSpeedup), Format::shortId(progress.bestCandidateId));
    m_eta->setText(eta);
}

void RunPanel::showMessage(const QString &text, bool warning)
{
    QPalette palette = m_message->palette();
    palette.setColor(QPalette::WindowText,
                     warning ? Format::warningColor() : this->palette().color(QPalette::WindowText));
    m_message->setPalette(palette);
    m_message->setText(text);
}

void RunPanel::appendLog(const QString &text)
{
    m_log->appendPlainText(
        QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), text));
    if (m_tabs->currentWidget() != m_log)
        ++m_unreadNotes;
    updateLogTitle();
}

void RunPanel::updateLogTitle()
{
    m_tabs->setTabText(m_tabs->indexOf(m_log), m_unreadNotes > 0 ? tr("Log (%1 new)").arg(m_unreadNotes) : tr("Log"));
}

QString RunPanel::logText() const
{
    return m_log->toPlainText();
}

QString RunPanel::logTitle() const
{
    return m_tabs->tabText(m_tabs->indexOf(m_log));
}

QString RunPanel::messageText() const
{
    return m_message->text();
}

QString RunPanel::countsText() const
{
    return m_counts->text();
}

QString RunPanel::runCostText() const
{
    return m_runCost->text();
}

} // namespace kx::ui
