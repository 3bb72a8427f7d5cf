#include "ui/search/searchbridge.h"

#include "ui/common/archivereader.h"
#include "ui/proposers/proposerconfig.h"

#include "core/archive/archive.h"
#include "core/plan/nvrtccompiler.h"
#include "core/propose/proposerfactory.h"
#include "core/search/searchsession.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMetaObject>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace kx::ui {

namespace {

constexpr int kWorkerPollMs = 400;

bool sameWorkers(const std::vector<WorkerStatus> &a, const std::vector<WorkerStatus> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const WorkerStatus &x, const WorkerStatus &y) {
        return x.device == y.device && x.state == y.state && x.gpu.name == y.gpu.name && x.restarts == y.restarts
               && x.pid == y.pid && x.lastError == y.lastError;
    });
}

} // namespace

/// Carries events from core threads to the bridge; detached when the bridge lets go of a search, so that a
/// session being torn down on the pool never reaches a bridge that is gone. Also counts compilations.
struct SearchBridge::Link : EvaluationObserver
{
    explicit Link(SearchBridge *bridge, quint64 session)
        : target(bridge)
        , session(session)
    {}

    void post(const SearchEvent &event)
    {
        std::lock_guard lock(mutex);
        if (target)
            QMetaObject::invokeMethod(
                target, [bridge = target, id = session, event] { bridge->handleEvent(id, event); },
                Qt::QueuedConnection);
    }
    /// Runs call(bridge) on the GUI thread, unless the bridge has let go of this link.
    void invoke(std::function<void(SearchBridge *)> call)
    {
        std::lock_guard lock(mutex);
        if (target)
            QMetaObject::invokeMethod(
                target, [bridge = target, call = std::move(call)] { call(bridge); }, Qt::QueuedConnection);
    }
    void detach()
    {
        std::lock_guard lock(mutex);
        target = nullptr;
    }
    void compiled(const Candidate &, const CompileResult &result) override
    {
        if (result.ok)
            ++compiledOk;
    }

    std::mutex mutex;
    SearchBridge *target; // Not owned; guarded by mutex.
    const quint64 session;
    std::atomic<int> compiledOk{0};
    std::atomic<bool> cancelled{false};
};

/// A session and the link it reports through; the link outlives the session (members die in reverse).
struct SearchBridge::Job
{
    std::shared_ptr<Link> link;
    std::shared_ptr<CostLedger> ledger; // Null when the proposer asks no model.
    std::unique_ptr<SearchSession> session;
};

/// What the pool thread found out while starting.
struct SearchBridge::Launch
{
    std::int64_t runId = 0;
    std::optional<Error> error;
    std::optional<SearchBudget> budget;
};

SearchBridge::SearchBridge(QObject *parent)
    : QObject(parent)
    , m_workerCommand(defaultWorkerCommand())
    , m_workerTimer(new QTimer(this))
{
    m_workerTimer->setInterval(kWorkerPollMs);
    connect(m_workerTimer, &QTimer::timeout, this, &SearchBridge::pollWorkers);
}

SearchBridge::~SearchBridge()
{
    if (m_job && m_job->session)
        m_job->session->cancel();
    dispose();
    for (std::shared_ptr<Job> &job : m_oneOffJobs) {
        job->link->detach();
        QThreadPool::globalInstance()->start([job = std::move(job)]() mutable { job.reset(); });
    }
}

QStringList SearchBridge::defaultWorkerCommand()
{
    return {QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("kx")), QStringLiteral("worker")};
}

int SearchBridge::compiledCount() const
{
    return m_job ? m_job->link->compiledOk.load() : m_lastCompiled;
}

std::optional<CostLedger::Totals> SearchBridge::modelCost() const
{
    if (!m_job)
        return m_lastCost;
    if (!m_job->ledger)
        return std::nullopt;
    return m_job->ledger->totals();
}

QString SearchBridge::readOnlyRefusal() const
{
    return tr("%1 is open read-only, and a search writes to its archive. Open it with File > Open Archive to search.")
        .arg(QDir::toNativeSeparators(archiveFilePath(m_archive)));
}

