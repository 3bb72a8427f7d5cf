#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/eval/evalrequest.h"
#include "core/search/candidateevaluator.h"
#include "core/search/proposer.h"
#include "core/search/stopcondition.h"
#include "core/util/expected.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kx {

class Archive;

/// When a search stops (any limit reached; 0: no limit). Stored with the run, so a continued run keeps it.
struct SearchBudget
{
    int generations = 5;   ///< Generations of evolution after the translation.
    int candidates = 0;    ///< Evaluated candidates in the run.
    double seconds = 0;    ///< Wall time of this session of the run.
    int noImprovement = 0; ///< Generations in a row without a new best.

    bool operator==(const SearchBudget &) const = default;
};

std::vector<std::unique_ptr<StopCondition>> makeStopConditions(const SearchBudget &budget);

/// How a search breeds. Stored with the run (JSON) so it can be continued and reproduced.
struct SearchSettings
{
    std::uint64_t seed = 1;
    int childrenPerGeneration = 8;
    int eliteSize = 6; ///< Best candidates eligible as parents.
    double crossoverRate = 0.25;
    int steppingStones = 4;              ///< Good kernels from earlier runs offered to the proposer.
    std::vector<std::string> similarOps; ///< Ops whose best kernels also count as stepping stones.
    SearchBudget budget;
    EvalSettings eval;
    /// On several GPUs: once the budget is spent, the best this many kernels are timed again on every GPU, so
    /// the GPUs compare on the same kernels (0: never).
    int retimeTop = 3;
};

std::string toJson(const SearchSettings &settings);
Expected<SearchSettings> searchSettingsFromJson(const std::string &json);

struct SearchEvent
{
    /// Note: a line for the run's log (how the baselines are timed, what could not be prepared).
    enum class Kind { Proposed, Evaluated, NewBest, GenerationFinished, StateChanged, Finished, Error, Note };
    Kind kind = Kind::StateChanged;
    std::int64_t runId = 0;
    std::optional<Candidate> candidate;   ///< Proposed, Evaluated, NewBest.
    std::optional<Evaluation> evaluation; ///< Evaluated, NewBest.
    RunState state = RunState::Running;
    SearchProgress progress;
    std::string message; ///< Error text, stop reason, proposal failures, notes.
};

/// Receives events on the engine's thread: keep it short (queue to another thread).
using SearchEventSink = std::function<void(const SearchEvent &)>;

/**
 * Runs one evolutionary search on a background thread: translate, then generation after generation
 * propose children (mutation, crossover, repair) from the run's best kernels and stepping stones of
 * earlier runs, evaluate them, and record everything in the archive. Each child is submitted for
 * evaluation as soon as it is proposed, so proposing and compiling overlap evaluation; results are
 * recorded once the generation's proposals are done, so a run is deterministic for a given seed and set
 * of results. Every candidate is stored before it is evaluated, so a killed run continues from the
 * archive where it stopped.
 */
class SearchEngine
{
public:
    /// The run stops when its settings' budget or any of the extra stop conditions says so.
    SearchEngine(std::string archivePath, std::unique_ptr<Proposer> proposer,
                 std::shared_ptr<CandidateEvaluator> evaluator, SearchSettings settings,
                 std::vector<std::unique_ptr<StopCondition>> extraStopConditions = {}, SearchEventSink sink = {});
    ~SearchEngine();
    SearchEngine(const SearchEngine &) = delete;
    SearchEngine &operator=(const SearchEngine &) = delete;

    /// Creates a run for op in the archive and starts searching. Returns the run id.
    Expected<std::int64_t> start(const Op &op);
    /// Continues a run stored in the archive (after a pause, a crash or a kill), with its own settings.
    Expected<std::int64_t> continueRun(std::int64_t runId);

    void pause();
    void resume();
    /// Stops after the evaluations in flight; the run is recorded as cancelled.
    void cancel();
    /// Blocks until the search thread has finished.
    void wait();

    RunState state() const;
    SearchProgress progress() const;
    std::int64_t runId() const;

private:
    class Loop; // The search on the engine's thread (searchloop.cpp).
    Expected<std::int64_t> launch(std::optional<Op> op, std::optional<std::int64_t> runId);
    Status refuseUnproposable(const Op &op) const;
    void runLoop(std::unique_ptr<Archive> archive, Op op, Run run, std::stop_token stop);

    std::string m_archivePath;
    std::unique_ptr<Proposer> m_proposer;
    std::shared_ptr<CandidateEvaluator> m_evaluator;
    SearchSettings m_settings;
    std::vector<std::unique_ptr<StopCondition>> m_stopConditions;
    SearchEventSink m_sink;

    mutable std::mutex m_mutex;
    std::condition_variable_any m_resumed;
    bool m_paused = false;
    RunState m_state = RunState::Created;
    SearchProgress m_progress;
    std::int64_t m_runId = 0;
    std::jthread m_thread;
};

} // namespace kx
