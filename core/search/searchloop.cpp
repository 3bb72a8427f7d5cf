// The search itself: SearchEngine::Loop runs on the engine's thread (see searchengine.h).
#include "core/search/searchengine.h"

#include "core/archive/archive.h"
#include "core/domain/domainjson.h"
#include "core/search/population.h"
#include "core/search/runbest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace kx {

namespace {
constexpr int kDuplicateRetries = 3;
constexpr int kMaxEmptyGenerations = 3;
constexpr std::size_t kFailuresReported = 3; // The proposer's last distinct errors in a failed search.
constexpr std::size_t kFailureLength = 400;
constexpr auto kPollInterval = std::chrono::milliseconds(50);
// Selection draws from a stream of its own. Were it the request's seed, the proposer's first draw would repeat
// the crossover-or-mutation draw, and every mutation would see a number above the crossover rate.
constexpr std::uint64_t kSelectionStream = 0x5e1ec7105e1ec710ULL;
} // namespace

class SearchEngine::Loop
{
public:
    Loop(SearchEngine &engine, std::unique_ptr<Archive> archive, Op op, Run run, std::stop_token stop)
        : m_engine(engine)
        , m_archive(std::move(archive))
        , m_op(std::move(op))
        , m_run(std::move(run))
        , m_stop(std::move(stop))
        , m_started(std::chrono::steady_clock::now())
        , m_eval(engine.m_settings.eval)
    {}

    void run()
    {
        try {
            loadPopulation();
            loadSteppingStones();
            prepareBaselines();
            setState(RunState::Running, {});
            evaluate(m_population.unevaluated());
            int generation = m_population.size() == 0 ? 0 : m_lastGeneration + 1;
            int emptyGenerations = 0;
            while (!m_stop.stop_requested()) {
                if (!waitWhilePaused())
                    break;
                // A continued run may already be within its budget's limits.
                if (const auto reason = stopReason(); !reason.empty() && generation > 0) {
                    finishSearch(reason, Retime::No); // continued within its limits: not timed again
                    return;
                }
                updateProgress([&](SearchProgress &p) { p.generation = generation; });
                const auto children = proposeAndSubmit(generation);
                if (m_stop.stop_requested())
                    break;
                finishGeneration(children.empty());
                emptyGenerations = children.empty() ? emptyGenerations + 1 : 0;
                if (const auto reason = stopReason(); !reason.empty()) {
                    finishSearch(reason);
                    return;
                }
                if (emptyGenerations >= kMaxEmptyGenerations) {
                    finishSearch("the proposer found nothing new for " + std::to_string(emptyGenerations)
                                 + " generations");
                    return;
                }
                ++generation;
            }
            finish(RunState::Cancelled, "cancelled");
        } catch (const std::exception &error) {
            emitError(error.what());
            finish(RunState::Failed, error.what());
        }
    }

private:
    // A search in which every proposal failed (a wrong key, a server error, a broken command) has not found
    // anything: it fails with the proposer's last errors instead of finishing with no candidates.
    enum class Retime { Yes, No };
    void finishSearch(const std::string &reason, Retime retime = Retime::Yes)
    {
        if (m_answeredProposals > 0 || m_failedProposals == 0) {
            if (retime == Retime::Yes)
                retimeBestOnEveryGpu();
            if (m_stop.stop_requested()) {
                finish(RunState::Cancelled, "cancelled");
                return;
            }
            finish(RunState::Finished, reason);
            return;
        }
        std::string message = "nothing could be proposed: all " + std::to_string(m_failedProposals)
                              + " proposals failed; the last errors: ";
        for (std::size_t i = 0; i < m_lastFailures.size(); ++i)
            message += (i ? " | " : "") + m_lastFailures[i];
        emitError(message);
        finish(RunState::Failed, message);
    }

