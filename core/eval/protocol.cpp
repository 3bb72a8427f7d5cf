#include "core/eval/protocol.h"

#include "core/domain/domainjson.h"

#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>

namespace kx {
namespace {

using nlohmann::json;

template <typename T>
void read(const json &j, const char *key, T &value)
{
    if (const auto it = j.find(key); it != j.end() && !it->is_null())
        it->get_to(value);
}

// Runs a conversion that may throw (nlohmann type errors, unknown enum names) and turns it into an Error.
template <typename T, typename F>
Expected<T> convert(const char *what, F &&f)
{
    try {
        return f();
    } catch (const std::exception &e) {
        return Error{std::string("bad ") + what + " message: " + e.what()};
    }
}

std::int64_t requiredId(const json &j)
{
    const auto it = j.find("id");
    if (it == j.end())
        throw std::invalid_argument("missing field \"id\"");
    if (!it->is_number_integer())
        throw std::invalid_argument("field \"id\" is not an integer");
    return it->get<std::int64_t>();
}

json header(const char *type)
{
    return json{{"v", kProtocolVersion}, {"type", type}};
}

std::string dumpLine(const json &j)
{
    // Compile logs and sources may hold invalid UTF-8; replacing keeps the line valid JSON instead of throwing.
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

std::string abbreviate(std::string_view text)
{
    constexpr std::size_t limit = 120;
    if (text.size() <= limit)
        return std::string(text);
    return std::string(text.substr(0, limit)) + "...";
}

// Parses the line and checks the envelope; returns the object and its type.
Expected<std::pair<json, std::string>> parseEnvelope(std::string_view line)
{
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    if (line.empty())
        return Error{"empty protocol line"};
    json j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded())
        return Error{"malformed protocol line (not JSON): " + abbreviate(line)};
    if (!j.is_object())
        return Error{"malformed protocol line (not a JSON object): " + abbreviate(line)};
    const auto version = j.find("v");
    if (version == j.end() || !version->is_number_integer())
        return Error{"protocol line without a protocol version: " + abbreviate(line)};
    if (version->get<std::int64_t>() != kProtocolVersion)
        return Error{"protocol version " + std::to_string(version->get<std::int64_t>())
                     + " is not supported (this side speaks version " + std::to_string(kProtocolVersion) + ")"};
    const auto type = j.find("type");
    if (type == j.end() || !type->is_string())
        return Error{"protocol line without a message type: " + abbreviate(line)};
    std::string typeName = type->get<std::string>();
    return std::pair{std::move(j), std::move(typeName)};
}

template <typename Variant, typename Message>
Expected<Variant> widen(Expected<Message> message)
{
    if (!message)
        return message.error();
    return Variant{std::move(*message)};
}

} // namespace

void to_json(json &j, const EvalSettings &v)
{
    j = {{"trials", v.trials},
         {"timingInputSets", v.timingInputSets},
         {"warmupRuns", v.warmupRuns},
         {"timedRuns", v.timedRuns},
         {"timeBudgetMs", v.timeBudgetMs},
         {"seed", v.seed},
         {"suspiciousSpeedup", v.suspiciousSpeedup},
         {"timeoutMs", v.timeoutMs},
         {"precision", toString(v.precision)},
         {"baselineEveryEvaluations", v.baselineEveryEvaluations},
         {"baselineEveryMinutes", v.baselineEveryMinutes},
         {"baselineTimeoutMs", v.baselineTimeoutMs},
         {"inductorBaseline", v.inductorBaseline},
         {"inductor",
          {{"command", v.inductor.command},
           {"method", v.inductor.method},
           {"unavailable", v.inductor.unavailable},
           {"details", v.inductor.details}}}};
}

void from_json(const json &j, EvalSettings &v)
{
    read(j, "trials", v.trials);
    read(j, "timingInputSets", v.timingInputSets);
    read(j, "warmupRuns", v.warmupRuns);
    read(j, "timedRuns", v.timedRuns);
    read(j, "timeBudgetMs", v.timeBudgetMs);
    read(j, "seed", v.seed);
    read(j, "suspiciousSpeedup", v.suspiciousSpeedup);
    read(j, "timeoutMs", v.timeoutMs);
    v.precision = precisionFromString(j.value("precision", "fp32"));
    read(j, "baselineEveryEvaluations", v.baselineEveryEvaluations);
    read(j, "baselineEveryMinutes", v.baselineEveryMinutes);
    read(j, "baselineTimeoutMs", v.baselineTimeoutMs);
    read(j, "inductorBaseline", v.inductorBaseline);
    if (const auto it = j.find("inductor"); it != j.end() && it->is_object()) {
        read(*it, "command", v.inductor.command);
        read(*it, "method", v.inductor.method);
        read(*it, "unavailable", v.inductor.unavailable);
        read(*it, "details", v.inductor.details);
    }
}

void to_json(json &j, const EvaluateRequest &v)
{
    j = {{"id", v.id},
         {"op", v.op},
         {"candidate", v.candidate},
         {"arch", v.arch},
         {"cubin", base64Encode(v.cubin)},
         {"compile", v.compile},
         {"settings", v.settings}};
}

void from_json(const json &j, EvaluateRequest &v)
{
    read(j, "id", v.id);
    j.at("op").get_to(v.op);
    j.at("candidate").get_to(v.candidate);
    read(j, "arch", v.arch);
    std::string cubin;
    read(j, "cubin", cubin);
    auto decoded = base64Decode(cubin);
    if (!decoded)
        throw std::invalid_argument("field \"cubin\": " + decoded.error().message);
    v.cubin = std::move(*decoded);
    read(j, "compile", v.compile);
    read(j, "settings", v.settings);
}

std::string base64Encode(std::string_view bytes)
{
    // EVP_EncodeBlock takes an int length: encode in chunks (a multiple of 3 bytes, so no padding in between).
    constexpr std::size_t chunk = 3 * 16384;
    const std::size_t encodedSize = (bytes.size() + 2) / 3 * 4;
    std::string out(encodedSize + 1, '\0'); // EVP_EncodeBlock appends a NUL
    std::size_t written = 0;
    for (std::size_t pos = 0; pos < bytes.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, bytes.size() - pos);
        written += static_cast<std::size_t>(EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data() + written),
                                                            reinterpret_cast<const unsigned char *>(bytes.data() + pos),
                                                            static_cast<int>(n)));
    }
    out.resize(written);
    return out;
}

