#pragma once

#include "core/domain/evaluation.h"
#include "core/eval/evalrequest.h"
#include "core/util/expected.h"

#include <chrono>
#include <optional>
#include <stop_token>
#include <string>

namespace kx {

class WorkerProcess;

/**
 * The protocol as the worker pool speaks it with one started worker process: its hello, one request at a time,
 * its shutdown. It tells what the worker did (answered, hung, crashed, broke the protocol, was killed); which
 * worker runs what, and restarting it, are the pool's.
 */
class WorkerExchange
{
public:
    struct Limits
    {
        std::chrono::milliseconds startTimeout; ///< From spawning the worker to its hello.
        std::chrono::milliseconds exitGrace;    ///< How long a worker told to exit may take before it is killed.
        bool remote = false;                    ///< Any death mid-evaluation counts as from outside.
    };

    /// How the hello went.
    struct Hello
    {
        bool ok = false;
        bool noGpu = false; ///< The worker ran and said it has no usable GPU.
        std::string error;
        GpuInfo gpu; ///< When ok.
    };

    /// How one request went.
    struct Outcome
    {
        Expected<Evaluation> evaluation = Error{};
        bool restart = false;
        /// The worker was killed by a signal from outside (SIGKILL, SIGTERM, SIGHUP: an OOM killer, a
        /// scheduler's preemption, a person): not the candidate's doing, so the request runs once more.
        bool killedFromOutside = false;
    };

    WorkerExchange(WorkerProcess &process, Limits limits);

    /// Waits for a just started worker's hello; who names the worker in errors ("the worker for device 2").
    /// A worker without a GPU says why (noGpu, error: its reason) and exits by itself.
    Hello awaitHello(const std::string &who, std::stop_token stop);
    /// Sends the request and waits for its result within the request's timeout, which a busy message extends.
    Outcome evaluate(const EvaluateRequest &request, const GpuInfo &gpu, std::stop_token stop);
    /// Keeps the idle worker's stderr flowing; why it exited, if it has.
    std::optional<std::string> exitWhileIdle();
    /// Asks a running worker to exit and waits for it (killed after the grace).
    void shutdown();

private:
    WorkerProcess &m_process;
    Limits m_limits;
};

} // namespace kx