    // On several GPUs each candidate ran on one of them: the best kernels run again on every GPU, so the
    // per-GPU comparison (and the spread between two cards of one model) is of the same kernels. These
    // evaluations are recorded with the run but leave the population's fitness alone.
    void retimeBestOnEveryGpu()
    {
        const int top = m_engine.m_settings.retimeTop;
        const auto gpus = m_engine.m_evaluator->gpus();
        if (top <= 0 || gpus.size() < 2 || m_stop.stop_requested())
            return;
        const auto best = m_population.elite(std::size_t(top));
        if (best.empty())
            return;
        emitMessage(SearchEvent::Kind::Note, "timing the best " + std::to_string(best.size())
                                                 + " kernels again on each of " + std::to_string(gpus.size())
                                                 + " GPUs");
        std::vector<std::future<Evaluation>> pending;
        for (const auto &scored : best)
            for (std::size_t gpu = 0; gpu < gpus.size(); ++gpu)
                pending.push_back(m_engine.m_evaluator->evaluateOn(gpu, m_op, scored.candidate, m_eval));
        std::size_t next = 0;
        for (const auto &scored : best) {
            std::vector<Evaluation> timings;
            for (std::size_t gpu = 0; gpu < gpus.size(); ++gpu, ++next) {
                if (!waitFor(pending[next]))
                    return;
                Evaluation evaluation = pending[next].get();
                evaluation.candidateId = scored.candidate.id;
                evaluation.runId = m_run.id;
                auto tx = m_archive->begin();
                evaluation.id = m_archive->addEvaluation(tx, evaluation);
                tx.commit();
                SearchEvent event = makeEvent(SearchEvent::Kind::Evaluated);
                event.candidate = scored.candidate;
                event.evaluation = evaluation;
                emit(event);
                timings.push_back(std::move(evaluation));
            }
            emitMessage(SearchEvent::Kind::Note, retimingLine(scored.candidate, timings));
        }
    }

    // "kernel 1a2b3c4d on 2 GPUs: 0.1234 ms (NVIDIA H200 GPU-e049), 0.1250 ms (...); spread 1.3%"
    static std::string retimingLine(const Candidate &candidate, const std::vector<Evaluation> &timings)
    {
        std::string line = "kernel " + candidate.id.substr(0, 8) + " on " + std::to_string(timings.size()) + " GPUs:";
        double fastest = 0, slowest = 0;
        for (std::size_t i = 0; i < timings.size(); ++i) {
            const auto &evaluation = timings[i];
            const std::string card =
                evaluation.gpu.name + (evaluation.gpu.uuid.empty() ? "" : " " + evaluation.gpu.uuid.substr(0, 12));
            line += (i ? ", " : " ");
            if (evaluation.status != EvalStatus::Correct) {
                line += std::string(toString(evaluation.status)) + " (" + card + ")";
                continue;
            }
            char ms[32];
            std::snprintf(ms, sizeof ms, "%.4g ms", evaluation.timing.medianMs);
            line += std::string(ms) + " (" + card + ")";
            fastest = fastest == 0 ? evaluation.timing.medianMs : std::min(fastest, evaluation.timing.medianMs);
            slowest = std::max(slowest, evaluation.timing.medianMs);
        }
        if (fastest > 0 && slowest > fastest) {
            char spread[48];
            std::snprintf(spread, sizeof spread, "; spread %.1f%%", (slowest / fastest - 1) * 100);
            line += spread;
        }
        return line;
    }

    void noteProposal(const ProposalResult &result, ProposalKind kind)
    {
        if (!result.candidates.empty()) {
            ++m_answeredProposals;
            return;
        }
        if (result.failure.empty())
            return;
        ++m_failedProposals;
        std::string failure = std::string(toString(kind)) + ": " + result.failure;
        if (failure.size() > kFailureLength)
            failure = failure.substr(0, kFailureLength) + "...";
        std::erase(m_lastFailures, failure);
        m_lastFailures.push_back(std::move(failure));
        if (m_lastFailures.size() > kFailuresReported)
            m_lastFailures.erase(m_lastFailures.begin());
    }