std::optional<Error> SearchBridge::refusal() const
{
    if (m_archive.empty())
        return Error{tr("No archive is open.").toStdString()};
    if (m_archive.isReadOnly())
        return Error{readOnlyRefusal().toStdString()};
    if (m_workerCommand.isEmpty())
        return Error::noGpu(tr("No worker program is set.").toStdString());
    if (!NvrtcCompiler::available())
        return Error::noGpu(tr("This build has no NVRTC (the CUDA toolkit was missing when it was built): searching "
                               "and evaluating need it.")
                                .toStdString());
    return std::nullopt;
}

SearchSessionOptions SearchBridge::sessionOptions() const
{
    SearchSessionOptions options;
    options.archive = m_archive;
    for (const QString &word : std::as_const(m_workerCommand))
        options.workerCommand.push_back(QFile::encodeName(word).toStdString());
    options.placement = m_placement;
    return options;
}

bool SearchBridge::start(const Op &op, const SearchSettings &settings, const std::vector<int> &devices)
{
    return launch(
        [op](Job &job) {
            Launch result;
            auto runId = job.session->start(op);
            if (runId)
                result.runId = *runId;
            else
                result.error = runId.error();
            return result;
        },
        devices, settings);
}

bool SearchBridge::continueRun(std::int64_t runId, const std::vector<int> &devices, double extraSeconds)
{
    return launch(
        [runId, extraSeconds, archive = m_archive](Job &job) {
            Launch result;
            // The run keeps its stored budget; read it for the ETA.
            if (auto reader = archive.openForReading()) {
                try {
                    if (const auto run = (*reader)->run(runId))
                        if (const auto stored = searchSettingsFromJson(run->settings))
                            result.budget = stored->budget;
                } catch (const std::exception &) {
                    // The engine reports the problem when it reads the run itself.
                }
            }
            std::vector<std::unique_ptr<StopCondition>> extra;
            if (extraSeconds > 0)
                extra.push_back(makeTimeLimit(extraSeconds));
            auto id = job.session->continueRun(runId, std::move(extra));
            if (id)
                result.runId = *id;
            else
                result.error = id.error();
            return result;
        },
        devices, {});
}

bool SearchBridge::launch(const std::function<Launch(Job &)> &begin, const std::vector<int> &devices,
                          const SearchSettings &settings)
{
    if (m_state != State::Idle)
        return false;
    if (const auto refused = refusal()) {
        emit startFailed(QString::fromStdString(refused->message), refused->kind);
        return false;
    }
    SearchSessionOptions options = sessionOptions();
    options.devices = devices;
    options.settings = settings;
    // The run's proposers share one request limit and one cost ledger. The key travels inside the
    // session's factory and nowhere else; the bridge lets go of it.
    const ProposerSettings proposer = m_proposer;
    m_proposer.llm.apiKey.clear();
    const ProposerResources resources = ProposerResources::forSettings(proposer);
    options.makeProposer = proposerMaker(proposer, resources);

    const quint64 session = ++m_session;
    auto job = std::make_shared<Job>();
    if (ProposerConfig{proposer}.usesModel())
        job->ledger = resources.ledger;
    job->link = std::make_shared<Link>(this, session);
    std::shared_ptr<Link> link = job->link;
    job->session = std::make_unique<SearchSession>(
        std::move(options), [link](const SearchEvent &event) { link->post(event); }, link.get());
    m_job = job;
    m_runId = 0;
    m_progress = {};
    m_budget = settings.budget;
    m_workers.clear();
    m_lastCompiled = 0;
    m_lastCost.reset();
    setState(State::Starting);
    emit progressChanged(m_progress);
    emit workersChanged();
    m_workerTimer->start();

    QtConcurrent::run([job, begin, proposer]() -> Launch {
        // Checked here, not on the GUI thread: it reads the prompt templates. A proposer that cannot be made
        // must not silently become the template proposer.
        if (const Status usable = checkProposerSettings(proposer); !usable) {
            Launch failed;
            failed.error = Error{tr("The proposer cannot be used: %1")
                                     .arg(QString::fromStdString(usable.error().message))
                                     .toStdString()};
            return failed;
        }
        if (const Status started = job->session->startWorkers(); !started) {
            Launch failed;
            failed.error = started.error();
            return failed;
        }
        if (job->link->cancelled) {
            Launch stopped;
            stopped.error = Error::cancelled(tr("Stopped before the search began.").toStdString());
            return stopped;
        }
        return begin(*job);
    }).then(this, [this, session](const Launch &result) {
        if (session != m_session || !m_job)
            return; // Cancelled while starting, or superseded.
        if (result.budget)
            m_budget = *result.budget;
        if (result.error) {
            pollWorkers();
            dispose();
            setState(State::Idle);
            emit startFailed(QString::fromStdString(result.error->message), result.error->kind);
            return;
        }
        markStarted(result.runId);
    });
    return true;
}

