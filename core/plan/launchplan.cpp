#include "core/plan/launchplan.h"

#include "core/plan/kernelsignatures.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kx {
namespace {

using Json = nlohmann::json;

// Thrown inside this file only; the public functions turn it into an Error.
struct PlanError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &where, const std::string &what)
{
    throw PlanError(where + ": " + what);
}

std::string quote(const std::string &text)
{
    return "'" + text + "'";
}

std::string index(const std::string &where, std::size_t i)
{
    return where + "[" + std::to_string(i) + "]";
}

template <typename Range, typename Name>
std::string listOf(const Range &range, Name name)
{
    std::string text;
    for (const auto &item : range)
        text += (text.empty() ? "" : ", ") + name(item);
    return text.empty() ? "none" : text;
}

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

PlanArg argAt(const Json &value, const std::string &where)
{
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
        fail(where, "must be an object with one key: input, output, scratch, int, float, ints, bool, none or string");
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
                        + " (expected input, output, scratch, int, float, ints, bool, none or string)");
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

std::variant<KernelStep, LibraryStep> stepAt(const Json &value, const std::string &where)
{
    if (!value.is_object())
        fail(where, "must be an object");
    const bool kernel = value.contains("kernel");
    const bool library = value.contains("library");
    if (kernel == library)
        fail(where, kernel ? "has both \"kernel\" and \"library\"" : "needs \"kernel\" or \"library\"");
    if (library) {
        checkKeys(value, where, {"library", "args"});
        LibraryStep step;
        step.op = nameAt(value["library"], where + ".library");
        step.args = argsAt(value, where);
        return step;
    }
    checkKeys(value, where, {"kernel", "grid", "block", "shared", "args"});
    KernelStep step;
    step.kernel = nameAt(value["kernel"], where + ".kernel");
    step.grid = dimensionsAt(member(value, "grid", where), where + ".grid");
    step.block = dimensionsAt(member(value, "block", where), where + ".block");
    if (value.contains("shared"))
        step.sharedBytesExpr = expressionAt(value["shared"], where + ".shared");
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

// ---- Resolving ----------------------------------------------------------------------------------

const char *kindName(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "pointer";
    case KernelParam::Kind::ConstPointer: return "const pointer";
    case KernelParam::Kind::Int: return "integer";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::Other: return "other";
    }
    return "other";
}

std::string label(const KernelParam &param, std::size_t position)
{
    return "parameter " + std::to_string(position) + (param.name.empty() ? "" : " " + quote(param.name));
}

std::string typeOf(const KernelParam &param)
{
    return param.type.empty() ? kindName(param.kind) : param.type;
}

std::string describe(const KernelParam &param, std::size_t position)
{
    return label(param, position) + " is " + typeOf(param);
}

class Resolver
{
public:
    Resolver(const LaunchPlan &plan, const Op &op, const ShapeSet &shapes, const std::vector<KernelSignature> &kernels,
             const DeviceLimits &limits)
        : m_plan(plan)
        , m_op(op)
        , m_shapes(shapes)
        , m_kernels(kernels)
        , m_limits(limits)
    {}

    ResolvedPlan run()
    {
        ResolvedPlan resolved;
        resolveScratch(resolved);
        if (m_plan.steps.empty())
            fail("steps", "the plan has no steps");
        for (std::size_t i = 0; i < m_plan.steps.size(); ++i) {
            const std::string where = index("steps", i);
            if (const auto *kernel = std::get_if<KernelStep>(&m_plan.steps[i]))
                resolved.steps.push_back(resolveKernel(*kernel, where));
            else
                resolved.steps.push_back(resolveLibrary(std::get<LibraryStep>(m_plan.steps[i]), where));
            m_scratchWritten.insert(m_scratchWrittenNow.begin(), m_scratchWrittenNow.end());
        }
        for (const TensorSpec &output : m_op.outputs) {
            if (!m_written.count(output.name))
                fail("steps", "output " + quote(output.name) + " is never written");
        }
        return resolved;
    }

private:
    std::int64_t evaluate(const std::string &expression, const std::string &where) const
    {
        const Expected<std::int64_t> value = evaluateIntExpression(expression, m_shapes);
        if (!value)
            fail(where, value.error().message + " in \"" + expression + "\"");
        return *value;
    }