    // Before the first evaluation: what the baselines need (an Inductor package takes a minute or more to build
    // the first time). The run's time budget starts after it.
    void prepareBaselines()
    {
        emitMessage(SearchEvent::Kind::Note, "preparing the baselines of " + m_op.name + " ...");
        auto prepared = m_engine.m_evaluator->prepareBaselines(m_op, m_engine.m_settings.eval, m_stop);
        m_eval = std::move(prepared.settings);
        if (prepared.inductorPackage)
            storePackage(*prepared.inductorPackage);
        if (!prepared.note.empty())
            emitMessage(SearchEvent::Kind::Note, prepared.note);
        m_started = std::chrono::steady_clock::now();
    }

    // The package goes into the archive with the op, so the measurement can be repeated from the archive alone.
    void storePackage(const InductorPackage &package)
    {
        constexpr std::uintmax_t kLargestStored = std::uintmax_t(256) << 20;
        try {
            std::error_code error;
            if (std::filesystem::file_size(package.path, error) > kLargestStored || error)
                return;
            std::ifstream in(package.path, std::ios::binary);
            const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            const InductorPackageRecord record{
                package.sha256,
                package.arch,
                package.torchVersion,
                package.shapes,
                nlohmann::json{{"exportSeconds", package.exportSeconds}, {"compileSeconds", package.compileSeconds}}
                    .dump(),
                std::int64_t(bytes.size()),
                0};
            auto tx = m_archive->begin();
            m_archive->putInductorPackage(tx, m_op.name, record, bytes);
            tx.commit();
        } catch (const std::exception &error) {
            emitMessage(SearchEvent::Kind::Note, std::string("the Inductor package was not stored: ") + error.what());
        }
    }

    void loadPopulation()
    {
        m_population = loadRunPopulation(*m_archive, m_run.id);
        for (const auto &scored : m_population.all())
            m_lastGeneration = std::max(m_lastGeneration, m_population.generationOf(scored.candidate.id));
        SearchProgress progress;
        progress.generation = std::max(0, m_lastGeneration);
        for (const auto &scored : m_population.all()) {
            ++progress.proposed;
            if (scored.evaluation) {
                ++progress.evaluated;
                scored.isCorrect() ? ++progress.correct : ++progress.failed;
            }
        }
        if (const auto best = m_population.best()) {
            progress.bestSpeedup = best->fitness;
            progress.bestCandidateId = best->candidate.id;
        }
        progress.generationsWithoutImprovement = generationsWithoutImprovement();
        updateProgress([&](SearchProgress &p) { p = progress; });
    }

    // What the live run counted when its last generation finished: generations since the best changed, replayed
    // generation by generation (with the eager times of the whole run, which the live run had only in part).
    int generationsWithoutImprovement() const
    {
        if (m_lastGeneration < 0)
            return 0;
        std::map<int, std::vector<ScoredCandidate>> byGeneration;
        for (const auto &scored : m_population.all())
            if (scored.isBreedable()) {
                auto fit = scored;
                fit.fitness = m_population.fitness(scored);
                byGeneration[m_population.generationOf(scored.candidate.id)].push_back(fit);
            }
        std::optional<ScoredCandidate> best;
        int improvedIn = -1;
        for (const auto &[generation, members] : byGeneration)
            for (const auto &member : members)
                if (!best || member.fitness > best->fitness
                    || (member.fitness == best->fitness && member.candidate.id < best->candidate.id)) {
                    best = member;
                    improvedIn = generation;
                }
        return m_lastGeneration - improvedIn;
    }

