// resolveLaunchPlan(): a parsed plan checked against an op, one shape set, the source's kernels and device limits.
#include "core/plan/launchplan.h"

#include "core/plan/kernelsignatures.h"
#include "core/plan/planerrors.h"
#include "core/plan/sm90features.h"

#include <algorithm>
#include <map>
#include <set>

namespace kx {
namespace {

using namespace planerrors;

const char *kindName(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "pointer";
    case KernelParam::Kind::ConstPointer: return "const pointer";
    case KernelParam::Kind::Int: return "integer";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::TensorMap: return "tensor map";
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
            m_scratchBytes[buffer.name] = bytes;
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
        if (!step.cluster.empty()) {
            resolved.cluster =
                sm90::resolveCluster(step.cluster, resolved.grid, m_limits, evaluator(), where + ".cluster");
            resolved.hasCluster = true;
        }
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
        resolved.cudnnBenchmark = step.cudnnBenchmark;
        resolved.channelsLast = step.channelsLast;
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

    sm90::Evaluate evaluator() const
    {
        return [this](const std::string &expression, const std::string &where) { return evaluate(expression, where); };
    }

    // The tensor a tensorMap argument names: an input or output of the op, else a scratch buffer.
    sm90::MappedTensor mappedTensor(const std::string &name, const std::string &where)
    {
        sm90::MappedTensor tensor;
        for (const auto kind : {PlanArg::Kind::Input, PlanArg::Kind::Output})
            for (const TensorSpec &spec : kind == PlanArg::Kind::Input ? m_op.inputs : m_op.outputs)
                if (spec.name == name) {
                    tensor.kind = kind;
                    tensor.dtype = spec.dtype;
                    for (std::size_t i = 0; i < spec.shape.size(); ++i)
                        tensor.shape.push_back(evaluate(spec.shape[i], where + ".tensorMap"));
                    return tensor;
                }
        const auto scratch = m_scratchBytes.find(name);
        if (scratch == m_scratchBytes.end())
            fail(where + ".tensorMap", "unknown tensor " + quote(name) + " (inputs and outputs of " + quote(m_op.name)
                                           + ": " + listOf(m_op.inputs, [](const TensorSpec &t) { return t.name; })
                                           + "; " + listOf(m_op.outputs, [](const TensorSpec &t) { return t.name; })
                                           + "; scratch: " + listOf(m_scratch, [](const std::string &s) { return s; })
                                           + ")");
        tensor.kind = PlanArg::Kind::Scratch;
        tensor.scratchBytes = scratch->second;
        return tensor;
    }

    ResolvedTensorMap resolveTensorMap(const PlanArg &arg, const std::string &where, const KernelParam *param,
                                       std::size_t position)
    {
        if (!param)
            fail(where, "a tensor map is for kernel steps");
        if (param->kind != KernelParam::Kind::TensorMap || param->type.find("__grid_constant__") == std::string::npos)
            fail(where, "a tensorMap argument needs a `const __grid_constant__ CUtensorMap` parameter, but "
                            + describe(*param, position));
        sm90::requireSm90(m_limits, "tensor maps", where);
        const sm90::MappedTensor tensor = mappedTensor(arg.name, where);
        // The copy engine may store through the map: it counts as writing the output or scratch buffer.
        if (tensor.kind == PlanArg::Kind::Output)
            m_written.insert(arg.name);
        if (tensor.kind == PlanArg::Kind::Scratch)
            m_scratchWrittenNow.insert(arg.name);
        return sm90::resolveTensorMap(arg, tensor, evaluator(), where);
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
        case PlanArg::Kind::TensorMap: resolved.tensorMap = resolveTensorMap(arg, where, param, position); break;
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
    std::map<std::string, std::int64_t> m_scratchBytes;
    std::set<std::string> m_written;           // Outputs some step writes.
    std::set<std::string> m_scratchWritten;    // Scratch buffers written by an earlier step ...
    std::set<std::string> m_scratchWrittenNow; // ... and by the step being resolved.
};

} // namespace

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