Expected<std::string> base64Decode(std::string_view text)
{
    if (text.size() % 4 != 0)
        return Error{"base64 text length " + std::to_string(text.size()) + " is not a multiple of 4"};
    const auto isAlphabet = [](unsigned char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    };
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=')
        padding = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
    // EVP_DecodeBlock skips surrounding whitespace and accepts '=' anywhere; be strict instead.
    for (std::size_t i = 0; i < text.size() - padding; ++i) {
        if (!isAlphabet(static_cast<unsigned char>(text[i])))
            return Error{"invalid base64 character at offset " + std::to_string(i)};
    }
    constexpr std::size_t chunk = 4 * 16384;
    std::string out(text.size() / 4 * 3, '\0');
    std::size_t written = 0;
    for (std::size_t pos = 0; pos < text.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, text.size() - pos);
        const int decoded =
            EVP_DecodeBlock(reinterpret_cast<unsigned char *>(out.data() + written),
                            reinterpret_cast<const unsigned char *>(text.data() + pos), static_cast<int>(n));
        if (decoded < 0)
            return Error{"invalid base64 text"};
        written += static_cast<std::size_t>(decoded);
    }
    // EVP_DecodeBlock writes a zero byte for every padding character.
    out.resize(written - padding);
    return out;
}

json EvaluateMessage::toJson() const
{
    json j = header("evaluate");
    j["id"] = request.id;
    j["request"] = request;
    return j;
}

Expected<EvaluateMessage> EvaluateMessage::fromJson(const json &j)
{
    return convert<EvaluateMessage>("evaluate", [&] {
        EvaluateMessage m;
        const std::int64_t id = requiredId(j);
        j.at("request").get_to(m.request);
        m.request.id = id;
        return m;
    });
}

json PingMessage::toJson() const
{
    json j = header("ping");
    j["id"] = id;
    return j;
}

Expected<PingMessage> PingMessage::fromJson(const json &j)
{
    return convert<PingMessage>("ping", [&] { return PingMessage{requiredId(j)}; });
}

json ShutdownMessage::toJson() const
{
    return header("shutdown");
}

Expected<ShutdownMessage> ShutdownMessage::fromJson(const json &)
{
    return ShutdownMessage{};
}

json HelloMessage::toJson() const
{
    json j = header("hello");
    // The envelope's "v" is what parsers check; the explicit field documents what the worker speaks.
    j["protocolVersion"] = protocolVersion;
    j["pid"] = pid;
    j["device"] = device;
    j["gpu"] = gpu;
    j["error"] = error;
    return j;
}