    // The innovation archive: the best verified kernels of earlier runs of this op and of similar ops.
    void loadSteppingStones()
    {
        std::vector<std::string> ops{m_op.name};
        ops.insert(ops.end(), m_engine.m_settings.similarOps.begin(), m_engine.m_settings.similarOps.end());
        std::set<std::string> seen;
        for (const auto &opName : ops) {
            for (const auto &best : m_archive->bestKernels(opName)) {
                if (m_population.contains(best.candidateId) || !seen.insert(best.candidateId).second)
                    continue;
                auto candidate = m_archive->candidate(best.candidateId);
                if (!candidate)
                    continue;
                ScoredCandidate stone{*candidate, std::nullopt};
                for (const auto &evaluation : m_archive->evaluations(candidate->id))
                    if (evaluation.status == EvalStatus::Correct
                        && (!stone.evaluation || evaluation.speedup > stone.evaluation->speedup))
                        stone.evaluation = evaluation;
                stone.fitness = stone.speedup(); // measured in another run: only its own speedup compares
                if (stone.isBreedable())
                    m_steppingStones.push_back(std::move(stone));
            }
        }
        std::sort(m_steppingStones.begin(), m_steppingStones.end(),
                  [](const auto &a, const auto &b) { return a.speedup() > b.speedup(); });
        if (m_steppingStones.size() > std::size_t(m_engine.m_settings.steppingStones))
            m_steppingStones.resize(std::size_t(m_engine.m_settings.steppingStones));
    }

    ProposalRequest requestFor(int generation, int slot, SplitMix &random)
    {
        const auto &settings = m_engine.m_settings;
        ProposalRequest request;
        request.op = m_op;
        request.steppingStones = m_steppingStones;
        request.seed = deriveSeed(settings.seed, generation, slot);
        request.generation = generation;
        request.precision = settings.eval.precision;
        if (generation == 0) {
            request.kind = ProposalKind::Translate;
            return request;
        }
        // Stepping stones of earlier runs of this op can be parents; those of similar ops are context only.
        auto pool = m_population.elite(std::size_t(settings.eliteSize));
        for (const auto &stone : m_steppingStones)
            if (stone.candidate.opName == m_op.name)
                pool.push_back(stone);
        if (pool.empty()) {
            const auto failures = m_population.failures(4);
            if (!failures.empty() && random.unit() < 0.5) {
                request.kind = ProposalKind::Repair;
                request.parents = {failures[random.below(failures.size())]};
            } else {
                request.kind = ProposalKind::Translate;
            }
            return request;
        }
        if (pool.size() >= 2 && random.unit() < settings.crossoverRate) {
            const auto &first = tournament(pool, random);
            const ScoredCandidate *second = &tournament(pool, random);
            for (int attempt = 0; attempt < 3 && second->candidate.id == first.candidate.id; ++attempt)
                second = &tournament(pool, random);
            if (second->candidate.id != first.candidate.id) {
                request.kind = ProposalKind::Crossover;
                request.parents = {first, *second};
                return request;
            }
        }
        request.kind = ProposalKind::Mutate;
        request.parents = {tournament(pool, random)};
        return request;
    }

    // Proposes the generation's children one by one and submits each for evaluation at once, so proposing
    // the next child (an LLM call takes seconds) and compiling overlap the evaluation of those before it.
    // The generation is stored in one transaction when its proposals are done, before any result is
    // recorded: a killed run finds whole generations in the archive and evaluates what has no result.
    // Results are recorded in submission order after all proposals: every proposal of a generation sees
    // the same population, which keeps a run deterministic.
    std::vector<Candidate> proposeAndSubmit(int generation)
    {
        const int slots = generation == 0 ? 1 : m_engine.m_settings.childrenPerGeneration;
        std::vector<Candidate> children;
        std::vector<std::future<Evaluation>> pending;
        std::set<std::string> ids;
        for (int slot = 0; slot < slots && !m_stop.stop_requested(); ++slot) {
            for (int attempt = 0; attempt <= kDuplicateRetries; ++attempt) {
                SplitMix random(
                    deriveSeed(m_engine.m_settings.seed ^ kSelectionStream, generation, slot + 1000 * attempt));
                auto request = requestFor(generation, slot + 1000 * attempt, random);
                request.isKnown = [&](const std::string &id) { return m_population.contains(id) || ids.count(id) > 0; };
                const auto result = m_engine.m_proposer->propose(request, m_stop);
                noteProposal(result, request.kind);
                if (result.candidates.empty() && !result.failure.empty())
                    emitMessage(SearchEvent::Kind::Error, std::string(toString(request.kind)) + ": " + result.failure);
                bool gotNew = false;
                for (auto candidate : result.candidates) {
                    candidate.opName = m_op.name;
                    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
                    candidate.runId = m_run.id;
                    if (m_population.contains(candidate.id) || !ids.insert(candidate.id).second)
                        continue;
                    pending.push_back(submit(candidate));
                    children.push_back(std::move(candidate));
                    gotNew = true;
                }
                if (gotNew)
                    break;
            }
        }
        if (m_stop.stop_requested())
            return children; // a cancelled generation is not stored: a continued run proposes it again
        store(children, generation);
        collect(children, pending);
        return children;
    }

