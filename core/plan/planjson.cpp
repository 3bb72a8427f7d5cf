// parseLaunchPlan() and toJson(): a launch plan's JSON, read with messages that say where, and written canonically.
#include "core/plan/launchplan.h"

#include "core/plan/planerrors.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kx {
namespace {

using namespace planerrors;
using Json = nlohmann::json;

// ---- Parsing ------------------------------------------------------------------------------------

void checkKeys(const Json &object, const std::string &where, std::initializer_list<const char *> allowed)
{
    for (const auto &item : object.items()) {
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char *key) { return item.key() == key; }))
            fail(where, "unknown key " + quote(item.key())
                            + " (expected: " + listOf(allowed, [](const char *key) { return std::string(key); }) + ")");
    }
}

const Json &member(const Json &object, const char *key, const std::string &where)
{
    const auto it = object.find(key);
    if (it == object.end())
        fail(where, std::string("missing \"") + key + "\"");
    return *it;
}

std::string nameAt(const Json &value, const std::string &where)
{
    if (!value.is_string() || value.get<std::string>().empty())
        fail(where, "must be a non-empty string");
    return value.get<std::string>();
}

// Expressions are strings; plain integers are accepted too ("block": [256]).
std::string expressionAt(const Json &value, const std::string &where)
{
    if (value.is_number_integer())
        return value.dump();
    if (!value.is_string())
        fail(where, "must be an expression (a string or an integer)");
    const std::string text = value.get<std::string>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        fail(where, "empty expression");
    return text;
}

std::vector<std::string> dimensionsAt(const Json &value, const std::string &where)
{
    if (!value.is_array() || value.empty() || value.size() > 3)
        fail(where, "must be an array of 1 to 3 expressions");
    std::vector<std::string> dimensions;
    for (std::size_t i = 0; i < value.size(); ++i)
        dimensions.push_back(expressionAt(value[i], index(where, i)));
    return dimensions;
}

std::vector<std::string> expressionListAt(const Json &value, const std::string &where)
{
    if (!value.is_array())
        fail(where, "must be an array of expressions");
    std::vector<std::string> expressions;
    for (std::size_t i = 0; i < value.size(); ++i)
        expressions.push_back(expressionAt(value[i], index(where, i)));
    return expressions;
}

// {"tensorMap": "a", "box": [...], "dims": [...], "swizzle": "128B"}: sizes are checked when the plan is resolved.
PlanArg tensorMapAt(const Json &value, const std::string &where)
{
    checkKeys(value, where, {"tensorMap", "box", "dims", "swizzle"});
    PlanArg arg;
    arg.kind = PlanArg::Kind::TensorMap;
    arg.name = nameAt(value.at("tensorMap"), where + ".tensorMap");
    arg.box = expressionListAt(member(value, "box", where), where + ".box");
    if (value.contains("dims"))
        arg.dims = expressionListAt(value.at("dims"), where + ".dims");
    if (value.contains("swizzle")) {
        const Json &swizzle = value.at("swizzle");
        arg.swizzle = swizzle.is_string() ? swizzle.get<std::string>() : std::string();
        if (arg.swizzle != "none" && arg.swizzle != "32B" && arg.swizzle != "64B" && arg.swizzle != "128B")
            fail(where + ".swizzle", "must be \"none\", \"32B\", \"64B\" or \"128B\"");
    }
    return arg;
}

