#include "core/search/searchsession.h"

#include "core/archive/archive.h"

#include "core/search/serviceevaluator.h"
#include "core/search/templateproposer.h"

namespace kx {

SearchSession::SearchSession(SearchSessionOptions options, SearchEventSink sink, EvaluationObserver *observer)
    : m_options(std::move(options))
    , m_sink(std::move(sink))
{
    WorkerPoolOptions pool;
    pool.command = m_options.workerCommand;
    pool.devices = m_options.devices;
    if (m_options.placement && m_options.placement->kind() != WorkerPlacement::Kind::Local) {
        pool.commandFor = [placement = *m_options.placement](int device) { return placement.commandFor(device); };
        pool.remote = true;
        pool.devices.clear();
        for (int device = 0; device < m_options.placement->workerCount(); ++device)
            pool.devices.push_back(device);
    }
    EvaluationServiceOptions service;
    service.compile = m_options.compile;
    m_service = std::make_shared<EvaluationService>(std::make_unique<WorkerPool>(pool), std::move(service), observer);
}

SearchSession::~SearchSession()
{
    cancel();
    wait();
    m_engine.reset();
    m_service->stop();
}

Status SearchSession::startWorkers()
{
    return m_service->start();
}

std::vector<WorkerStatus> SearchSession::workers() const
{
    return m_service->pool().workers();
}

bool SearchSession::searching() const
{
    if (!m_engine)
        return false;
    const auto state = m_engine->state();
    return state == RunState::Running || state == RunState::Paused;
}

Status SearchSession::writable() const
{
    if (m_options.archive.isReadOnly())
        return Error{m_options.archive.path
                     + " is open read-only; a search writes to its archive. Open it read-write to search."};
    return Status::ok();
}

SearchEngine &SearchSession::makeEngine(std::vector<std::unique_ptr<StopCondition>> extraStops)
{
    if (m_engine) // a finished search: its thread ends before the next one starts
        m_engine->wait();
    auto proposer = m_options.makeProposer ? m_options.makeProposer() : nullptr;
    if (!proposer)
        proposer = std::make_unique<TemplateProposer>();
    // A worker that is `kx worker` comes with `kx baseline-runner`, which times Inductor packages.
    std::vector<std::string> runner;
    if (m_options.workerCommand.size() == 2 && m_options.workerCommand[1] == "worker")
        runner = {m_options.workerCommand[0], "baseline-runner"};
    auto evaluator =
        std::make_shared<ServiceEvaluator>(m_service, std::move(runner), InductorPackager(m_options.inductor));
    m_engine = std::make_unique<SearchEngine>(m_options.archive.path, std::move(proposer), std::move(evaluator),
                                              m_options.settings, std::move(extraStops), m_sink);
    return *m_engine;
}

Expected<std::int64_t> SearchSession::start(const Op &op, std::vector<std::unique_ptr<StopCondition>> extraStops)
{
    if (Status status = writable(); !status)
        return status.error();
    if (searching())
        return Error{"a search is still running in this session"};
    return makeEngine(std::move(extraStops)).start(op);
}

Expected<std::int64_t> SearchSession::continueRun(std::int64_t runId,
                                                  std::vector<std::unique_ptr<StopCondition>> extraStops)
{
    if (Status status = writable(); !status)
        return status.error();
    if (searching())
        return Error{"a search is still running in this session"};
    return makeEngine(std::move(extraStops)).continueRun(runId);
}

void SearchSession::evaluateManual(const Op &op, const Candidate &candidate,
                                   std::function<void(Expected<Evaluation>)> done)
{
    if (Status status = writable(); !status) {
        if (done)
            done(status.error());
        return;
    }
    // The completion may run while the session is torn down: it uses copies, never the session.
    m_service->submit(
        op, candidate, m_options.settings.eval,
        [archive = m_options.archive, sink = m_sink, candidate, done = std::move(done)](Expected<Evaluation> result) {
            if (result) {
                Evaluation evaluation = std::move(*result);
                evaluation.candidateId = candidate.id;
                evaluation.runId = candidate.runId;
                try {
                    auto opened = archive.open();
                    if (!opened) {
                        result = opened.error();
                    } else {
                        auto tx = (*opened)->begin();
                        evaluation.id = (*opened)->addEvaluation(tx, evaluation);
                        tx.commit();
                        result = evaluation;
                    }
                } catch (const std::exception &error) {
                    result = Error{std::string("the evaluation could not be stored: ") + error.what()};
                }
                if (result && sink) {
                    SearchEvent event;
                    event.kind = SearchEvent::Kind::Evaluated;
                    event.runId = candidate.runId.value_or(0);
                    event.candidate = candidate;
                    event.evaluation = *result;
                    sink(event);
                }
            }
            if (done)
                done(std::move(result));
        });
}

void SearchSession::pause()
{
    if (m_engine)
        m_engine->pause();
}

void SearchSession::resume()
{
    if (m_engine)
        m_engine->resume();
}

void SearchSession::cancel()
{
    if (m_engine)
        m_engine->cancel();
    m_service->cancelPending();
}

void SearchSession::wait()
{
    if (m_engine)
        m_engine->wait();
}

RunState SearchSession::state() const
{
    return m_engine ? m_engine->state() : RunState::Created;
}
SearchProgress SearchSession::progress() const
{
    return m_engine ? m_engine->progress() : SearchProgress{};
}
std::int64_t SearchSession::runId() const
{
    return m_engine ? m_engine->runId() : 0;
}

} // namespace kx
