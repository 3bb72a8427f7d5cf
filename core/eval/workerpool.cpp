#include "core/eval/workerpool.h"

#include "core/eval/evalcompletion.h"
#include "core/eval/protocol.h"
#include "core/eval/workerprocess.h"
#include "core/util/clock.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <optional>

namespace kx {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Long waits are cut into slices so that stop() is noticed promptly.
constexpr milliseconds kSlice{100};
// How often an idle worker's thread wakes to drain its stderr and check that it is still alive.
constexpr milliseconds kIdleCheck{250};
constexpr std::size_t kStderrInMessage = 4096;
// The most a busy message may add to a request's time: a baseline that takes longer counts as hung.
constexpr double kMaxBusyExtensionMs = 60.0 * 60 * 1000;

std::string msText(Clock::duration duration)
{
    return std::to_string(std::chrono::duration_cast<milliseconds>(duration).count()) + " ms";
}

std::string withStderr(std::string message, std::string tail)
{
    while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())))
        tail.pop_back();
    if (tail.empty())
        return message + "; it wrote nothing to stderr";
    if (tail.size() > kStderrInMessage)
        tail = "..." + tail.substr(tail.size() - kStderrInMessage);
    return message + "; the end of its stderr:\n" + tail;
}

Evaluation hostEvaluation(const EvaluateRequest &request, const GpuInfo &gpu, EvalStatus status,
                          std::string message)
{
    Evaluation evaluation;
    evaluation.candidateId = request.candidate.id;
    evaluation.gpu = gpu;
    evaluation.status = status;
    evaluation.message = std::move(message);
    evaluation.compile = request.compile;
    evaluation.createdAtMs = nowMs();
    return evaluation;
}

bool isLive(WorkerState state)
{
    return state != WorkerState::Failed && state != WorkerState::Stopped;
}

} // namespace

const char *toString(WorkerState state)
{
    switch (state) {
    case WorkerState::Starting: return "starting";
    case WorkerState::Idle: return "idle";
    case WorkerState::Busy: return "busy";
    case WorkerState::Restarting: return "restarting";
    case WorkerState::Failed: return "failed";
    case WorkerState::Stopped: return "stopped";
    }
    return "unknown";
}

std::string archForComputeCapability(const std::string &computeCapability)
{
    const auto dot = computeCapability.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= computeCapability.size())
        return {};
    const std::string major = computeCapability.substr(0, dot);
    const std::string minor = computeCapability.substr(dot + 1);
    const auto digits = [](const std::string &text) {
        return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    if (!digits(major) || !digits(minor))
        return {};
    return "sm_" + major + minor;
}

WorkerPool::WorkerPool(WorkerPoolOptions options)
    : m_options(std::move(options))
{
}

WorkerPool::~WorkerPool()
{
    stop();
}

Status WorkerPool::start()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return Error{"the worker pool is stopped"};
        if (m_started || !m_slots.empty())
            return Error{"the worker pool is already started"};
        if (!m_options.commandFor && (m_options.command.empty() || m_options.command.front().empty()))
            return Error{"no worker command given"};
    }

    std::string error;
    if (!m_options.devices.empty()) {
        std::vector<Slot *> slots;
        for (int device : m_options.devices) {
            if (Slot *slot = addSlot(device))
                slots.push_back(slot);
        }
        waitUntilStarted(slots);
        std::lock_guard lock(m_mutex);
        bool anyRunning = false;
        for (Slot *slot : slots) {
            if (isLive(slot->status.state))
                anyRunning = true;
            else
                error += (error.empty() ? "" : "; ") + slot->status.lastError;
        }
        if (anyRunning)
            error.clear();
    } else {
        for (int device = 0; device < m_options.maxProbedDevices; ++device) {
            Slot *slot = addSlot(device);
            if (!slot)
                break;
            waitUntilStarted({slot});
            std::unique_lock lock(m_mutex);
            if (m_stopping || isLive(slot->status.state))
                continue;
            if (device == 0) {
                error = slot->status.lastError;
                break;
            }
            if (!slot->noGpu)
                continue; // The device exists but its worker failed: keep it listed as failed, probe on.
            // No device with this ordinal: the probe ends; its slot goes (its thread has finished).
            const auto it = std::find_if(m_slots.begin(), m_slots.end(),
                                         [slot](const auto &owned) { return owned.get() == slot; });
            std::unique_ptr<Slot> owned = std::move(*it);
            m_slots.erase(it);
            lock.unlock();
            owned.reset();
            break;
        }
    }

    Failures failures;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return Error{"the worker pool was stopped while starting"};
        m_started = true;
        failures = takeUnservableJobs();
    }
    complete(std::move(failures));
    if (!error.empty())
        return Error{error};
    return Status::ok();
}

