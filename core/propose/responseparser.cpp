#include "core/propose/responseparser.h"

#include "core/plan/devicecodecheck.h"
#include "core/plan/launchplan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

namespace kx {
namespace {

struct Fence
{
    std::string language;
    std::string body;
    bool closed = false;
};

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

std::string trim(const std::string &text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Fenced blocks (``` at the start of a line), and the prose outside them.
std::vector<Fence> fences(const std::string &text, std::string &prose)
{
    std::vector<Fence> result;
    std::size_t position = 0;
    while (position < text.size()) {
        auto open = text.find("```", position);
        while (open != std::string::npos && open > 0 && text[open - 1] != '\n')
            open = text.find("```", open + 3);
        if (open == std::string::npos) {
            prose += text.substr(position);
            break;
        }
        prose += text.substr(position, open - position);
        const auto lineEnd = text.find('\n', open);
        Fence fence;
        fence.language =
            lower(trim(text.substr(open + 3, lineEnd == std::string::npos ? std::string::npos : lineEnd - open - 3)));
        if (lineEnd == std::string::npos) {
            result.push_back(fence);
            break;
        }
        auto close = text.find("```", lineEnd + 1);
        while (close != std::string::npos && text[close - 1] != '\n')
            close = text.find("```", close + 3);
        if (close == std::string::npos) {
            fence.body = text.substr(lineEnd + 1);
            result.push_back(fence);
            break;
        }
        fence.body = text.substr(lineEnd + 1, close - lineEnd - 1);
        fence.closed = true;
        result.push_back(fence);
        position = close + 3;
    }
    return result;
}

bool isCudaLanguage(const std::string &language)
{
    return language == "cuda" || language == "cu" || language == "cpp" || language == "c++" || language == "c"
           || language == "cuh";
}

bool looksLikeHtml(const std::string &text)
{
    const std::string start = lower(trim(text).substr(0, 200));
    return start.rfind("<!doctype html", 0) == 0 || start.rfind("<html", 0) == 0
           || start.find("<head>") != std::string::npos || start.find("<body") != std::string::npos;
}

std::string htmlTitle(const std::string &text)
{
    const std::string low = lower(text);
    const auto open = low.find("<title>");
    const auto close = low.find("</title>");
    if (open == std::string::npos || close == std::string::npos || close < open)
        return {};
    return trim(text.substr(open + 7, close - open - 7)).substr(0, 120);
}

std::string firstLine(const std::string &prose)
{
    std::size_t position = 0;
    while (position < prose.size()) {
        const auto end = prose.find('\n', position);
        std::string line = trim(prose.substr(position, end == std::string::npos ? std::string::npos : end - position));
        if (!line.empty()) {
            line.erase(0, line.find_first_not_of("#*- "));
            return line.size() > 200 ? line.substr(0, 200) + " ..." : line;
        }
        if (end == std::string::npos)
            break;
        position = end + 1;
    }
    return {};
}

Expected<ParsedCandidate> fromJsonObject(const nlohmann::json &object)
{
    if (!object.is_object() || !object.contains("source") || !object.contains("plan"))
        return Error{"the JSON answer needs \"source\" and \"plan\""};
    if (!object.at("source").is_string())
        return Error{"\"source\" must be a string of CUDA code"};
    ParsedCandidate parsed;
    parsed.source = object.at("source").get<std::string>();
    const auto &plan = object.at("plan");
    parsed.launchPlan = plan.is_string() ? plan.get<std::string>() : plan.dump(2);
    if (object.contains("description") && object.at("description").is_string())
        parsed.description = object.at("description").get<std::string>();
    return parsed;
}

Expected<ParsedCandidate> extract(const std::string &response)
{
    if (trim(response).empty())
        return Error{"the answer is empty"};
    if (looksLikeHtml(response)) {
        const auto title = htmlTitle(response);
        return Error{"the answer is an HTML page, not a candidate" + (title.empty() ? "" : " (\"" + title + "\")")
                     + ": is the endpoint URL right?"};
    }
    std::string prose;
    const auto blocks = fences(response, prose);
    const Fence *cuda = nullptr;
    const Fence *json = nullptr;
    for (const auto &fence : blocks) {
        if (!fence.closed)
            return Error{"the answer is truncated: a ```" + fence.language
                         + " block is not closed (did it hit the token limit?)"};
        if (!cuda && isCudaLanguage(fence.language))
            cuda = &fence;
        else if (!json && fence.language == "json")
            json = &fence;
    }
    if (json && !cuda) {
        const auto object = nlohmann::json::parse(json->body, nullptr, false);
        if (!object.is_discarded() && object.is_object() && object.contains("source"))
            return fromJsonObject(object);
    }
    if (cuda && json) {
        ParsedCandidate parsed;
        parsed.source = cuda->body;
        parsed.launchPlan = json->body;
        parsed.description = firstLine(prose);
        return parsed;
    }
    if (blocks.empty()) {
        const auto object = nlohmann::json::parse(trim(response), nullptr, false);
        if (!object.is_discarded())
            return fromJsonObject(object);
    }
    if (cuda)
        return Error{"the answer has a ```cuda block but no ```json launch plan"};
    if (json)
        return Error{"the answer has a ```json block but no ```cuda source"};
    return Error{"the answer has neither a ```cuda and a ```json block nor a JSON object with \"source\" and "
                 "\"plan\""};
}

} // namespace

std::string ResponseParser::toValidUtf8(const std::string &text)
{
    std::string result;
    result.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        int length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool valid = length > 0 && i + std::size_t(length) <= text.size();
        for (int k = 1; valid && k < length; ++k)
            valid = (static_cast<unsigned char>(text[i + std::size_t(k)]) & 0xc0) == 0x80;
        if (valid && length == 2 && c < 0xc2)
            valid = false; // overlong
        if (valid && (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')))
            valid = false; // control bytes make SQLite text and JSON awkward and never belong in a kernel
        if (!valid) {
            result += '?';
            ++i;
            continue;
        }
        result.append(text, i, std::size_t(length));
        i += std::size_t(length);
    }
    return result;
}

Expected<ParsedCandidate> ResponseParser::parse(const std::string &rawResponse, const Op *op)
{
    try {
        const std::string response = toValidUtf8(rawResponse);
        auto parsed = extract(response);
        if (!parsed)
            return parsed;
        if (trim(parsed->source).empty())
            return Error{"the CUDA source is empty"};
        if (const auto deviceOnly = checkDeviceOnly(parsed->source); !deviceOnly)
            return Error{"the CUDA source is not device-only code: " + deviceOnly.error().message};
        const auto plan = parseLaunchPlan(parsed->launchPlan);
        if (!plan)
            return Error{"the launch plan is invalid: " + plan.error().message};
        if (op)
            if (const Status fits = checkLaunchPlanFits(*plan, *op, parseKernelSignatures(parsed->source)); !fits)
                return Error{"the launch plan does not fit the op: " + fits.error().message};
        return parsed;
    } catch (const std::exception &error) {
        return Error{std::string("the answer could not be read: ") + error.what()};
    }
}

} // namespace kx