    void store(const std::vector<Candidate> &children, int generation)
    {
        if (children.empty())
            return;
        auto tx = m_archive->begin();
        for (const auto &child : children)
            m_archive->addCandidate(tx, child, generation);
        tx.commit();
        for (const auto &child : children) {
            m_population.add(child, generation);
            updateProgress([](SearchProgress &p) { ++p.proposed; });
            SearchEvent event = makeEvent(SearchEvent::Kind::Proposed);
            event.candidate = child;
            emit(event);
        }
    }

    std::future<Evaluation> submit(const Candidate &candidate)
    {
        return m_engine.m_evaluator->evaluate(m_op, candidate, m_eval);
    }

    void evaluate(const std::vector<Candidate> &candidates)
    {
        std::vector<std::future<Evaluation>> pending;
        pending.reserve(candidates.size());
        for (const auto &candidate : candidates)
            pending.push_back(submit(candidate));
        collect(candidates, pending);
    }

    // Records results in submission order: deterministic whatever finishes first.
    // Waits for an evaluation; false when the run is stopped first.
    bool waitFor(std::future<Evaluation> &pending) const
    {
        while (pending.wait_for(kPollInterval) != std::future_status::ready)
            if (m_stop.stop_requested())
                return false;
        return true;
    }

    void collect(const std::vector<Candidate> &candidates, std::vector<std::future<Evaluation>> &pending)
    {
        for (std::size_t i = 0; i < pending.size(); ++i) {
            if (!waitFor(pending[i]))
                return;
            Evaluation evaluation = pending[i].get();
            evaluation.candidateId = candidates[i].id;
            evaluation.runId = m_run.id;
            record(candidates[i], std::move(evaluation));
        }
    }

    void record(const Candidate &candidate, Evaluation evaluation)
    {
        auto tx = m_archive->begin();
        evaluation.id = m_archive->addEvaluation(tx, evaluation);
        tx.commit();
        m_population.setEvaluation(candidate.id, evaluation);
        const bool correct = evaluation.status == EvalStatus::Correct;
        updateProgress([&](SearchProgress &p) {
            ++p.evaluated;
            correct ? ++p.correct : ++p.failed;
            p.elapsedSeconds = elapsedSeconds();
        });
        SearchEvent event = makeEvent(SearchEvent::Kind::Evaluated);
        event.candidate = candidate;
        event.evaluation = evaluation;
        emit(event);
        // The best may change to an earlier candidate too: each evaluation moves the median eager time.
        const auto best = m_population.best();
        if (!best)
            return;
        const bool changed = best->candidate.id != progress().bestCandidateId;
        updateProgress([&](SearchProgress &p) {
            p.bestSpeedup = best->fitness;
            p.bestCandidateId = best->candidate.id;
        });
        if (!changed)
            return;
        m_improvedThisGeneration = true;
        SearchEvent newBest = makeEvent(SearchEvent::Kind::NewBest);
        newBest.candidate = best->candidate;
        newBest.evaluation = best->evaluation;
        emit(newBest);
    }