WorkerPool::Slot *WorkerPool::addSlot(int device)
{
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return nullptr;
    auto slot = std::make_unique<Slot>();
    slot->status.device = device;
    Slot *raw = slot.get();
    m_slots.push_back(std::move(slot));
    raw->thread = std::jthread([this, raw](std::stop_token stop) { runSlot(stop, raw); });
    return raw;
}

void WorkerPool::waitUntilStarted(const std::vector<Slot *> &slots)
{
    std::unique_lock lock(m_mutex);
    m_stateChanged.wait(lock, [&] {
        return m_stopping || std::none_of(slots.begin(), slots.end(), [](const Slot *slot) {
                   return slot->status.state == WorkerState::Starting;
               });
    });
}

void WorkerPool::submit(EvaluateRequest request, Completion done)
{
    Job job{std::move(request), std::move(done)};
    std::string refusal;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) {
            refusal = "the worker pool is stopped";
        } else if (m_started && !canServe(job.request)) {
            refusal = noWorkerReason(job.request);
        } else {
            job.request.id = ++m_nextRequestId;
            m_queue.push_back(std::move(job));
        }
    }
    if (!refusal.empty()) {
        complete(job, Error{refusal});
        return;
    }
    m_wakeWorkers.notify_all();
}

std::future<Expected<Evaluation>> WorkerPool::submit(EvaluateRequest request)
{
    return futureOf([&](Completion done) { submit(std::move(request), std::move(done)); });
}

std::size_t WorkerPool::cancelPending()
{
    Failures failures;
    {
        std::lock_guard lock(m_mutex);
        for (Job &job : m_queue)
            failures.emplace_back(std::move(job), "cancelled before it reached a worker");
        m_queue.clear();
    }
    const std::size_t count = failures.size();
    complete(std::move(failures));
    return count;
}

void WorkerPool::stop()
{
    Failures failures;
    std::vector<Slot *> slots;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        for (Job &job : m_queue)
            failures.emplace_back(std::move(job), "cancelled: the worker pool stopped");
        m_queue.clear();
        for (const auto &slot : m_slots) {
            slot->thread.request_stop();
            slots.push_back(slot.get());
        }
    }
    complete(std::move(failures));
    m_wakeWorkers.notify_all();
    m_stateChanged.notify_all();
    // Once m_stopping is set, m_slots no longer changes, so the pointers stay valid.
    for (Slot *slot : slots) {
        if (slot->thread.joinable() && slot->thread.get_id() != std::this_thread::get_id())
            slot->thread.join();
    }
}

std::vector<WorkerStatus> WorkerPool::workers() const
{
    std::lock_guard lock(m_mutex);
    std::vector<WorkerStatus> result;
    for (const auto &slot : m_slots)
        result.push_back(slot->status);
    return result;
}

std::vector<std::string> WorkerPool::archs() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> result;
    for (const auto &slot : m_slots) {
        const std::string &arch = slot->status.arch;
        if (isLive(slot->status.state) && !arch.empty()
            && std::find(result.begin(), result.end(), arch) == result.end())
            result.push_back(arch);
    }
    return result;
}

std::size_t WorkerPool::pendingCount() const
{
    std::lock_guard lock(m_mutex);
    return m_queue.size();
}

