#include "templatetestsupport.h"

#include "core/plan/launchplan.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>

namespace kx::test {

TensorSpec tensor(const std::string &name, std::vector<std::string> shape, const std::string &dtype)
{
    return TensorSpec{name, std::move(shape), dtype};
}

Op layerNormTestOp(const std::string &name, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"N", "D"}), tensor("weight", {"D"}), tensor("bias", {"D"})};
    op.outputs = {tensor("out", {"N", "D"})};
    op.shapeSets = std::move(shapeSets);
    op.recipe = R"j({"family": "norm", "reduction": "layernorm", "rows": "N", "cols": "D", "eps": 1e-5})j";
    return op;
}

Op rmsNormTestOp(const std::string &name, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = name;
    op.inputs = {tensor("x", {"R", "C"}), tensor("w", {"C"})};
    op.outputs = {tensor("y", {"R", "C"})};
    op.shapeSets = std::move(shapeSets);
    op.recipe = R"j({"family": "norm", "reduction": "rmsnorm", "rows": "R", "cols": "C", "eps": 1e-6})j";
    return op;
}

OpRecipe recipeFor(const Op &op)
{
    const auto recipe = recipeOf(op);
    if (!recipe)
        throw std::logic_error("bad test recipe: " + recipe.error().message);
    return *recipe;
}

std::string verifyCandidate(const KernelTemplate &kernelTemplate, const Op &op, const Params &params,
                            const std::string &arch)
{
    const OpRecipe recipe = recipeFor(op);
    const std::string what = op.name + " " + arch + " " + toJson(Genome{kernelTemplate.name(), params});
    if (const auto problem = kernelTemplate.check(op, recipe, params); !problem.empty())
        return what + ": check() rejects it: " + problem;
    const GeneratedKernel kernel = kernelTemplate.generate(op, recipe, params);
    CompileOptions options;
    options.arch = arch;
    options.wantPtx = false;
    const CompileResult compiled = NvrtcCompiler().compile(kernel.source, options);
    if (!compiled.ok)
        return what + ": NVRTC: " + compiled.error + "\n" + compiled.stats.log + "\n" + kernel.source;
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    if (!plan)
        return what + ": plan: " + plan.error().message;
    const auto signatures = parseKernelSignatures(kernel.source);
    for (const auto &shapes : op.shapeSets) {
        const auto resolved = resolveLaunchPlan(*plan, op, shapes, signatures);
        if (!resolved)
            return what + ": resolve: " + resolved.error().message + "\n" + kernel.launchPlan;
    }
    return {};
}

std::vector<Params> shuffledSpace(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed)
{
    std::vector<Params> all{{}};
    for (const auto &definition : kernelTemplate.parameters(op, recipeFor(op))) {
        std::vector<Params> extended;
        for (const auto &params : all)
            for (const int value : definition.values) {
                Params next = params;
                next[definition.name] = value;
                extended.push_back(next);
            }
        all = extended;
    }
    std::shuffle(all.begin(), all.end(), std::mt19937(seed));
    return all;
}

std::vector<Params> validSpace(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed)
{
    const OpRecipe recipe = recipeFor(op);
    std::vector<Params> valid;
    for (auto &params : shuffledSpace(kernelTemplate, op, seed))
        if (kernelTemplate.check(op, recipe, params).empty())
            valid.push_back(std::move(params));
    return valid;
}

SpaceVerification verifyWholeSpace(const KernelTemplate &kernelTemplate, const std::vector<Op> &ops, unsigned seed)
{
    SpaceVerification result;
    for (const auto &op : ops) {
        for (const auto &params : shuffledSpace(kernelTemplate, op, seed)) {
            if (!kernelTemplate.check(op, recipeFor(op), params).empty()) {
                ++result.rejected;
                continue;
            }
            result.problem = verifyCandidate(kernelTemplate, op, params, result.compiled % 2 ? "sm_90" : "sm_80");
            if (!result.problem.empty())
                return result;
            ++result.compiled;
        }
    }
    return result;
}

std::vector<OpAndArch> opAndArchRows(const std::vector<Op> &ops)
{
    std::vector<OpAndArch> rows;
    for (std::size_t i = 0; i < ops.size(); ++i)
        for (const char *arch : {"sm_80", "sm_90"})
            rows.push_back({ops[i].name + " " + arch, i, arch});
    return rows;
}