PlanArg argAt(const Json &value, const std::string &where)
{
    if (value.is_object() && value.contains("tensorMap"))
        return tensorMapAt(value, where);
    // A tensor argument may carry the shape a library step sees it in and whether it sees its transpose; every
    // other argument has one key.
    std::string viewedTensor;
    if (value.is_object()) {
        const std::size_t viewKeys = value.contains("shape") + value.contains("transposed");
        for (const char *key : {"input", "output", "scratch"})
            if (viewKeys > 0 && value.contains(key) && value.size() == 1 + viewKeys)
                viewedTensor = key;
    }
    if (!value.is_object() || (value.size() != 1 && viewedTensor.empty()))
        fail(where, "must be an object with one key: input, output, scratch, int, float, ints, bool, none or string "
                    "(or a tensorMap with its box)");
    const std::string kind = viewedTensor.empty() ? value.begin().key() : viewedTensor;
    const Json &content = value.at(kind);
    const std::string at = where + "." + kind;
    PlanArg arg;
    if (kind == "input" || kind == "output" || kind == "scratch") {
        arg.kind = kind == "input"    ? PlanArg::Kind::Input
                   : kind == "output" ? PlanArg::Kind::Output
                                      : PlanArg::Kind::Scratch;
        arg.name = nameAt(content, at);
        if (value.contains("transposed")) {
            if (!value.at("transposed").is_boolean())
                fail(where + ".transposed", "must be true or false");
            arg.transposed = value.at("transposed").get<bool>();
        }
        if (value.contains("shape")) {
            const Json &shape = value.at("shape");
            if (!shape.is_array() || shape.size() > 8)
                fail(where + ".shape", "must be an array of at most 8 expressions");
            for (std::size_t i = 0; i < shape.size(); ++i)
                arg.exprs.push_back(expressionAt(shape[i], index(where + ".shape", i)));
            arg.hasShape = true;
        }
    } else if (kind == "int") {
        arg.kind = PlanArg::Kind::Int;
        arg.expr = expressionAt(content, at);
    } else if (kind == "float") {
        if (!content.is_number())
            fail(at, "must be a number");
        arg.kind = PlanArg::Kind::Float;
        arg.value = content.get<double>();
    } else if (kind == "ints") {
        if (!content.is_array() || content.size() > 8)
            fail(at, "must be an array of at most 8 expressions");
        arg.kind = PlanArg::Kind::Ints;
        for (std::size_t i = 0; i < content.size(); ++i)
            arg.exprs.push_back(expressionAt(content[i], index(at, i)));
    } else if (kind == "bool") {
        if (!content.is_boolean())
            fail(at, "must be true or false");
        arg.kind = PlanArg::Kind::Bool;
        arg.flag = content.get<bool>();
    } else if (kind == "none") {
        if (!content.is_null())
            fail(at, "must be null");
        arg.kind = PlanArg::Kind::None;
    } else if (kind == "string") {
        if (!content.is_string())
            fail(at, "must be a string");
        arg.kind = PlanArg::Kind::String;
        arg.text = content.get<std::string>();
    } else {
        fail(where, "unknown arg kind " + quote(kind)
                        + " (expected input, output, scratch, int, float, ints, bool, none, string or tensorMap)");
    }
    return arg;
}

std::vector<PlanArg> argsAt(const Json &step, const std::string &where)
{
    const Json &args = member(step, "args", where);
    if (!args.is_array())
        fail(where + ".args", "must be an array");
    std::vector<PlanArg> result;
    for (std::size_t i = 0; i < args.size(); ++i)
        result.push_back(argAt(args[i], index(where + ".args", i)));
    return result;
}

// An optional true/false key of a step; absent is false.
bool flagAt(const Json &step, const char *key, const std::string &where)
{
    if (!step.contains(key))
        return false;
    if (!step[key].is_boolean())
        fail(where + "." + key, "must be true or false");
    return step[key].get<bool>();
}

std::variant<KernelStep, LibraryStep> stepAt(const Json &value, const std::string &where)
{
    if (!value.is_object())
        fail(where, "must be an object");
    const bool kernel = value.contains("kernel");
    const bool library = value.contains("library");
    if (kernel == library)
        fail(where, kernel ? "has both \"kernel\" and \"library\"" : "needs \"kernel\" or \"library\"");
    if (library) {
        checkKeys(value, where, {"library", "args", "cudnnBenchmark", "channelsLast"});
        LibraryStep step;
        step.op = nameAt(value["library"], where + ".library");
        step.args = argsAt(value, where);
        step.cudnnBenchmark = flagAt(value, "cudnnBenchmark", where);
        step.channelsLast = flagAt(value, "channelsLast", where);
        if (step.channelsLast && !isConvolutionOp(step.op))
            fail(where + ".channelsLast", "applies to convolutions only, not to " + quote(step.op));
        return step;
    }
    checkKeys(value, where, {"kernel", "grid", "block", "shared", "cluster", "args"});
    KernelStep step;
    step.kernel = nameAt(value["kernel"], where + ".kernel");
    step.grid = dimensionsAt(member(value, "grid", where), where + ".grid");
    step.block = dimensionsAt(member(value, "block", where), where + ".block");
    if (value.contains("shared"))
        step.sharedBytesExpr = expressionAt(value["shared"], where + ".shared");
    if (value.contains("cluster"))
        step.cluster = dimensionsAt(value["cluster"], where + ".cluster");
    step.args = argsAt(value, where);
    return step;
}