void WorkerPool::runSlot(std::stop_token stop, Slot *slot)
{
    auto process = std::make_unique<WorkerProcess>();
    const StartResult started = launch(*process, slot, stop);
    if (!started.ok) {
        {
            std::lock_guard lock(m_mutex);
            slot->noGpu = started.noGpu;
        }
        giveUp(slot, stop.stop_requested() ? WorkerState::Stopped : WorkerState::Failed, started.error);
        return;
    }
    setState(slot, WorkerState::Idle);

    while (!stop.stop_requested()) {
        std::optional<Job> job;
        {
            std::unique_lock lock(m_mutex);
            const auto next = [&] {
                return std::find_if(m_queue.begin(), m_queue.end(),
                                    [&](const Job &candidate) { return serves(slot->status, candidate.request); });
            };
            m_wakeWorkers.wait_for(lock, stop, kIdleCheck, [&] { return next() != m_queue.end(); });
            if (stop.stop_requested())
                break;
            if (const auto it = next(); it != m_queue.end()) {
                job = std::move(*it);
                m_queue.erase(it);
                slot->status.state = WorkerState::Busy;
                ++slot->status.requestsSent;
            }
        }

        // Keep stderr flowing and notice a worker that died between requests, so no request is blamed for it.
        process->drainStderr();
        if (process->poll()) {
            const std::string why = withStderr("the worker exited while idle ("
                                                   + process->exitStatus()->toString() + ")",
                                               process->stderrTail());
            if (!restart(process, slot, stop)) {
                if (job) {
                    // This worker is gone for good: hand the request to another one, or fail it if none is left.
                    Failures failures;
                    {
                        std::lock_guard lock(m_mutex);
                        --slot->status.requestsSent;
                        if (m_stopping) {
                            failures.emplace_back(std::move(*job), "cancelled: the worker pool stopped");
                        } else {
                            m_queue.push_front(std::move(*job));
                            failures = takeUnservableJobs();
                        }
                    }
                    m_wakeWorkers.notify_all();
                    complete(std::move(failures));
                }
                break;
            }
            std::lock_guard lock(m_mutex);
            slot->status.lastError = why;
            if (job)
                slot->status.state = WorkerState::Busy;
        }
        if (!job)
            continue;

        RunResult result = evaluate(*process, slot, job->request, stop);
        if (result.killedFromOutside && !job->requeued && !stop.stop_requested()) {
            // Not the candidate's doing: it runs again on whichever worker serves it next.
            std::lock_guard lock(m_mutex);
            slot->status.lastError = result.evaluation ? result.evaluation->message : std::string{};
            job->requeued = true;
            m_queue.push_front(std::move(*job));
        } else {
            complete(*job, std::move(result.evaluation));
        }
        m_wakeWorkers.notify_all();
        if (stop.stop_requested())
            break;
        if (result.restart) {
            if (!restart(process, slot, stop))
                break;
        } else {
            setState(slot, WorkerState::Idle);
        }
    }

    shutdownWorker(*process);
    {
        std::lock_guard lock(m_mutex);
        if (slot->status.state != WorkerState::Failed)
            slot->status.state = WorkerState::Stopped;
        slot->status.pid = 0;
    }
    m_stateChanged.notify_all();
}

WorkerPool::StartResult WorkerPool::launch(WorkerProcess &process, Slot *slot, std::stop_token stop)
{
    int device;
    {
        std::lock_guard lock(m_mutex);
        device = slot->status.device;
        slot->status.pid = 0;
    }
    const std::string who = "the worker for device " + std::to_string(device);
    std::vector<std::string> argv = m_options.command;
    if (m_options.commandFor) {
        argv = m_options.commandFor(device);
    } else {
        argv.push_back("--device");
        argv.push_back(std::to_string(device));
    }
    if (Status started = process.start(argv); !started)
        return {false, false, who + ": " + started.error().message};
    {
        std::lock_guard lock(m_mutex);
        slot->status.pid = process.pid();
    }

    const auto deadline = Clock::now() + m_options.startTimeout;
    std::string line;
    WorkerProcess::ReadStatus status;
    for (;;) {
        status = process.readLine(line, std::min(deadline, Clock::now() + kSlice));
        if (status != WorkerProcess::ReadStatus::Timeout)
            break;
        if (stop.stop_requested()) {
            process.kill();
            return {false, false, who + ": stopped while starting"};
        }
        if (Clock::now() >= deadline) {
            process.kill();
            return {false, false,
                    withStderr(who + " did not say hello within " + msText(m_options.startTimeout)
                                   + "; it was killed",
                               process.stderrTail())};
        }
    }
    if (status == WorkerProcess::ReadStatus::Closed) {
        const ProcessExit exit = process.waitForExit(Clock::now() + m_options.exitGrace);
        return {false, false, withStderr(who + " exited before its hello (" + exit.toString() + ")",
                                         process.stderrTail())};
    }
    if (status == WorkerProcess::ReadStatus::TooLong) {
        process.kill();
        return {false, false, who + " wrote a line longer than the protocol allows instead of its hello"};
    }

    auto message = parseWorkerMessage(line);
    if (!message) {
        process.kill();
        return {false, false, who + " sent an unreadable hello: " + message.error().message};
    }
    const auto *hello = std::get_if<HelloMessage>(&*message);
    if (!hello) {
        process.kill();
        return {false, false, who + " sent a \"" + messageType(*message) + "\" message instead of its hello"};
    }
    if (!hello->error.empty()) {
        // A worker without a GPU says why and exits by itself.
        process.waitForExit(Clock::now() + m_options.exitGrace);
        return {false, true, "device " + std::to_string(device) + ": " + hello->error};
    }
    std::lock_guard lock(m_mutex);
    slot->status.gpu = hello->gpu;
    slot->status.arch = archForComputeCapability(hello->gpu.computeCapability);
    return {true, false, {}};
}