    void resolveScratch(ResolvedPlan &resolved)
    {
        std::int64_t total = 0;
        for (std::size_t i = 0; i < m_plan.scratch.size(); ++i) {
            const ScratchBuffer &buffer = m_plan.scratch[i];
            const std::string where = index("scratch", i);
            if (buffer.name.empty())
                fail(where + ".name", "must be a non-empty string");
            if (m_scratch.count(buffer.name))
                fail(where + ".name", "duplicate scratch buffer " + quote(buffer.name));
            m_scratch.insert(buffer.name);
            const std::int64_t bytes = evaluate(buffer.bytesExpr, where + ".bytes");
            if (bytes <= 0)
                fail(where + ".bytes", "must be positive, got " + std::to_string(bytes));
            total += bytes;
            if (total > m_limits.maxScratchBytes)
                fail(where + ".bytes", "scratch buffers need " + std::to_string(total)
                                           + " bytes in total, more than the limit of "
                                           + std::to_string(m_limits.maxScratchBytes));
            resolved.scratchBytes.emplace_back(buffer.name, bytes);
        }
    }

    std::array<std::int64_t, 3> resolveDimensions(const std::vector<std::string> &expressions,
                                                  const std::array<std::int64_t, 3> &maxima, const std::string &where,
                                                  const char *what) const
    {
        if (expressions.empty() || expressions.size() > 3)
            fail(where, "must have 1 to 3 entries");
        std::array<std::int64_t, 3> values{1, 1, 1};
        for (std::size_t d = 0; d < expressions.size(); ++d) {
            const std::string at = index(where, d);
            values[d] = evaluate(expressions[d], at);
            if (values[d] <= 0)
                fail(at, "must be positive, got " + std::to_string(values[d]));
            if (values[d] > maxima[d])
                fail(at, std::to_string(values[d]) + " exceeds the maximum " + what + " dimension "
                             + std::to_string(maxima[d]));
        }
        return values;
    }

    ResolvedKernelStep resolveKernel(const KernelStep &step, const std::string &where)
    {
        const auto signature = std::find_if(m_kernels.begin(), m_kernels.end(),
                                            [&](const KernelSignature &kernel) { return kernel.name == step.kernel; });
        if (signature == m_kernels.end())
            fail(where + ".kernel", "unknown kernel " + quote(step.kernel)
                                        + " (extern \"C\" __global__ functions of the source: "
                                        + listOf(m_kernels, [](const KernelSignature &k) { return k.name; }) + ")");

        ResolvedKernelStep resolved;
        resolved.kernel = step.kernel;
        resolved.grid = resolveDimensions(step.grid, m_limits.maxGridDim, where + ".grid", "grid");
        resolved.block = resolveDimensions(step.block, m_limits.maxBlockDim, where + ".block", "block");
        const std::int64_t threads = resolved.block[0] * resolved.block[1] * resolved.block[2];
        if (threads > m_limits.maxThreadsPerBlock)
            fail(where + ".block", std::to_string(threads) + " threads per block exceed the limit of "
                                       + std::to_string(m_limits.maxThreadsPerBlock));
        resolved.sharedBytes = evaluate(step.sharedBytesExpr, where + ".shared");
        if (resolved.sharedBytes < 0)
            fail(where + ".shared", "must not be negative, got " + std::to_string(resolved.sharedBytes));
        if (resolved.sharedBytes > m_limits.maxDynamicSharedBytes)
            fail(where + ".shared", std::to_string(resolved.sharedBytes)
                                        + " bytes of dynamic shared memory exceed the limit of "
                                        + std::to_string(m_limits.maxDynamicSharedBytes));

        const std::vector<KernelParam> &params = signature->params;
        if (step.args.size() != params.size())
            fail(where + ".args", "kernel " + quote(step.kernel) + " takes " + std::to_string(params.size())
                                      + " arguments, the plan passes " + std::to_string(step.args.size()));
        for (std::size_t i = 0; i < step.args.size(); ++i)
            resolved.args.push_back(resolveArg(step.args[i], index(where + ".args", i), &params[i], i));
        return resolved;
    }

