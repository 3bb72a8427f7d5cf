#pragma once

#include "core/domain/evaluation.h"
#include "core/eval/evalrequest.h"
#include "core/eval/workerexchange.h"
#include "core/util/expected.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kx {

class WorkerProcess;

/// How the pool starts its workers.
struct WorkerPoolOptions
{
    /// Program and leading arguments, e.g. {"/usr/bin/kx", "worker"}; the pool appends "--device" N.
    std::vector<std::string> command;
    /// When set, the whole command of the worker for device N instead (a worker on another host, or in a Slurm
    /// job: see WorkerPlacement); command is then unused.
    std::function<std::vector<std::string>(int device)> commandFor;
    /**
     * Workers reached through ssh or srun: the wrapper's exit code hides how the worker died (a lost
     * connection, a cancelled or preempted job), so any death mid-evaluation counts as from outside and the
     * request runs once more.
     */
    bool remote = false;
    /**
     * CUDA device ordinals, one worker each. Empty means all: the pool starts workers for devices 0, 1, ... in
     * turn and stops at the first whose hello reports no usable GPU (ordinals are dense). If device 0 already
     * fails, start() returns that worker's error.
     */
    std::vector<int> devices;
    /// From spawning a worker to its hello (the GPU worker measures bandwidth at start: allow for it).
    std::chrono::milliseconds startTimeout{60000};
    /// How long a worker that was told to exit (or said it must) may take before it is killed.
    std::chrono::milliseconds exitGrace{3000};
    /// Consecutive failed restarts after which a worker is given up (state Failed).
    int maxRestartFailures = 3;
    int maxProbedDevices = 64;
};

enum class WorkerState { Starting, Idle, Busy, Restarting, Failed, Stopped };
const char *toString(WorkerState state);

/// A snapshot of one worker.
struct WorkerStatus
{
    int device = 0;
    WorkerState state = WorkerState::Starting;
    GpuInfo gpu;          ///< From the worker's hello.
    std::string arch;     ///< "sm_90" etc., derived from gpu.computeCapability.
    std::int64_t pid = 0; ///< Current process (0 when none).
    int restarts = 0;
    std::int64_t requestsSent = 0; ///< Evaluations handed to this worker, over all its restarts.
    std::string lastError;         ///< Why it last died or failed to start.
};

/**
 * Worker processes (`kx worker`, one per GPU) fed from one queue, one thread per worker.
 *
 * Every submitted request gets exactly one completion. A worker's death never reaches the caller as an
 * exception: a hang becomes an Evaluation with status Timeout (the worker is killed and restarted), a crash or
 * unreadable output becomes Crashed (with the exit status and the end of the worker's stderr), a result with
 * workerMustExit is delivered and the worker restarted. A worker killed from outside by SIGKILL, SIGTERM or
 * SIGHUP mid-evaluation is restarted and its request queued again, once (a second such death is Crashed). The
 * completion carries an Error only when the request never reached a worker: it was cancelled, the pool stopped, or no
 * worker can take it.
 *
 * Completions run on the pool's threads; they must not block for long nor call stop() or destroy the pool.
 */
class WorkerPool
{
public:
    using Completion = std::function<void(Expected<Evaluation>)>;

    explicit WorkerPool(WorkerPoolOptions options);
    ~WorkerPool(); ///< Stops.
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    /**
     * Starts the workers and waits for their hellos. Fails when no worker came up (the error names each
     * worker's problem); workers that failed while others came up are listed by workers() as Failed.
     */
    Status start();

    /**
     * Queues a request. Requests with a non-empty arch go only to workers of that arch, those with a device to
     * that device's worker (re-timing a kernel on every GPU). The pool assigns the request id;
     * settings.timeoutMs bounds the evaluation.
     */
    void submit(EvaluateRequest request, Completion done);
    std::future<Expected<Evaluation>> submit(EvaluateRequest request);

    /// Completes every queued request that has not reached a worker with an Error; returns how many.
    std::size_t cancelPending();
    /// Cancels queued requests, kills workers that are busy (their requests complete as cancelled), shuts down
    /// the others and joins the threads. Idempotent.
    void stop();

    std::vector<WorkerStatus> workers() const;
    /// The archs of workers that are running or starting, without duplicates, in device order.
    std::vector<std::string> archs() const;
    std::size_t pendingCount() const;

private:
    struct Job
    {
        EvaluateRequest request;
        Completion done;
        bool requeued = false; // Its worker was killed from outside once already.
    };
    struct Slot
    {
        WorkerStatus status; // Guarded by m_mutex.
        bool noGpu = false;  // Guarded by m_mutex: the hello said there is no such GPU.
        std::jthread thread;
    };
    using Failures = std::vector<std::pair<Job, std::string>>;

    Slot *addSlot(int device);
    void waitUntilStarted(const std::vector<Slot *> &slots);
    void runSlot(std::stop_token stop, Slot *slot);
    WorkerExchange::Hello launch(WorkerProcess &process, Slot *slot, std::stop_token stop);
    bool restart(std::unique_ptr<WorkerProcess> &process, Slot *slot, std::stop_token stop);
    WorkerExchange exchange(WorkerProcess &process) const;
    GpuInfo gpuOf(const Slot *slot) const;
    void setState(Slot *slot, WorkerState state);
    void giveUp(Slot *slot, WorkerState state, const std::string &error);
    static bool serves(const WorkerStatus &status, const EvaluateRequest &request);
    // The next three: caller holds m_mutex.
    bool canServe(const EvaluateRequest &request) const;
    std::string noWorkerReason(const EvaluateRequest &request) const;
    Failures takeUnservableJobs();
    static void complete(Failures failures);
    static void complete(Job &job, Expected<Evaluation> result);

    const WorkerPoolOptions m_options;
    mutable std::mutex m_mutex;
    std::condition_variable_any m_wakeWorkers; // New jobs, stop.
    std::condition_variable m_stateChanged;    // For start().
    std::deque<Job> m_queue;
    std::vector<std::unique_ptr<Slot>> m_slots;
    std::int64_t m_nextRequestId = 0;
    bool m_started = false;
    bool m_stopping = false;
};

} // namespace kx