bool WorkerPool::restart(std::unique_ptr<WorkerProcess> &process, Slot *slot, std::stop_token stop)
{
    setState(slot, WorkerState::Restarting);
    process->kill();
    const int attempts = std::max(1, m_options.maxRestartFailures);
    std::string error;
    for (int attempt = 1; attempt <= attempts; ++attempt) {
        if (stop.stop_requested())
            return false;
        process = std::make_unique<WorkerProcess>();
        const StartResult started = launch(*process, slot, stop);
        if (started.ok) {
            {
                std::lock_guard lock(m_mutex);
                ++slot->status.restarts;
                slot->status.state = WorkerState::Idle;
            }
            m_stateChanged.notify_all();
            return true;
        }
        error = started.error;
        // Back off a little before the next attempt (a device may need a moment after a crash).
        std::unique_lock lock(m_mutex);
        slot->status.lastError = error;
        m_wakeWorkers.wait_for(lock, stop, milliseconds(250 * attempt), [] { return false; });
    }
    if (stop.stop_requested())
        return false;
    giveUp(slot, WorkerState::Failed,
           "gave up after " + std::to_string(attempts) + " failed restarts; the last: " + error);
    return false;
}

WorkerPool::RunResult WorkerPool::evaluate(WorkerProcess &process, Slot *slot, const EvaluateRequest &request,
                                           std::stop_token stop)
{
    GpuInfo gpu;
    {
        std::lock_guard lock(m_mutex);
        gpu = slot->status.gpu;
    }
    const double timeoutMs = request.settings.timeoutMs > 0 ? request.settings.timeoutMs : EvalSettings{}.timeoutMs;
    const auto timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(timeoutMs));
    const auto begin = Clock::now();
    auto deadline = begin + timeout; // A worker measuring a baseline asks for more (a busy message).

    const auto died = [&] {
        const ProcessExit exit = process.waitForExit(Clock::now() + m_options.exitGrace);
        const bool fromOutside = m_options.remote
                                 || (exit.signaled && (exit.signal == SIGKILL || exit.signal == SIGTERM || exit.signal == SIGHUP));
        return RunResult{hostEvaluation(request, gpu, EvalStatus::Crashed,
                                        withStderr("the worker died during the evaluation (" + exit.toString()
                                                       + ") and was restarted",
                                                   process.stderrTail())),
                         true, fromOutside};
    };
    const auto garbage = [&](const std::string &what) {
        process.kill();
        return RunResult{hostEvaluation(request, gpu, EvalStatus::Crashed,
                                        withStderr("the worker broke the protocol (" + what
                                                       + "); it was killed and restarted",
                                                   process.stderrTail())),
                         true};
    };
    const auto timedOut = [&] {
        process.kill();
        return RunResult{hostEvaluation(request, gpu, EvalStatus::Timeout,
                                        "no result within " + msText(timeout) + " (waited "
                                            + msText(Clock::now() - begin) + "); the worker was killed and restarted"),
                         true};
    };
    const auto cancelled = [&] {
        process.kill();
        return RunResult{Error{"cancelled: the worker pool stopped during the evaluation"}, true};
    };

    if (Status sent = process.write(serialize(HostMessage{EvaluateMessage{request}}), deadline); !sent) {
        if (Clock::now() >= deadline)
            return timedOut();
        return died();
    }

    std::string line;
    for (;;) {
        const auto status = process.readLine(line, std::min(deadline, Clock::now() + kSlice));
        if (status == WorkerProcess::ReadStatus::Timeout) {
            if (stop.stop_requested())
                return cancelled();
            if (Clock::now() >= deadline)
                return timedOut();
            continue;
        }
        if (status == WorkerProcess::ReadStatus::Closed)
            return died();
        if (status == WorkerProcess::ReadStatus::TooLong)
            return garbage("a line longer than " + std::to_string(WorkerProcess::kMaxLineBytes) + " bytes");

        auto message = parseWorkerMessage(line);
        if (!message)
            return garbage(message.error().message);
        if (std::holds_alternative<PongMessage>(*message))
            continue;
        if (const auto *busy = std::get_if<BusyMessage>(&*message)) {
            if (busy->id != request.id)
                return garbage("a busy message for request " + std::to_string(busy->id) + " while request "
                               + std::to_string(request.id) + " was pending");
            const auto extra = std::chrono::duration_cast<Clock::duration>(
                std::chrono::duration<double, std::milli>(std::min(busy->extraMs, kMaxBusyExtensionMs)));
            deadline = std::max(deadline, Clock::now() + extra + timeout);
            continue;
        }
        if (const auto *error = std::get_if<ErrorMessage>(&*message)) {
            if (error->id && *error->id != request.id)
                return garbage("an error for request " + std::to_string(*error->id) + " while request "
                               + std::to_string(request.id) + " was pending");
            return {hostEvaluation(request, gpu, EvalStatus::Crashed,
                                   "the worker could not evaluate the request: " + error->message),
                    false};
        }
        auto *result = std::get_if<ResultMessage>(&*message);
        if (!result)
            return garbage(std::string("an unexpected \"") + messageType(*message) + "\" message");
        if (result->id != request.id)
            return garbage("a result for request " + std::to_string(result->id) + " while request "
                           + std::to_string(request.id) + " was pending");

        Evaluation evaluation = std::move(result->evaluation);
        if (evaluation.candidateId.empty())
            evaluation.candidateId = request.candidate.id;
        if (evaluation.gpu.name.empty())
            evaluation.gpu = gpu;
        if (evaluation.createdAtMs == 0)
            evaluation.createdAtMs = nowMs();
        if (result->workerMustExit) {
            // Its CUDA context is gone: let it exit by itself, then start a fresh one.
            process.closeStdin();
            process.waitForExit(Clock::now() + m_options.exitGrace);
            return {std::move(evaluation), true};
        }
        return {std::move(evaluation), false};
    }
}

