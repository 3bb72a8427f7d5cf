#include "core/eval/workerpool.h"

#include "core/eval/evalcompletion.h"
#include "core/eval/workerexchange.h"
#include "core/eval/workerprocess.h"
#include "core/plan/nvrtccompiler.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace kx {
namespace {

using std::chrono::milliseconds;

// How often an idle worker's thread wakes to drain its stderr and check that it is still alive.
constexpr milliseconds kIdleCheck{250};

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

WorkerPool::WorkerPool(WorkerPoolOptions options)
    : m_options(std::move(options))
{}

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
            const auto it =
                std::find_if(m_slots.begin(), m_slots.end(), [slot](const auto &owned) { return owned.get() == slot; });
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
    const WorkerExchange::Hello started = launch(*process, slot, stop);
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
        if (const auto why = exchange(*process).exitWhileIdle()) {
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
            slot->status.lastError = *why;
            if (job)
                slot->status.state = WorkerState::Busy;
        }
        if (!job)
            continue;

        WorkerExchange::Outcome result = exchange(*process).evaluate(job->request, gpuOf(slot), stop);
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

    exchange(*process).shutdown();
    {
        std::lock_guard lock(m_mutex);
        if (slot->status.state != WorkerState::Failed)
            slot->status.state = WorkerState::Stopped;
        slot->status.pid = 0;
    }
    m_stateChanged.notify_all();
}

WorkerExchange::Hello WorkerPool::launch(WorkerProcess &process, Slot *slot, std::stop_token stop)
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

    WorkerExchange::Hello hello = exchange(process).awaitHello(who, stop);
    if (hello.noGpu)
        hello.error = "device " + std::to_string(device) + ": " + hello.error;
    if (!hello.ok)
        return hello;
    std::lock_guard lock(m_mutex);
    slot->status.gpu = hello.gpu;
    slot->status.arch = archForComputeCapability(hello.gpu.computeCapability);
    return hello;
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
        const WorkerExchange::Hello started = launch(*process, slot, stop);
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

WorkerExchange WorkerPool::exchange(WorkerProcess &process) const
{
    return {process, {m_options.startTimeout, m_options.exitGrace, m_options.remote}};
}

GpuInfo WorkerPool::gpuOf(const Slot *slot) const
{
    std::lock_guard lock(m_mutex);
    return slot->status.gpu;
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