    void finishGeneration(bool empty)
    {
        const bool improved = m_improvedThisGeneration;
        m_improvedThisGeneration = false;
        updateProgress([&](SearchProgress &p) {
            p.generationsWithoutImprovement = improved ? 0 : p.generationsWithoutImprovement + 1;
            p.elapsedSeconds = elapsedSeconds();
        });
        SearchEvent event = makeEvent(SearchEvent::Kind::GenerationFinished);
        event.message = empty ? "no new candidates" : "";
        emit(event);
    }

    std::string stopReason() const
    {
        const auto current = progress();
        for (const auto &condition : m_engine.m_stopConditions)
            if (condition->reached(current))
                return "stopped: " + condition->describe();
        return {};
    }

    // Returns false when cancelled while paused.
    bool waitWhilePaused()
    {
        std::unique_lock lock(m_engine.m_mutex);
        if (!m_engine.m_paused)
            return true;
        lock.unlock();
        setState(RunState::Paused, "paused");
        lock.lock();
        m_engine.m_resumed.wait(lock, m_stop, [this] { return !m_engine.m_paused; });
        lock.unlock();
        if (m_stop.stop_requested())
            return false;
        setState(RunState::Running, "resumed");
        return true;
    }

    void setState(RunState state, const std::string &message)
    {
        auto tx = m_archive->begin();
        m_archive->setRunState(tx, m_run.id, state);
        tx.commit();
        {
            std::lock_guard lock(m_engine.m_mutex);
            m_engine.m_state = state;
        }
        SearchEvent event = makeEvent(SearchEvent::Kind::StateChanged);
        event.state = state;
        event.message = message;
        emit(event);
    }

    void finish(RunState state, const std::string &reason)
    {
        try {
            setState(state, reason);
        } catch (const std::exception &error) {
            std::lock_guard lock(m_engine.m_mutex);
            m_engine.m_state = RunState::Failed;
        }
        SearchEvent event = makeEvent(SearchEvent::Kind::Finished);
        event.state = state;
        event.message = reason;
        emit(event);
    }

    void emitError(const std::string &message) { emitMessage(SearchEvent::Kind::Error, message); }

    void emitMessage(SearchEvent::Kind kind, const std::string &message)
    {
        SearchEvent event = makeEvent(kind);
        event.message = message;
        emit(event);
    }

    SearchEvent makeEvent(SearchEvent::Kind kind) const
    {
        SearchEvent event;
        event.kind = kind;
        event.runId = m_run.id;
        event.progress = progress();
        event.state = m_engine.state();
        return event;
    }

    void emit(const SearchEvent &event)
    {
        if (m_engine.m_sink)
            m_engine.m_sink(event);
    }

    SearchProgress progress() const { return m_engine.progress(); }

    template <typename Change>
    void updateProgress(Change change)
    {
        std::lock_guard lock(m_engine.m_mutex);
        change(m_engine.m_progress);
    }

    double elapsedSeconds() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    }

    SearchEngine &m_engine;
    std::unique_ptr<Archive> m_archive;
    Op m_op;
    Run m_run;
    std::stop_token m_stop;
    std::chrono::steady_clock::time_point m_started;
    EvalSettings m_eval; // The run's evaluation settings with its baselines prepared.
    Population m_population;
    std::vector<ScoredCandidate> m_steppingStones;
    int m_lastGeneration = -1;
    bool m_improvedThisGeneration = false;
    int m_answeredProposals = 0;             // Proposals of this session that gave a candidate ...
    int m_failedProposals = 0;               // ... and those that failed,
    std::vector<std::string> m_lastFailures; // with their last distinct errors.
};

void SearchEngine::runLoop(std::unique_ptr<Archive> archive, Op op, Run run, std::stop_token stop)
{
    Loop(*this, std::move(archive), std::move(op), std::move(run), std::move(stop)).run();
}

} // namespace kx