LaunchPlan planFrom(const Json &root)
{
    if (!root.is_object())
        fail("plan", "must be a JSON object");
    checkKeys(root, "plan", {"scratch", "steps"});
    LaunchPlan plan;
    if (root.contains("scratch")) {
        const Json &scratch = root["scratch"];
        if (!scratch.is_array())
            fail("scratch", "must be an array");
        for (std::size_t i = 0; i < scratch.size(); ++i) {
            const std::string where = index("scratch", i);
            if (!scratch[i].is_object())
                fail(where, "must be an object");
            checkKeys(scratch[i], where, {"name", "bytes"});
            ScratchBuffer buffer;
            buffer.name = nameAt(member(scratch[i], "name", where), where + ".name");
            buffer.bytesExpr = expressionAt(member(scratch[i], "bytes", where), where + ".bytes");
            for (const ScratchBuffer &other : plan.scratch) {
                if (other.name == buffer.name)
                    fail(where + ".name", "duplicate scratch buffer " + quote(buffer.name));
            }
            plan.scratch.push_back(std::move(buffer));
        }
    }
    const Json &steps = member(root, "steps", "plan");
    if (!steps.is_array() || steps.empty())
        fail("steps", "must be a non-empty array");
    for (std::size_t i = 0; i < steps.size(); ++i)
        plan.steps.push_back(stepAt(steps[i], index("steps", i)));
    return plan;
}

// ---- Writing ------------------------------------------------------------------------------------

nlohmann::ordered_json argJson(const PlanArg &arg)
{
    switch (arg.kind) {
    case PlanArg::Kind::Input:
    case PlanArg::Kind::Output:
    case PlanArg::Kind::Scratch: {
        const char *key = arg.kind == PlanArg::Kind::Input    ? "input"
                          : arg.kind == PlanArg::Kind::Output ? "output"
                                                              : "scratch";
        nlohmann::ordered_json json{{key, arg.name}};
        if (arg.hasShape)
            json["shape"] = arg.exprs;
        if (arg.transposed)
            json["transposed"] = true;
        return json;
    }
    case PlanArg::Kind::Int: return {{"int", arg.expr}};
    case PlanArg::Kind::Float: return {{"float", arg.value}};
    case PlanArg::Kind::Ints: return {{"ints", arg.exprs}};
    case PlanArg::Kind::Bool: return {{"bool", arg.flag}};
    case PlanArg::Kind::None: return {{"none", nullptr}};
    case PlanArg::Kind::String: return {{"string", arg.text}};
    case PlanArg::Kind::TensorMap: {
        nlohmann::ordered_json json{{"tensorMap", arg.name}, {"box", arg.box}};
        if (!arg.dims.empty())
            json["dims"] = arg.dims;
        json["swizzle"] = arg.swizzle;
        return json;
    }
    }
    return {};
}

nlohmann::ordered_json argsJson(const std::vector<PlanArg> &args)
{
    auto array = nlohmann::ordered_json::array();
    for (const PlanArg &arg : args)
        array.push_back(argJson(arg));
    return array;
}

} // namespace

Expected<LaunchPlan> parseLaunchPlan(const std::string &json)
{
    Json root;
    try {
        root = Json::parse(json);
    } catch (const Json::parse_error &error) {
        // Drop the "[json.exception.parse_error.101] " prefix: the rest says where and what.
        std::string message = error.what();
        if (const auto end = message.find("] "); message.rfind("[json.exception", 0) == 0 && end != std::string::npos)
            message = message.substr(end + 2);
        return Error{"plan: invalid JSON: " + message};
    }
    try {
        return planFrom(root);
    } catch (const PlanError &error) {
        return Error{error.what()};
    } catch (const Json::exception &error) {
        return Error{std::string("plan: ") + error.what()};
    }
}

std::string toJson(const LaunchPlan &plan)
{
    nlohmann::ordered_json root;
    if (!plan.scratch.empty()) {
        auto scratch = nlohmann::ordered_json::array();
        for (const ScratchBuffer &buffer : plan.scratch)
            scratch.push_back({{"name", buffer.name}, {"bytes", buffer.bytesExpr}});
        root["scratch"] = std::move(scratch);
    }
    auto steps = nlohmann::ordered_json::array();
    for (const auto &step : plan.steps) {
        if (const auto *kernel = std::get_if<KernelStep>(&step)) {
            nlohmann::ordered_json json{{"kernel", kernel->kernel},
                                        {"grid", kernel->grid},
                                        {"block", kernel->block},
                                        {"shared", kernel->sharedBytesExpr}};
            if (!kernel->cluster.empty())
                json["cluster"] = kernel->cluster;
            json["args"] = argsJson(kernel->args);
            steps.push_back(std::move(json));
        } else {
            const auto &library = std::get<LibraryStep>(step);
            nlohmann::ordered_json json{{"library", library.op}};
            if (library.cudnnBenchmark)
                json["cudnnBenchmark"] = true;
            if (library.channelsLast)
                json["channelsLast"] = true;
            json["args"] = argsJson(library.args);
            steps.push_back(std::move(json));
        }
    }
    root["steps"] = std::move(steps);
    return root.dump(2);
}

} // namespace kx