std::vector<Params> sampleValid(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed, int count)
{
    const OpRecipe recipe = recipeFor(op);
    const auto definitions = kernelTemplate.parameters(op, recipe);
    std::mt19937 generator(seed);
    std::vector<Params> samples;
    for (int attempt = 0; attempt < 100000 && int(samples.size()) < count; ++attempt) {
        Params params;
        for (const auto &definition : definitions)
            params[definition.name] = definition.values[generator() % definition.values.size()];
        if (kernelTemplate.check(op, recipe, params).empty()
            && std::find(samples.begin(), samples.end(), params) == samples.end())
            samples.push_back(params);
    }
    return samples;
}

int checkSampledVariantsCompile(const KernelTemplate &kernelTemplate, const std::vector<Op> &ops, unsigned seed,
                                int perOp)
{
    int compiled = 0;
    for (const Op &op : ops) {
        auto samples = sampleValid(kernelTemplate, op, seed++, perOp);
        samples.push_back(kernelTemplate.defaults(op, recipeFor(op)));
        for (const auto &params : samples) {
            const std::string problem = verifyCandidate(kernelTemplate, op, params, compiled % 2 ? "sm_90" : "sm_80");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
        }
    }
    return compiled;
}

Params with(Params params, const Params &changes)
{
    for (const auto &[name, value] : changes)
        params[name] = value;
    return params;
}

std::string unstatedParameters(const KernelTemplate &kernelTemplate, const Op &op, const Params &params,
                               const std::string &source)
{
    std::string missing;
    for (const auto &definition : kernelTemplate.parameters(op, recipeFor(op))) {
        const auto value = params.find(definition.name);
        const std::string line = definition.label + " (" + definition.name
                                 + ") = " + (value == params.end() ? std::string("?") : std::to_string(value->second));
        if (source.find(line) == std::string::npos)
            missing += (missing.empty() ? "" : "\n") + line;
    }
    return missing;
}

Params withChanges(Params params, const std::string &changes)
{
    std::istringstream list(changes);
    std::string change;
    while (std::getline(list, change, ',')) {
        if (change.starts_with('-')) {
            params.erase(change.substr(1));
        } else {
            const auto equals = change.find('=');
            params[change.substr(0, equals)] = equals == std::string::npos ? 0 : std::stoi(change.substr(equals + 1));
        }
    }
    return params;
}

std::vector<Op> gemmTestOps()
{
    std::vector<Op> ops;

    Op square;
    square.name = "matmul_square";
    square.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})};
    square.outputs = {tensor("out", {"M", "N"})};
    square.shapeSets = {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 1000}, {"N", 1000}, {"K", 1000}}};
    square.recipe = R"j({"family": "gemm"})j";
    ops.push_back(square);

    Op tall;
    tall.name = "matmul_tall_skinny";
    tall.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})};
    tall.outputs = {tensor("out", {"M", "N"})};
    tall.shapeSets = {{{"M", 16384}, {"N", 64}, {"K", 256}}, {{"M", 10007}, {"N", 33}, {"K", 100}}};
    tall.recipe = R"j({"family": "gemm"})j";
    ops.push_back(tall);

    Op linear;
    linear.name = "linear_bias_relu";
    linear.inputs = {tensor("x", {"B", "IN"}), tensor("weight", {"OUT", "IN"}), tensor("bias", {"OUT"})};
    linear.outputs = {tensor("y", {"B", "OUT"})};
    linear.shapeSets = {{{"B", 512}, {"IN", 1024}, {"OUT", 4096}}, {{"B", 37}, {"IN", 300}, {"OUT", 130}}};
    linear.recipe = R"j({"family": "gemm", "m": "B", "n": "OUT", "k": "IN", "transposeB": true, "bias": "bias",
                        "expression": "fmaxf(acc, 0.0f)"})j";
    ops.push_back(linear);

    Op residual;
    residual.name = "matmul_scale_residual_clamp";
    residual.inputs = {tensor("a", {"M", "K"}), tensor("b", {"K", "N"}), tensor("res", {"M", "N"})};
    residual.outputs = {tensor("out", {"M", "N"})};
    residual.shapeSets = {{{"M", 2048}, {"N", 2048}, {"K", 512}}, {{"M", 999}, {"N", 500}, {"K", 77}}};
    residual.recipe = R"j({"family": "gemm", "expression": "fminf(fmaxf(acc * 2.0f + res, -1.0f), 1.0f)",
                          "epilogueInputs": ["res"]})j";
    ops.push_back(residual);
    return ops;
}

