#include "core/eval/workerexchange.h"

#include "core/eval/protocol.h"
#include "core/eval/workerprocess.h"
#include "core/util/clock.h"

#include <algorithm>
#include <cctype>
#include <csignal>

namespace kx {
namespace {

using Clock = std::chrono::steady_clock;

// A hello that did not come, or said the worker has no usable GPU.
WorkerExchange::Hello failedHello(std::string error, bool noGpu = false)
{
    WorkerExchange::Hello hello;
    hello.noGpu = noGpu;
    hello.error = std::move(error);
    return hello;
}
using std::chrono::milliseconds;

// Long waits are cut into slices so that stop() is noticed promptly.
constexpr milliseconds kSlice{100};
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

Evaluation hostEvaluation(const EvaluateRequest &request, const GpuInfo &gpu, EvalStatus status, std::string message)
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

} // namespace

WorkerExchange::WorkerExchange(WorkerProcess &process, Limits limits)
    : m_process(process)
    , m_limits(limits)
{}

WorkerExchange::Hello WorkerExchange::awaitHello(const std::string &who, std::stop_token stop)
{
    const auto deadline = Clock::now() + m_limits.startTimeout;
    std::string line;
    WorkerProcess::ReadStatus status;
    for (;;) {
        status = m_process.readLine(line, std::min(deadline, Clock::now() + kSlice));
        if (status != WorkerProcess::ReadStatus::Timeout)
            break;
        if (stop.stop_requested()) {
            m_process.kill();
            return failedHello(who + ": stopped while starting");
        }
        if (Clock::now() >= deadline) {
            m_process.kill();
            return failedHello(
                withStderr(who + " did not say hello within " + msText(m_limits.startTimeout) + "; it was killed",
                           m_process.stderrTail()));
        }
    }
    if (status == WorkerProcess::ReadStatus::Closed) {
        const ProcessExit exit = m_process.waitForExit(Clock::now() + m_limits.exitGrace);
        return failedHello(
            withStderr(who + " exited before its hello (" + exit.toString() + ")", m_process.stderrTail()));
    }
    if (status == WorkerProcess::ReadStatus::TooLong) {
        m_process.kill();
        return failedHello(who + " wrote a line longer than the protocol allows instead of its hello");
    }

    auto message = parseWorkerMessage(line);
    if (!message) {
        m_process.kill();
        return failedHello(who + " sent an unreadable hello: " + message.error().message);
    }
    const auto *hello = std::get_if<HelloMessage>(&*message);
    if (!hello) {
        m_process.kill();
        return failedHello(who + " sent a \"" + messageType(*message) + "\" message instead of its hello");
    }
    if (!hello->error.empty()) {
        // A worker without a GPU says why and exits by itself.
        m_process.waitForExit(Clock::now() + m_limits.exitGrace);
        return failedHello(hello->error, true);
    }
    return {true, false, {}, hello->gpu};
}

WorkerExchange::Outcome WorkerExchange::evaluate(const EvaluateRequest &request, const GpuInfo &gpu,
                                                 std::stop_token stop)
{
    const double timeoutMs = request.settings.timeoutMs > 0 ? request.settings.timeoutMs : EvalSettings{}.timeoutMs;
    const auto timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(timeoutMs));
    const auto begin = Clock::now();
    auto deadline = begin + timeout; // A worker measuring a baseline asks for more (a busy message).

    const auto died = [&] {
        const ProcessExit exit = m_process.waitForExit(Clock::now() + m_limits.exitGrace);
        const bool fromOutside =
            m_limits.remote
            || (exit.signaled && (exit.signal == SIGKILL || exit.signal == SIGTERM || exit.signal == SIGHUP));
        return Outcome{hostEvaluation(request, gpu, EvalStatus::Crashed,
                                      withStderr("the worker died during the evaluation (" + exit.toString()
                                                     + ") and was restarted",
                                                 m_process.stderrTail())),
                       true, fromOutside};
    };
    const auto garbage = [&](const std::string &what) {
        m_process.kill();
        return Outcome{
            hostEvaluation(request, gpu, EvalStatus::Crashed,
                           withStderr("the worker broke the protocol (" + what + "); it was killed and restarted",
                                      m_process.stderrTail())),
            true};
    };
    const auto timedOut = [&] {
        m_process.kill();
        return Outcome{hostEvaluation(request, gpu, EvalStatus::Timeout,
                                      "no result within " + msText(timeout) + " (waited " + msText(Clock::now() - begin)
                                          + "); the worker was killed and restarted"),
                       true};
    };
    const auto cancelled = [&] {
        m_process.kill();
        return Outcome{Error{"cancelled: the worker pool stopped during the evaluation"}, true};
    };

    if (Status sent = m_process.write(serialize(HostMessage{EvaluateMessage{request}}), deadline); !sent) {
        if (Clock::now() >= deadline)
            return timedOut();
        return died();
    }

    std::string line;
    for (;;) {
        const auto status = m_process.readLine(line, std::min(deadline, Clock::now() + kSlice));
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
            m_process.closeStdin();
            m_process.waitForExit(Clock::now() + m_limits.exitGrace);
            return {std::move(evaluation), true};
        }
        return {std::move(evaluation), false};
    }
}

std::optional<std::string> WorkerExchange::exitWhileIdle()
{
    m_process.drainStderr();
    if (!m_process.poll())
        return std::nullopt;
    return withStderr("the worker exited while idle (" + m_process.exitStatus()->toString() + ")",
                      m_process.stderrTail());
}

void WorkerExchange::shutdown()
{
    if (!m_process.isStarted() || m_process.poll())
        return;
    const auto deadline = Clock::now() + m_limits.exitGrace;
    (void)m_process.write(serialize(HostMessage{ShutdownMessage{}}), deadline);
    m_process.closeStdin();
    m_process.waitForExit(deadline);
}

} // namespace kx
