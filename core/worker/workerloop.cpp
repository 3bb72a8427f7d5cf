#include "core/worker/workerloop.h"

#include "core/eval/protocol.h"
#include "core/util/clock.h"

#include <unistd.h>

#include <iostream>
#include <optional>

namespace kx {
namespace {

std::string hostName()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

void log(int device, const std::string &text)
{
    std::cerr << "kx worker (device " << device << "): " << text << std::endl;
}

bool send(std::ostream &out, const WorkerMessage &message)
{
    out << serialize(message);
    out.flush();
    return static_cast<bool>(out);
}

// The id of a line that failed to parse as a message, when it has one, so the host can match the error.
std::optional<std::int64_t> idOf(const std::string &line)
{
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) {
        if (const auto it = j.find("id"); it != j.end() && it->is_number_integer())
            return it->get<std::int64_t>();
    }
    return std::nullopt;
}

std::string unusableReason(Evaluator &evaluator)
{
    try {
        const EvaluateOutcome outcome = evaluator.evaluate(EvaluateRequest{});
        return outcome.evaluation.message;
    } catch (const std::exception &error) {
        return error.what();
    }
}

EvaluateOutcome evaluateSafely(Evaluator &evaluator, const EvaluateRequest &request)
{
    EvaluateOutcome outcome;
    try {
        outcome = evaluator.evaluate(request);
    } catch (const std::exception &error) {
        outcome = {};
        outcome.evaluation.status = EvalStatus::Crashed;
        outcome.evaluation.message = std::string("the evaluator failed: ") + error.what();
    }
    if (outcome.evaluation.candidateId.empty())
        outcome.evaluation.candidateId = request.candidate.id;
    if (outcome.evaluation.gpu.host.empty())
        outcome.evaluation.gpu.host = hostName();
    if (outcome.evaluation.createdAtMs == 0)
        outcome.evaluation.createdAtMs = nowMs();
    return outcome;
}

} // namespace

WorkerExit runWorker(std::istream &in, std::ostream &out, Evaluator &evaluator, int device)
{
    HelloMessage hello;
    hello.pid = ::getpid();
    hello.device = device;
    try {
        hello.gpu = evaluator.describe();
        if (hello.gpu.host.empty())
            hello.gpu.host = hostName(); // workers may run elsewhere (SSH, Slurm): results say where
        if (hello.gpu.name.empty()) {
            const std::string reason = unusableReason(evaluator);
            hello.error = "no usable GPU on device " + std::to_string(device) + (reason.empty() ? "" : ": " + reason);
        }
    } catch (const std::exception &error) {
        hello.error = "no usable GPU on device " + std::to_string(device) + ": " + error.what();
    }
    if (!send(out, hello))
        return WorkerExit::EndOfInput;
    if (!hello.error.empty()) {
        log(device, hello.error);
        return WorkerExit::NoGpu;
    }

    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line == "\r")
            continue;
        auto message = parseHostMessage(line);
        if (!message) {
            log(device, message.error().message);
            if (!send(out, ErrorMessage{idOf(line), message.error().message}))
                return WorkerExit::EndOfInput;
            continue;
        }
        if (std::holds_alternative<ShutdownMessage>(*message))
            return WorkerExit::Shutdown;
        if (const auto *ping = std::get_if<PingMessage>(&*message)) {
            if (!send(out, PongMessage{ping->id}))
                return WorkerExit::EndOfInput;
            continue;
        }
        const EvaluateRequest &request = std::get<EvaluateMessage>(*message).request;
        // A baseline measurement inside the evaluation can take minutes: the host extends its deadline.
        evaluator.busy = [&out, id = request.id](double extraMs, const std::string &what) {
            send(out, BusyMessage{id, extraMs, what});
        };
        EvaluateOutcome outcome = evaluateSafely(evaluator, request);
        evaluator.busy = {};
        const bool mustExit = outcome.workerMustExit;
        if (!send(out, ResultMessage{request.id, std::move(outcome.evaluation), mustExit}))
            return WorkerExit::EndOfInput;
        if (mustExit) {
            log(device, "the CUDA context is unusable after candidate " + request.candidate.id + "; exiting");
            return WorkerExit::MustExit;
        }
    }
    return WorkerExit::EndOfInput;
}

} // namespace kx