Expected<HelloMessage> HelloMessage::fromJson(const json &j)
{
    return convert<HelloMessage>("hello", [&] {
        HelloMessage m;
        j.at("protocolVersion").get_to(m.protocolVersion);
        j.at("pid").get_to(m.pid);
        read(j, "device", m.device);
        read(j, "gpu", m.gpu);
        read(j, "error", m.error);
        return m;
    });
}

json ResultMessage::toJson() const
{
    json j = header("result");
    j["id"] = id;
    j["evaluation"] = evaluation;
    j["workerMustExit"] = workerMustExit;
    return j;
}

Expected<ResultMessage> ResultMessage::fromJson(const json &j)
{
    return convert<ResultMessage>("result", [&] {
        ResultMessage m;
        m.id = requiredId(j);
        j.at("evaluation").get_to(m.evaluation);
        read(j, "workerMustExit", m.workerMustExit);
        return m;
    });
}

json PongMessage::toJson() const
{
    json j = header("pong");
    j["id"] = id;
    return j;
}

Expected<PongMessage> PongMessage::fromJson(const json &j)
{
    return convert<PongMessage>("pong", [&] { return PongMessage{requiredId(j)}; });
}

json BusyMessage::toJson() const
{
    json j = header("busy");
    j["id"] = id;
    j["extraMs"] = extraMs;
    j["what"] = what;
    return j;
}

Expected<BusyMessage> BusyMessage::fromJson(const json &j)
{
    return convert<BusyMessage>("busy", [&] {
        BusyMessage m;
        m.id = requiredId(j);
        j.at("extraMs").get_to(m.extraMs);
        read(j, "what", m.what);
        if (!(m.extraMs >= 0))
            throw std::invalid_argument("field \"extraMs\" is negative");
        return m;
    });
}

json ErrorMessage::toJson() const
{
    json j = header("error");
    if (id)
        j["id"] = *id;
    j["message"] = message;
    return j;
}

Expected<ErrorMessage> ErrorMessage::fromJson(const json &j)
{
    return convert<ErrorMessage>("error", [&] {
        ErrorMessage m;
        if (j.contains("id") && !j["id"].is_null())
            m.id = requiredId(j);
        j.at("message").get_to(m.message);
        return m;
    });
}

std::string serialize(const HostMessage &message)
{
    return dumpLine(std::visit([](const auto &m) { return m.toJson(); }, message));
}

std::string serialize(const WorkerMessage &message)
{
    return dumpLine(std::visit([](const auto &m) { return m.toJson(); }, message));
}

Expected<HostMessage> parseHostMessage(std::string_view line)
{
    auto envelope = parseEnvelope(line);
    if (!envelope)
        return envelope.error();
    const auto &[j, type] = *envelope;
    if (type == "evaluate")
        return widen<HostMessage>(EvaluateMessage::fromJson(j));
    if (type == "ping")
        return widen<HostMessage>(PingMessage::fromJson(j));
    if (type == "shutdown")
        return widen<HostMessage>(ShutdownMessage::fromJson(j));
    if (type == "hello" || type == "result" || type == "pong" || type == "busy" || type == "error")
        return Error{"message type \"" + type + "\" is sent by workers, not by the host"};
    return Error{"unknown message type \"" + abbreviate(type) + "\""};
}

Expected<WorkerMessage> parseWorkerMessage(std::string_view line)
{
    auto envelope = parseEnvelope(line);
    if (!envelope)
        return envelope.error();
    const auto &[j, type] = *envelope;
    if (type == "hello")
        return widen<WorkerMessage>(HelloMessage::fromJson(j));
    if (type == "result")
        return widen<WorkerMessage>(ResultMessage::fromJson(j));
    if (type == "pong")
        return widen<WorkerMessage>(PongMessage::fromJson(j));
    if (type == "busy")
        return widen<WorkerMessage>(BusyMessage::fromJson(j));
    if (type == "error")
        return widen<WorkerMessage>(ErrorMessage::fromJson(j));
    if (type == "evaluate" || type == "ping" || type == "shutdown")
        return Error{"message type \"" + type + "\" is sent by the host, not by workers"};
    return Error{"unknown message type \"" + abbreviate(type) + "\""};
}

const char *messageType(const HostMessage &message)
{
    static constexpr const char *names[] = {"evaluate", "ping", "shutdown"};
    return names[message.index()];
}

const char *messageType(const WorkerMessage &message)
{
    static constexpr const char *names[] = {"hello", "result", "pong", "busy", "error"};
    return names[message.index()];
}

} // namespace kx