    ResolvedLibraryStep resolveLibrary(const LibraryStep &step, const std::string &where)
    {
        if (!m_op.policy.allowLibrarySteps)
            fail(where, "library steps are not allowed for op " + quote(m_op.name));
        const auto &allowed = m_op.policy.allowedLibraryOps;
        if (std::find(allowed.begin(), allowed.end(), step.op) == allowed.end())
            fail(where + ".library", quote(step.op) + " is not an allowed library op for " + quote(m_op.name)
                                         + " (allowed: " + listOf(allowed, [](const std::string &s) { return s; })
                                         + ")");
        ResolvedLibraryStep resolved;
        resolved.op = step.op;
        for (std::size_t i = 0; i < step.args.size(); ++i)
            resolved.args.push_back(resolveArg(step.args[i], index(where + ".args", i), nullptr, i));
        // The result goes to the last output, else to the last scratch buffer: that one is written, not viewed.
        for (const auto kind : {PlanArg::Kind::Output, PlanArg::Kind::Scratch}) {
            const auto last = std::find_if(resolved.args.rbegin(), resolved.args.rend(),
                                           [&](const ResolvedArg &arg) { return arg.kind == kind; });
            if (last == resolved.args.rend())
                continue;
            if (last->transposed)
                fail(index(where + ".args", std::size_t(resolved.args.rend() - last) - 1),
                     "scratch buffer " + quote(last->name) + " receives the result: it cannot be a transposed view");
            break;
        }
        return resolved;
    }

    static bool hasTensor(const std::vector<TensorSpec> &tensors, const std::string &name)
    {
        return std::any_of(tensors.begin(), tensors.end(), [&](const TensorSpec &t) { return t.name == name; });
    }

    // param is null for library steps, whose arguments have no declared types.
    ResolvedArg resolveArg(const PlanArg &arg, const std::string &where, const KernelParam *param, std::size_t position)
    {
        auto require = [&](const std::string &what, std::initializer_list<KernelParam::Kind> kinds) {
            if (param && std::find(kinds.begin(), kinds.end(), param->kind) == kinds.end())
                fail(where, what + ", but " + describe(*param, position));
        };
        ResolvedArg resolved;
        resolved.kind = arg.kind;
        resolved.name = arg.name;
        switch (arg.kind) {
        case PlanArg::Kind::Input:
            if (!hasTensor(m_op.inputs, arg.name))
                fail(where, "unknown input " + quote(arg.name) + " (inputs of " + quote(m_op.name) + ": "
                                + listOf(m_op.inputs, [](const TensorSpec &t) { return t.name; }) + ")");
            require("input " + quote(arg.name) + " needs a pointer parameter",
                    {KernelParam::Kind::ConstPointer, KernelParam::Kind::Pointer});
            break;
        case PlanArg::Kind::Output:
            if (!hasTensor(m_op.outputs, arg.name))
                fail(where, "unknown output " + quote(arg.name) + " (outputs of " + quote(m_op.name) + ": "
                                + listOf(m_op.outputs, [](const TensorSpec &t) { return t.name; }) + ")");
            require("output " + quote(arg.name) + " needs a non-const pointer parameter", {KernelParam::Kind::Pointer});
            m_written.insert(arg.name);
            break;
        case PlanArg::Kind::Scratch:
            if (!m_scratch.count(arg.name))
                fail(where, "unknown scratch buffer " + quote(arg.name)
                                + " (declared: " + listOf(m_scratch, [](const std::string &s) { return s; }) + ")");
            // A later step may read through a const pointer what an earlier step wrote; a first
            // use through a const pointer would read uninitialised memory.
            if (param && param->kind == KernelParam::Kind::ConstPointer && !m_scratchWritten.count(arg.name))
                fail(where, "scratch buffer " + quote(arg.name) + " is read before any earlier step writes it ("
                                + describe(*param, position) + ")");
            require("scratch buffer " + quote(arg.name) + " needs a pointer parameter",
                    {KernelParam::Kind::Pointer, KernelParam::Kind::ConstPointer});
            if (!param || param->kind == KernelParam::Kind::Pointer)
                m_scratchWrittenNow.insert(arg.name);
            break;
        case PlanArg::Kind::Int:
            require("an int argument needs an integer parameter", {KernelParam::Kind::Int});
            resolved.intValue = evaluate(arg.expr, where);
            if (param) {
                const auto range = integerParamRange(param->type);
                if (range && (resolved.intValue < range->min || resolved.intValue > range->max))
                    fail(where, "value " + std::to_string(resolved.intValue) + " does not fit "
                                    + label(*param, position) + " (" + typeOf(*param) + ")");
            }
            break;
        case PlanArg::Kind::Float:
            require("a float argument needs a float or double parameter", {KernelParam::Kind::Float});
            resolved.floatValue = arg.value;
            break;
        case PlanArg::Kind::Ints:
        case PlanArg::Kind::Bool:
        case PlanArg::Kind::None:
        case PlanArg::Kind::String:
            if (param)
                fail(where,
                     "ints, bool, none and string arguments are for library steps; " + describe(*param, position));
            for (std::size_t i = 0; i < arg.exprs.size(); ++i)
                resolved.ints.push_back(evaluate(arg.exprs[i], index(where, i)));
            resolved.flag = arg.flag;
            resolved.text = arg.text;
            break;
        }
        if (arg.hasShape) {
            if (param)
                fail(where, "a tensor shape is for library steps; " + describe(*param, position));
            std::int64_t elements = 1;
            for (std::size_t i = 0; i < arg.exprs.size(); ++i) {
                resolved.ints.push_back(evaluate(arg.exprs[i], index(where + ".shape", i)));
                if (resolved.ints.back() <= 0)
                    fail(index(where + ".shape", i), "must be positive, got " + std::to_string(resolved.ints.back()));
                elements *= resolved.ints.back();
            }
            resolved.hasShape = true;
            // An op tensor seen in another shape keeps its element count (a view of the same memory).
            const auto &tensors = arg.kind == PlanArg::Kind::Input ? m_op.inputs : m_op.outputs;
            if (arg.kind != PlanArg::Kind::Scratch)
                for (const TensorSpec &tensor : tensors)
                    if (tensor.name == arg.name) {
                        std::int64_t declared = 1;
                        for (const auto &dimension : tensor.shape)
                            declared *= evaluate(dimension, where + ".shape");
                        if (declared != elements)
                            fail(where + ".shape", std::to_string(elements) + " elements, but " + quote(arg.name)
                                                       + " holds " + std::to_string(declared));
                    }
        }
        if (arg.transposed) {
            if (param)
                fail(where, "a transposed view is for library steps; " + describe(*param, position));
            if (arg.kind == PlanArg::Kind::Output)
                fail(where, "output " + quote(arg.name) + " cannot be a transposed view: the library step writes it");
            std::size_t rank = arg.exprs.size(); // a scratch buffer without a shape is a flat vector
            if (!arg.hasShape && arg.kind == PlanArg::Kind::Input)
                for (const TensorSpec &tensor : m_op.inputs)
                    if (tensor.name == arg.name)
                        rank = tensor.shape.size();
            if (rank < 2)
                fail(where, quote(arg.name) + " has " + std::to_string(rank)
                                + " dimensions: a transposed view swaps the last two");
            resolved.transposed = true;
        }
        return resolved;
    }

