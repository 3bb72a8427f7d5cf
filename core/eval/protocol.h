#pragma once

// The worker protocol: typed messages between the host (WorkerPool) and `kx worker`, one JSON object per line.
// Every line carries the protocol version ("v") and the message type ("type").
#include "core/domain/evaluation.h"
#include "core/eval/evalrequest.h"
#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kx {

/// Version of the worker protocol; host and worker must agree exactly.
inline constexpr int kProtocolVersion = 2;

void to_json(nlohmann::json &j, const EvalSettings &v);
void from_json(const nlohmann::json &j, EvalSettings &v);
/// The cubin travels base64-encoded in the "cubin" field.
void to_json(nlohmann::json &j, const EvaluateRequest &v);
void from_json(const nlohmann::json &j, EvaluateRequest &v);

/// Standard base64 (RFC 4648, with padding, no line breaks).
std::string base64Encode(std::string_view bytes);
/// Decodes standard base64; rejects bad characters, bad padding and lengths that are not a multiple of 4.
Expected<std::string> base64Decode(std::string_view text);

// Host -> worker.

/// Evaluate one candidate; the message id is the request's id.
struct EvaluateMessage
{
    EvaluateRequest request;

    nlohmann::json toJson() const;
    static Expected<EvaluateMessage> fromJson(const nlohmann::json &j);
};

/// Liveness check; answered by a Pong with the same id.
struct PingMessage
{
    std::int64_t id = 0;

    bool operator==(const PingMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<PingMessage> fromJson(const nlohmann::json &j);
};

/// Ask the worker to exit cleanly.
struct ShutdownMessage
{
    bool operator==(const ShutdownMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<ShutdownMessage> fromJson(const nlohmann::json &j);
};

// Worker -> host.

/// First line of every worker. A non-empty error means the worker has no usable GPU and exits after sending it.
struct HelloMessage
{
    int protocolVersion = kProtocolVersion;
    std::int64_t pid = 0;
    int device = 0;
    GpuInfo gpu;
    std::string error;

    bool operator==(const HelloMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<HelloMessage> fromJson(const nlohmann::json &j);
};

/// The outcome of one Evaluate. workerMustExit: the CUDA context is unusable; the worker exits after this line.
struct ResultMessage
{
    std::int64_t id = 0;
    Evaluation evaluation;
    bool workerMustExit = false;

    bool operator==(const ResultMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<ResultMessage> fromJson(const nlohmann::json &j);
};

struct PongMessage
{
    std::int64_t id = 0;

    bool operator==(const PongMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<PongMessage> fromJson(const nlohmann::json &j);
};

/// The request with this id will take up to extraMs longer than its own timeout (a baseline is being measured).
struct BusyMessage
{
    std::int64_t id = 0;
    double extraMs = 0;
    std::string what;

    bool operator==(const BusyMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<BusyMessage> fromJson(const nlohmann::json &j);
};

/// The worker could not handle a line (id is absent when the line was unreadable).
struct ErrorMessage
{
    std::optional<std::int64_t> id;
    std::string message;

    bool operator==(const ErrorMessage &) const = default;
    nlohmann::json toJson() const;
    static Expected<ErrorMessage> fromJson(const nlohmann::json &j);
};

using HostMessage = std::variant<EvaluateMessage, PingMessage, ShutdownMessage>;
using WorkerMessage = std::variant<HelloMessage, ResultMessage, PongMessage, BusyMessage, ErrorMessage>;

/// One protocol line, newline included. Invalid UTF-8 in strings is replaced, so any message can be sent.
std::string serialize(const HostMessage &message);
std::string serialize(const WorkerMessage &message);

/**
 * Parses one line (with or without its newline). Malformed JSON, a missing or different protocol version, an
 * unknown type, a type that the other side does not send, and missing or mistyped fields all give an Error
 * whose message says which.
 */
Expected<HostMessage> parseHostMessage(std::string_view line);
Expected<WorkerMessage> parseWorkerMessage(std::string_view line);

/// The message type name as it appears in the "type" field.
const char *messageType(const HostMessage &message);
const char *messageType(const WorkerMessage &message);

} // namespace kx