namespace {

Op layoutOp(const std::string &name, std::vector<TensorSpec> inputs, const TensorSpec &output,
            std::vector<ShapeSet> shapeSets, const std::string &recipe)
{
    Op op;
    op.name = name;
    op.inputs = std::move(inputs);
    op.outputs = {output};
    op.shapeSets = std::move(shapeSets);
    op.recipe = recipe;
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {gemmLibraryOp(recipeFor(op))};
    return op;
}

} // namespace

std::vector<Op> gemmLayoutTestOps()
{
    return {
        layoutOp("matmul_transposed_a", {tensor("a", {"K", "M"}), tensor("b", {"K", "N"})}, tensor("out", {"M", "N"}),
                 {{{"M", 512}, {"N", 384}, {"K", 256}}, {{"M", 97}, {"N", 65}, {"K", 77}}},
                 R"j({"family": "gemm", "transposeA": true})j"),
        layoutOp("matmul_transposed_both", {tensor("a", {"K", "M"}), tensor("b", {"N", "K"})},
                 tensor("out", {"M", "N"}), {{{"M", 256}, {"N", 256}, {"K", 128}}, {{"M", 33}, {"N", 70}, {"K", 100}}},
                 R"j({"family": "gemm", "transposeA": true, "transposeB": true})j"),
        layoutOp("bmm_residual",
                 {tensor("a", {"B", "M", "K"}), tensor("b", {"B", "K", "N"}), tensor("res", {"B", "M", "N"})},
                 tensor("out", {"B", "M", "N"}),
                 {{{"B", 8}, {"M", 256}, {"N", 128}, {"K", 64}}, {{"B", 3}, {"M", 65}, {"N", 33}, {"K", 17}}},
                 R"j({"family": "gemm", "batch": "B", "epilogueInputs": ["res"], "expression": "acc + res"})j"),
        layoutOp("bmm_transposed_a_shared_b",
                 {tensor("a", {"B", "K", "M"}), tensor("b", {"K", "N"}), tensor("bias", {"N"})},
                 tensor("out", {"B", "M", "N"}),
                 {{{"B", 4}, {"M", 128}, {"N", 96}, {"K", 64}}, {{"B", 2}, {"M", 37}, {"N", 29}, {"K", 41}}},
                 R"j({"family": "gemm", "batch": "B", "transposeA": true, "bias": "bias",
                      "expression": "fmaxf(acc, 0.0f)"})j"),
        layoutOp("matmul_folded", {tensor("a", {"L", "M", "K"}), tensor("b", {"N", "K"})},
                 tensor("out", {"L", "M", "N"}),
                 {{{"L", 4}, {"M", 128}, {"N", 256}, {"K", 128}}, {{"L", 3}, {"M", 17}, {"N", 40}, {"K", 33}}},
                 R"j({"family": "gemm", "leading": ["L"], "transposeB": true})j"),
        layoutOp("matmul_upper", {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})}, tensor("out", {"M", "N"}),
                 {{{"M", 512}, {"N", 512}, {"K", 128}}, {{"M", 130}, {"N", 100}, {"K", 70}}},
                 R"j({"family": "gemm", "triangle": "upper"})j"),
        layoutOp("bmm_lower_transposed_b", {tensor("a", {"B", "M", "K"}), tensor("b", {"B", "N", "K"})},
                 tensor("out", {"B", "M", "N"}),
                 {{{"B", 4}, {"M", 256}, {"N", 256}, {"K", 64}}, {{"B", 2}, {"M", 70}, {"N", 90}, {"K", 33}}},
                 R"j({"family": "gemm", "batch": "B", "transposeB": true, "triangle": "lower", "diagonal": -3})j"),
    };
}

const Op &gemmLayoutTestOp(const std::string &name)
{
    static const std::vector<Op> ops = gemmLayoutTestOps();
    for (const auto &op : ops)
        if (op.name == name)
            return op;
    throw std::logic_error("no layout test op " + name);
}

const Op &gemmTestOp(const std::string &name)
{
    static const std::vector<Op> ops = gemmTestOps();
    for (const auto &op : ops)
        if (op.name == name)
            return op;
    throw std::logic_error("no test op " + name);
}

} // namespace kx::test