void SearchBridge::evaluateManual(const Op &op, const Candidate &candidate)
{
    ++m_manualInFlight;
    const auto reportTo = [candidate](std::shared_ptr<Link> link, std::shared_ptr<Job> oneOff) {
        return [link, oneOff = std::weak_ptr<Job>(oneOff), candidate](Expected<Evaluation> result) {
            link->invoke([oneOff, candidate, result](SearchBridge *bridge) {
                bridge->finishManual(oneOff.lock(), candidate, result);
            });
        };
    };
    if (m_job && m_job->session && m_state != State::Starting && m_state != State::Stopping) {
        m_job->session->evaluateManual(op, candidate, reportTo(m_job->link, nullptr));
        return;
    }

    if (const auto refused = refusal()) {
        finishManual(nullptr, candidate, *refused);
        return;
    }

    // Workers for this one evaluation, started the way a search starts them.
    SearchSessionOptions options = sessionOptions();
    auto job = std::make_shared<Job>();
    job->link = std::make_shared<Link>(this, 0);
    job->session = std::make_unique<SearchSession>(std::move(options), SearchEventSink{}, job->link.get());
    m_oneOffJobs.push_back(job);
    auto done = reportTo(job->link, job);
    std::weak_ptr<Job> weak = job;
    QThreadPool::globalInstance()->start([weak, op, candidate, done = std::move(done)] {
        const std::shared_ptr<Job> job = weak.lock();
        if (!job)
            return;
        if (const Status started = job->session->startWorkers(); !started) {
            job->link->invoke([weak, candidate, error = started.error()](SearchBridge *bridge) {
                bridge->finishManual(weak.lock(), candidate, error);
            });
            return;
        }
        job->session->evaluateManual(op, candidate, done);
    });
}

void SearchBridge::finishManual(const std::shared_ptr<Job> &oneOff, const Candidate &candidate,
                                const Expected<Evaluation> &result)
{
    m_manualInFlight = std::max(0, m_manualInFlight - 1);
    if (oneOff) {
        oneOff->link->detach();
        m_oneOffJobs.erase(std::remove(m_oneOffJobs.begin(), m_oneOffJobs.end(), oneOff), m_oneOffJobs.end());
        // Stopping the workers joins threads: on the pool, like dispose().
        QThreadPool::globalInstance()->start([job = oneOff]() mutable { job.reset(); });
    }
    if (result)
        emit manualEvaluated(candidate, *result);
    else
        emit manualEvaluationFailed(candidate, QString::fromStdString(result.error().message), result.error().kind);
}

void SearchBridge::markStarted(std::int64_t runId)
{
    if (m_state != State::Starting)
        return;
    m_runId = runId;
    setState(State::Running);
    pollWorkers();
    emit started(runId);
}

