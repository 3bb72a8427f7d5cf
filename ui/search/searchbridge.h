#pragma once

#include "core/archive/archiveref.h"
#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/eval/workerplacement.h"
#include "core/eval/workerpool.h"
#include "core/propose/costledger.h"
#include "core/propose/proposersettings.h"
#include "core/search/searchengine.h"
#include "core/util/expected.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace kx {
struct SearchSessionOptions;
}

namespace kx::ui {

/**
 * The GUI's handle on a search: owns a kx::SearchSession and turns its events, which arrive on core threads,
 * into signals on the GUI thread. Starting (workers measure their GPU first) and tearing a session down run on
 * the thread pool, so no call here blocks the GUI thread. One search at a time.
 */
class SearchBridge : public QObject
{
    Q_OBJECT

public:
    enum class State { Idle, Starting, Running, Paused, Stopping };
    Q_ENUM(State)

    explicit SearchBridge(QObject *parent = nullptr);
    ~SearchBridge() override;

    /// The archive the search writes (through the engine's own connection). A read-only handle is never
    /// written: searches and evaluations refuse it with a message.
    void setArchive(const ArchiveRef &archive) { m_archive = archive; }
    const ArchiveRef &archive() const { return m_archive; }
    /// Program and leading arguments of a GPU worker; the pool appends --device N.
    void setWorkerCommand(const QStringList &command) { m_workerCommand = command; }
    QStringList workerCommand() const { return m_workerCommand; }
    /// Workers on SSH hosts or in Slurm jobs instead of this computer's GPUs (nullopt: this computer).
    void setPlacement(std::optional<WorkerPlacement> placement) { m_placement = std::move(placement); }
    const std::optional<WorkerPlacement> &placement() const { return m_placement; }
    /// `kx worker` next to the running program.
    static QStringList defaultWorkerCommand();
    /**
     * The proposer of the next search or continued run (default: the template proposer). Its API key, if it
     * carries one, goes to that run only and is kept in memory, never stored: hand it in again for the next.
     */
    void setProposerSettings(const ProposerSettings &settings) { m_proposer = settings; }

    /// Starts a new run of op on devices (empty: all GPUs). False (with startFailed) when it cannot begin.
    bool start(const Op &op, const SearchSettings &settings, const std::vector<int> &devices = {});
    /// Continues a stored run with its own settings; extraSeconds > 0 limits this session's time.
    bool continueRun(std::int64_t runId, const std::vector<int> &devices = {}, double extraSeconds = 0);
    void pause();
    void resume();
    /// Stops after the evaluations in flight; the run can be continued later.
    void cancel();

    /**
     * Evaluates a candidate made by hand (stored already): on the running search's workers when there is one,
     * else on workers started for it alone (off the GUI thread). Ends with manualEvaluated or
     * manualEvaluationFailed; the evaluation is stored in the archive.
     */
    void evaluateManual(const Op &op, const Candidate &candidate);
    /// Hand-made candidates being evaluated.
    int manualEvaluationsInFlight() const { return m_manualInFlight; }

    State state() const { return m_state; }
    bool isActive() const { return m_state != State::Idle; }
    std::int64_t runId() const { return m_runId; }
    /// How the last search ended (Created before any).
    RunState lastRunState() const { return m_lastRunState; }
    SearchProgress progress() const { return m_progress; }
    /// Candidates NVRTC compiled without error in this session.
    int compiledCount() const;
    /// The budget of the current (or last) run, for the ETA.
    SearchBudget budget() const { return m_budget; }
    std::vector<WorkerStatus> workers() const { return m_workers; }
    /// Model calls, tokens and estimated cost of the current (or last) search's proposer in this session;
    /// none when it asks no language model.
    std::optional<CostLedger::Totals> modelCost() const;

    /// Seconds left until the budget stops the run, from its rate so far; none when it cannot be told yet.
    static std::optional<double> estimateRemainingSeconds(const SearchBudget &budget, const SearchProgress &progress);

signals:
    void stateChanged(kx::ui::SearchBridge::State state);
    void started(qint64 runId);
    /// The search could not begin; kind NoGpu: there is no worker to evaluate on (browsing still works).
    void startFailed(const QString &message, kx::ErrorKind kind);
    void candidateProposed(const kx::Candidate &candidate, int generation);
    void candidateEvaluated(const kx::Candidate &candidate, const kx::Evaluation &evaluation);
    void newBest(const kx::Candidate &candidate, const kx::Evaluation &evaluation);
    void generationFinished(int generation);
    void progressChanged(const kx::SearchProgress &progress);
    void workersChanged();
    void errorOccurred(const QString &message);
    /// A line for the run's log: how the baselines are timed, what could not be prepared.
    void noteAdded(const QString &message);
    void manualEvaluated(const kx::Candidate &candidate, const kx::Evaluation &evaluation);
    /// No evaluation; kind NoGpu: there was no worker to run it on.
    void manualEvaluationFailed(const kx::Candidate &candidate, const QString &message, kx::ErrorKind kind);
    /// The run ended (finished, cancelled or failed) with the stop reason.
    void finished(kx::RunState state, const QString &message);

private:
    QString readOnlyRefusal() const;
    /// Why no search or evaluation can start now (nullopt: one can); NoGpu when for want of a GPU worker.
    std::optional<Error> refusal() const;
    /// What every session starts from: the archive and where the workers run.
    SearchSessionOptions sessionOptions() const;
    struct Link;
    struct Job;
    struct Launch;

    bool launch(const std::function<Launch(Job &)> &begin, const std::vector<int> &devices,
                const SearchSettings &settings);
    void handleEvent(quint64 session, const SearchEvent &event);
    void markStarted(std::int64_t runId);
    void dispose();
    void setState(State state);
    void pollWorkers();
    void finishManual(const std::shared_ptr<Job> &oneOff, const Candidate &candidate,
                      const Expected<Evaluation> &result);

    ArchiveRef m_archive;
    QStringList m_workerCommand;
    std::optional<WorkerPlacement> m_placement;
    ProposerSettings m_proposer;
    std::optional<CostLedger::Totals> m_lastCost;
    std::shared_ptr<Job> m_job;
    quint64 m_session = 0; // Bumped per search: drops events of an older one.
    State m_state = State::Idle;
    RunState m_lastRunState = RunState::Created;
    std::int64_t m_runId = 0;
    SearchProgress m_progress;
    SearchBudget m_budget;
    std::vector<WorkerStatus> m_workers;
    int m_lastCompiled = 0;
    std::vector<std::shared_ptr<Job>> m_oneOffJobs; // Sessions started only to evaluate hand-made candidates.
    int m_manualInFlight = 0;
    QTimer *m_workerTimer;
};

} // namespace kx::ui