void WorkerPool::shutdownWorker(WorkerProcess &process)
{
    if (!process.isStarted() || process.poll())
        return;
    const auto deadline = Clock::now() + m_options.exitGrace;
    (void)process.write(serialize(HostMessage{ShutdownMessage{}}), deadline);
    process.closeStdin();
    process.waitForExit(deadline);
}

void WorkerPool::setState(Slot *slot, WorkerState state)
{
    {
        std::lock_guard lock(m_mutex);
        slot->status.state = state;
    }
    m_stateChanged.notify_all();
}

void WorkerPool::giveUp(Slot *slot, WorkerState state, const std::string &error)
{
    Failures failures;
    {
        std::lock_guard lock(m_mutex);
        slot->status.state = state;
        slot->status.lastError = error;
        slot->status.pid = 0;
        failures = takeUnservableJobs();
    }
    m_stateChanged.notify_all();
    complete(std::move(failures));
}

bool WorkerPool::serves(const WorkerStatus &status, const EvaluateRequest &request)
{
    return (request.arch.empty() || status.arch == request.arch)
           && (request.device < 0 || status.device == request.device);
}

bool WorkerPool::canServe(const EvaluateRequest &request) const
{
    return std::any_of(m_slots.begin(), m_slots.end(), [&](const auto &slot) {
        const WorkerStatus &status = slot->status;
        if (!isLive(status.state))
            return false;
        if (status.state == WorkerState::Starting)
            return request.device < 0 || status.device == request.device;
        return serves(status, request);
    });
}

std::string WorkerPool::noWorkerReason(const EvaluateRequest &request) const
{
    std::string reason = request.arch.empty() ? "no GPU worker" : "no GPU worker for " + request.arch;
    if (request.device >= 0)
        reason += " on device " + std::to_string(request.device);
    reason += " is running";
    std::string details;
    for (const auto &slot : m_slots) {
        const WorkerStatus &status = slot->status;
        details += details.empty() ? " (" : "; ";
        details += "device " + std::to_string(status.device) + ": " + toString(status.state);
        if (!status.arch.empty())
            details += " " + status.arch;
        if (!isLive(status.state) && !status.lastError.empty())
            details += ", " + status.lastError;
    }
    return reason + (details.empty() ? "" : details + ")");
}

WorkerPool::Failures WorkerPool::takeUnservableJobs()
{
    Failures failures;
    if (!m_started)
        return failures;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        if (canServe(it->request)) {
            ++it;
            continue;
        }
        std::string reason = noWorkerReason(it->request);
        failures.emplace_back(std::move(*it), std::move(reason));
        it = m_queue.erase(it);
    }
    return failures;
}

void WorkerPool::complete(Failures failures)
{
    for (auto &[job, reason] : failures)
        complete(job, Error{reason});
}

void WorkerPool::complete(Job &job, Expected<Evaluation> result)
{
    if (!job.done)
        return;
    runCompletion([&] { job.done(std::move(result)); });
}

} // namespace kx