void SearchBridge::handleEvent(quint64 session, const SearchEvent &event)
{
    if (session != m_session || !m_job)
        return;
    // Events can overtake the start job's own report.
    // A hand-made candidate's evaluation is no part of the search's counts.
    const bool manual =
        event.kind == SearchEvent::Kind::Evaluated && event.candidate && event.candidate->origin == Origin::Manual;
    if (manual) {
        if (event.evaluation)
            emit candidateEvaluated(*event.candidate, *event.evaluation);
        return;
    }
    markStarted(event.runId);
    m_progress = event.progress;
    switch (event.kind) {
    case SearchEvent::Kind::Proposed:
        if (event.candidate)
            emit candidateProposed(*event.candidate, event.progress.generation);
        break;
    case SearchEvent::Kind::Evaluated:
        if (event.candidate && event.evaluation)
            emit candidateEvaluated(*event.candidate, *event.evaluation);
        break;
    case SearchEvent::Kind::NewBest:
        if (event.candidate && event.evaluation)
            emit newBest(*event.candidate, *event.evaluation);
        break;
    case SearchEvent::Kind::GenerationFinished: emit generationFinished(event.progress.generation); break;
    case SearchEvent::Kind::StateChanged:
        if (m_state != State::Stopping) {
            if (event.state == RunState::Paused)
                setState(State::Paused);
            else if (event.state == RunState::Running)
                setState(State::Running);
        }
        break;
    case SearchEvent::Kind::Error: emit errorOccurred(QString::fromStdString(event.message)); break;
    case SearchEvent::Kind::Note: emit noteAdded(QString::fromStdString(event.message)); break;
    case SearchEvent::Kind::Finished:
        emit progressChanged(m_progress);
        pollWorkers();
        m_lastRunState = event.state;
        dispose();
        setState(State::Idle);
        emit finished(event.state, QString::fromStdString(event.message));
        return;
    }
    emit progressChanged(m_progress);
}

void SearchBridge::pause()
{
    if (m_job && (m_state == State::Running)) {
        m_job->session->pause();
        setState(State::Paused);
    }
}

void SearchBridge::resume()
{
    if (m_job && m_state == State::Paused) {
        m_job->session->resume();
        setState(State::Running);
    }
}

void SearchBridge::cancel()
{
    if (!m_job)
        return;
    if (m_state == State::Starting) {
        // The workers are still coming up: let the start job see it and give up; nothing to wait for here.
        m_job->link->cancelled = true;
        m_lastRunState = RunState::Cancelled;
        dispose();
        setState(State::Idle);
        emit finished(RunState::Cancelled, tr("Stopped before the search began."));
        return;
    }
    m_job->session->cancel();
    // A paused engine waits for resume or stop; cancel() stops it. Either way Finished follows.
    setState(State::Stopping);
}

void SearchBridge::dispose()
{
    m_workerTimer->stop();
    if (!m_job)
        return;
    m_lastCompiled = m_job->link->compiledOk;
    if (m_job->ledger)
        m_lastCost = m_job->ledger->totals();
    m_job->link->detach();
    ++m_session;
    // Destroying a session joins its threads and stops the worker processes: do it on the pool.
    QThreadPool::globalInstance()->start([job = std::move(m_job)]() mutable { job.reset(); });
    m_job.reset();
}

void SearchBridge::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void SearchBridge::pollWorkers()
{
    if (!m_job)
        return;
    std::vector<WorkerStatus> workers = m_job->session->workers();
    if (sameWorkers(workers, m_workers))
        return;
    m_workers = std::move(workers);
    emit workersChanged();
}

std::optional<double> SearchBridge::estimateRemainingSeconds(const SearchBudget &budget, const SearchProgress &progress)
{
    const double elapsed = progress.elapsedSeconds;
    if (elapsed <= 0)
        return std::nullopt;
    std::optional<double> eta;
    const auto consider = [&eta](double seconds) { eta = std::max(0.0, eta ? std::min(*eta, seconds) : seconds); };
    if (budget.seconds > 0)
        consider(budget.seconds - elapsed);
    // Generation 0 is the translation; generations 1..N follow. Done so far: those before the current one.
    if (budget.generations > 0 && progress.generation > 0)
        consider((budget.generations + 1 - progress.generation) * elapsed / progress.generation);
    if (budget.candidates > 0 && progress.evaluated > 0)
        consider((budget.candidates - progress.evaluated) * elapsed / progress.evaluated);
    return eta;
}

} // namespace kx::ui
