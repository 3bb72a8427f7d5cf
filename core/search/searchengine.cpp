#include "core/search/searchengine.h"

#include "core/archive/archive.h"
#include "core/domain/domainjson.h"

#include <nlohmann/json.hpp>

namespace kx {

namespace {

std::string environmentJson(const std::vector<GpuInfo> &gpus)
{
    nlohmann::json j{{"gpus", gpus}};
    return j.dump();
}

} // namespace

std::vector<std::unique_ptr<StopCondition>> makeStopConditions(const SearchBudget &budget)
{
    std::vector<std::unique_ptr<StopCondition>> conditions;
    if (budget.generations > 0)
        conditions.push_back(makeGenerationLimit(budget.generations));
    if (budget.candidates > 0)
        conditions.push_back(makeCandidateLimit(budget.candidates));
    if (budget.seconds > 0)
        conditions.push_back(makeTimeLimit(budget.seconds));
    if (budget.noImprovement > 0)
        conditions.push_back(makeNoImprovementLimit(budget.noImprovement));
    return conditions;
}

SearchEngine::SearchEngine(std::string archivePath, std::unique_ptr<Proposer> proposer,
                           std::shared_ptr<CandidateEvaluator> evaluator, SearchSettings settings,
                           std::vector<std::unique_ptr<StopCondition>> stopConditions, SearchEventSink sink)
    : m_archivePath(std::move(archivePath))
    , m_proposer(std::move(proposer))
    , m_evaluator(std::move(evaluator))
    , m_settings(std::move(settings))
    , m_stopConditions(std::move(stopConditions))
    , m_sink(std::move(sink))
{}

SearchEngine::~SearchEngine()
{
    cancel();
    wait();
}

Expected<std::int64_t> SearchEngine::start(const Op &op)
{
    return launch(op, std::nullopt);
}

Expected<std::int64_t> SearchEngine::continueRun(std::int64_t runId)
{
    return launch(std::nullopt, runId);
}

// A search whose proposer cannot make a single kernel for the op would only fail, proposal after proposal.
Status SearchEngine::refuseUnproposable(const Op &op) const
{
    const auto why = m_proposer->cannotPropose(op);
    if (why.empty())
        return {};
    return Error{"the " + m_proposer->name() + " proposer cannot make kernels for " + op.name + ": " + why
                 + (m_proposer->name() == "template" ? " (an LLM or command proposer may: --proposer)" : "")};
}

Expected<std::int64_t> SearchEngine::launch(std::optional<Op> op, std::optional<std::int64_t> runId)
{
    if (m_thread.joinable())
        return Error{"this engine has already run a search"};
    if (op)
        if (auto refused = refuseUnproposable(*op); !refused.isOk())
            return refused.error();
    auto opened = Archive::open(m_archivePath);
    if (!opened)
        return opened.error();
    std::unique_ptr<Archive> archive = std::move(*opened);
    Run run;
    try {
        if (op) {
            auto tx = archive->begin();
            archive->putOp(tx, *op);
            run.opName = op->name;
            run.seed = m_settings.seed;
            run.settings = toJson(m_settings);
            run.environment = environmentJson(m_evaluator->gpus());
            run.state = RunState::Running;
            run.id = archive->createRun(tx, run);
            tx.commit();
            run = *archive->run(run.id);
        } else {
            const auto stored = archive->run(*runId);
            if (!stored)
                return Error{"no run with id " + std::to_string(*runId) + " in " + m_archivePath};
            run = *stored;
            const auto storedOp = archive->op(run.opName);
            if (!storedOp)
                return Error{"run " + std::to_string(run.id) + " refers to unknown op " + run.opName};
            op = *storedOp;
            auto settings = searchSettingsFromJson(run.settings);
            if (!settings)
                return settings.error();
            m_settings = *settings;
        }
    } catch (const ArchiveError &error) {
        return Error{error.what()};
    }
    if (runId)
        if (auto refused = refuseUnproposable(*op); !refused.isOk())
            return refused.error(); // the run stays as it was
    // The budget is known only now (a continued run brings its own).
    for (auto &condition : makeStopConditions(m_settings.budget))
        m_stopConditions.push_back(std::move(condition));
    if (m_stopConditions.empty())
        m_stopConditions.push_back(makeGenerationLimit(5)); // never search forever by accident
    {
        std::lock_guard lock(m_mutex);
        m_runId = run.id;
        m_state = RunState::Running;
    }
    m_thread =
        std::jthread([this, archive = std::move(archive), op = std::move(*op), run](std::stop_token stop) mutable {
            runLoop(std::move(archive), std::move(op), std::move(run), std::move(stop));
        });
    return run.id;
}

void SearchEngine::pause()
{
    std::lock_guard lock(m_mutex);
    m_paused = true;
}

void SearchEngine::resume()
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_resumed.notify_all();
}

void SearchEngine::cancel()
{
    m_thread.request_stop();
    m_resumed.notify_all();
}

void SearchEngine::wait()
{
    if (m_thread.joinable())
        m_thread.join();
}

RunState SearchEngine::state() const
{
    std::lock_guard lock(m_mutex);
    return m_state;
}

SearchProgress SearchEngine::progress() const
{
    std::lock_guard lock(m_mutex);
    return m_progress;
}

std::int64_t SearchEngine::runId() const
{
    std::lock_guard lock(m_mutex);
    return m_runId;
}

} // namespace kx