    const LaunchPlan &m_plan;
    const Op &m_op;
    const ShapeSet &m_shapes;
    const std::vector<KernelSignature> &m_kernels;
    const DeviceLimits &m_limits;
    std::set<std::string> m_scratch;
    std::set<std::string> m_written;           // Outputs some step writes.
    std::set<std::string> m_scratchWritten;    // Scratch buffers written by an earlier step ...
    std::set<std::string> m_scratchWrittenNow; // ... and by the step being resolved.
};

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
            steps.push_back({{"kernel", kernel->kernel},
                             {"grid", kernel->grid},
                             {"block", kernel->block},
                             {"shared", kernel->sharedBytesExpr},
                             {"args", argsJson(kernel->args)}});
        } else {
            const auto &library = std::get<LibraryStep>(step);
            steps.push_back({{"library", library.op}, {"args", argsJson(library.args)}});
        }
    }
    root["steps"] = std::move(steps);
    return root.dump(2);
}

Expected<ResolvedPlan> resolveLaunchPlan(const LaunchPlan &plan, const Op &op, const ShapeSet &shapes,
                                         const std::vector<KernelSignature> &kernels, const DeviceLimits &limits)
{
    try {
        return Resolver(plan, op, shapes, kernels, limits).run();
    } catch (const PlanError &error) {
        return Error{error.what()};
    }
}

Status checkLaunchPlanFits(const LaunchPlan &plan, const Op &op, const std::vector<KernelSignature> &kernels,
                           const DeviceLimits &limits)
{
    if (op.shapeSets.empty())
        return Error{"the op " + op.name + " has no shape sets to check the launch plan against"};
    for (const ShapeSet &shapes : op.shapeSets) {
        if (const auto resolved = resolveLaunchPlan(plan, op, shapes, kernels, limits); !resolved) {
            std::string text;
            for (const auto &[name, size] : shapes)
                text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
            return Error{"launch plan for shapes {" + text + "}: " + resolved.error().message};
        }
    }
    return {};
}

} // namespace kx
