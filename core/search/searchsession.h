#pragma once

#include "core/archive/archiveref.h"
#include "core/baseline/inductorpackager.h"
#include "core/eval/evaluationservice.h"
#include "core/eval/workerplacement.h"
#include "core/eval/workerpool.h"
#include "core/search/searchengine.h"
#include "core/util/expected.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx {

struct SearchSessionOptions
{
    /// The archive the search writes; a read-only handle is refused by start(), continueRun() and evaluateManual().
    ArchiveRef archive;
    /// Program and leading arguments of a worker, e.g. {"/usr/bin/kx", "worker"} (the pool adds --device N).
    std::vector<std::string> workerCommand;
    std::vector<int> devices; ///< Empty: all GPUs.
    /// Workers on SSH hosts or in Slurm jobs (then devices are 0 .. workerCount() - 1 and workerCommand is
    /// unused); empty: local workers.
    std::optional<WorkerPlacement> placement;
    SearchSettings settings;
    /// Makes the run's proposer; empty: the template proposer.
    std::function<std::unique_ptr<Proposer>()> makeProposer;
    /// NVRTC's options, its time and memory limits among them (the workers' GPU gives the arch).
    CompileOptions compile;
    /// How the Inductor baseline is prepared (its package cache, the sandbox for the op's Python).
    InductorPackager::Options inductor;
};

/**
 * The facade for running one search: GPU workers, compile-ahead evaluation service and the engine, wired
 * together. Used by `kx search` and by the GUI. startWorkers() blocks (workers measure their GPU at start):
 * call it off the GUI thread. Events arrive on internal threads.
 */
class SearchSession
{
public:
    /// @p observer (not owned, may be null) also sees compile results; it must outlive the session.
    SearchSession(SearchSessionOptions options, SearchEventSink sink, EvaluationObserver *observer = nullptr);
    ~SearchSession(); ///< Cancels the search and stops the workers.
    SearchSession(const SearchSession &) = delete;
    SearchSession &operator=(const SearchSession &) = delete;

    /// Starts the workers; an Error says why there is no GPU to search on.
    Status startWorkers();
    std::vector<WorkerStatus> workers() const;

    /// Starts a search; one at a time, but a session whose search has ended (workers kept) can start another.
    Expected<std::int64_t> start(const Op &op, std::vector<std::unique_ptr<StopCondition>> extraStops = {});
    Expected<std::int64_t> continueRun(std::int64_t runId, std::vector<std::unique_ptr<StopCondition>> extraStops = {});

    /**
     * Evaluates a candidate made by hand (already stored in the archive) on this session's workers, with the
     * session's evaluation settings; works with or without a running search. When the evaluation completes it
     * is stored in the archive and reported to the sink as an Evaluated event (with an empty progress: it is
     * no part of the search's counts). @p done (may be empty) gets the stored evaluation or why there is none;
     * it runs on an internal thread, or at once on the caller's when the archive is read-only.
     */
    void evaluateManual(const Op &op, const Candidate &candidate, std::function<void(Expected<Evaluation>)> done = {});

    void pause();
    void resume();
    /// Stops after the evaluations in flight and drops queued compilations; the run can be continued later.
    void cancel();
    void wait();

    RunState state() const;
    SearchProgress progress() const;
    std::int64_t runId() const;

private:
    bool searching() const;
    /// An Error when the archive handle is read-only: everything that runs a kernel stores what it learns.
    Status writable() const;
    SearchEngine &makeEngine(std::vector<std::unique_ptr<StopCondition>> extraStops);

    SearchSessionOptions m_options;
    SearchEventSink m_sink;
    std::shared_ptr<EvaluationService> m_service;
    std::unique_ptr<SearchEngine> m_engine;
};

} // namespace kx
