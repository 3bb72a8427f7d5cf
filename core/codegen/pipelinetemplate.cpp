#include "core/codegen/pipelinetemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/kernelcomposition.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/pipelineproducts.h"
#include "core/codegen/reducecommon.h"
#include "core/codegen/windowstages.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace kx {

using namespace codegen;
using pipelineproducts::ProductPart;

namespace {

// The matrix-product gene: 0 keeps each product a library call; 1 and 2 generate it with a gemm template (its
// defaults, TF32 products per multiply as the second gene says) composed into the pipeline as a part.
const std::string kProductGene = "product", kProductsGene = "product.products", kEpilogueGene = "product.epilogue";
constexpr int kLibraryProduct = 0, kWgmmaProduct = 1, kTensorCoreProduct = 2;
// Multiply-adds (512^3) from which a generated product is the default: below, one library launch costs less than
// the generated kernels' operand copies and launches.
constexpr long long kLargeProduct = 1LL << 27;

enum class Role { Input, Output, Scratch };

Role roleOf(const Op &op, const std::string &name)
{
    const auto has = [&](const std::vector<TensorSpec> &tensors) {
        return std::any_of(tensors.begin(), tensors.end(), [&](const TensorSpec &t) { return t.name == name; });
    };
    return has(op.inputs) ? Role::Input : has(op.outputs) ? Role::Output : Role::Scratch;
}

nlohmann::json tensorArg(const Op &op, const PipelineTensor &tensor, bool withShape)
{
    const char *key = nullptr;
    switch (roleOf(op, tensor.name)) {
    case Role::Input: key = "input"; break;
    case Role::Output: key = "output"; break;
    case Role::Scratch: key = "scratch"; break;
    }
    nlohmann::json arg{{key, tensor.name}};
    if (withShape)
        arg["shape"] = tensor.shape;
    return arg;
}

std::vector<std::string> leadingOnesDropped(std::vector<std::string> shape)
{
    while (!shape.empty() && shape.front() == "1")
        shape.erase(shape.begin());
    return shape;
}

bool fullShape(const PipelineTensor &operand, const std::vector<std::string> &shape)
{
    return leadingOnesDropped(operand.shape) == leadingOnesDropped(shape);
}

// The dimensions of operand that follow the output (the others are 1 and broadcast), aligned right.
std::vector<std::size_t> keptDimensions(const PipelineTensor &operand, std::size_t rank)
{
    std::vector<std::size_t> kept;
    const std::size_t offset = rank - operand.shape.size();
    for (std::size_t d = 0; d < operand.shape.size(); ++d)
        if (operand.shape[d] != "1")
            kept.push_back(d + offset);
    return kept;
}

struct Reduction
{
    const char *init;
    std::string combine; // over acc and x
};

// NVRTC compiles without the host math headers, so INFINITY is not defined: spell the bit patterns.
constexpr const char *kMinusInfinity = "__int_as_float(0xff800000)";
constexpr const char *kPlusInfinity = "__int_as_float(0x7f800000)";

Reduction reductionOf(const std::string &name)
{
    // max and min let NaN win as torch.max and torch.min do; logsumexp's peak too (its sum would be NaN anyway).
    if (name == "max" || name == "logsumexp")
        return {kMinusInfinity, reduction::combineExpression("max", "acc", "x")};
    if (name == "min")
        return {kPlusInfinity, reduction::combineExpression("min", "acc", "x")};
    return {"0.0f", "acc + x"};
}

std::string elementwiseKernel(const PipelineStage &stage, std::size_t index, int block, bool fastMath)
{
    const auto &shape = stage.outputs.front().shape;
    const std::size_t rank = shape.size();
    bool broadcast = false;
    for (const auto &operand : stage.operands)
        broadcast = broadcast || !fullShape(operand, shape);
    std::ostringstream out;
    out << "// Stage " << index + 1 << ": ";
    for (std::size_t i = 0; i < stage.outputs.size(); ++i)
        out << (i ? ", " : "") << stage.outputs[i].name;
    out << " from a fused elementwise chain over ";
    for (std::size_t i = 0; i < stage.operands.size(); ++i)
        out << (i ? ", " : "") << "a" << i << " = " << stage.operands[i].name;
    out << ".\nextern \"C\" __global__ void __launch_bounds__(" << block << ") stage" << index + 1 << "_elementwise(";
    for (std::size_t i = 0; i < stage.operands.size(); ++i)
        out << "const float *__restrict__ a" << i << "_ptr, ";
    for (std::size_t i = 0; i < stage.outputs.size(); ++i)
        out << "float *__restrict__ out" << i << "_ptr, ";
    out << "long long n";
    if (broadcast)
        for (std::size_t d = 0; d < rank; ++d)
            out << ", long long d" << d;
    out << ")\n{\n"
        << "    const long long stride = (long long)gridDim.x * " << block << ";\n"
        << "    for (long long i = (long long)blockIdx.x * " << block << " + threadIdx.x; i < n; i += stride) {\n";
    if (broadcast) {
        out << "        // The output coordinates, for the operands that broadcast.\n"
            << "        long long rest = i;\n";
        for (std::size_t d = rank; d-- > 1;)
            out << "        const long long c" << d << " = rest % d" << d << ";\n        rest /= d" << d << ";\n";
        out << "        const long long c0 = rest;\n";
    }
    for (std::size_t i = 0; i < stage.operands.size(); ++i) {
        const auto &operand = stage.operands[i];
        std::string element = "i";
        if (!fullShape(operand, shape)) {
            const auto kept = keptDimensions(operand, rank);
            element = kept.empty() ? "0" : "c" + std::to_string(kept.front());
            for (std::size_t k = 1; k < kept.size(); ++k)
                element = "(" + element + ") * d" + std::to_string(kept[k]) + " + c" + std::to_string(kept[k]);
        }
        out << "        const float a" << i << " = a" << i << "_ptr[" << element << "];\n";
    }
    std::istringstream code(fastMath ? withFastMath(stage.code) : stage.code);
    for (std::string line; std::getline(code, line);)
        out << "        " << line << "\n";
    for (std::size_t i = 0; i < stage.outputs.size(); ++i)
        out << "        out" << i << "_ptr[i] = " << stage.results[i] << ";\n";
    out << "    }\n}\n\n";
    return out.str();
}

std::string reduceKernel(const PipelineStage &stage, std::size_t index, int block, bool fastMath)
{
    const Reduction reduction = reductionOf(stage.reduction);
    const bool logSumExp = stage.reduction == "logsumexp";
    const std::string exp = fastMath ? "__expf" : "expf", log = fastMath ? "__logf" : "logf";
    const std::string name = "stage" + std::to_string(index + 1) + "_reduce";
    std::string finish = "acc";
    if (stage.reduction == "mean")
        finish = "acc / (float)extent";
    std::ostringstream out;
    out << "// Stage " << index + 1 << ": " << stage.outputs.front().name << " = " << stage.reduction << " of "
        << stage.operands.front().name << " over the middle dimension of [outer, extent, inner].\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << block << ") " << name
        << "(const float *__restrict__ in, float *__restrict__ out, long long outer, long long extent, long long "
           "inner)\n{\n";
    if (stage.inner == "1") {
        // Rows are contiguous: one warp per row, lanes stride along it, shuffles combine the lanes.
        out << "    const int lane = threadIdx.x & 31;\n"
            << "    const long long row = ((long long)blockIdx.x * " << block << " + threadIdx.x) >> 5;\n"
            << "    if (row >= outer)\n        return; // the whole warp leaves together\n"
            << "    const float *p = in + row * extent;\n"
            << "    float acc = " << reduction.init << ";\n"
            << "    for (long long d = lane; d < extent; d += 32) {\n        const float x = p[d];\n"
            << "        acc = " << reduction.combine << ";\n    }\n"
            << "    for (int offset = 16; offset > 0; offset >>= 1) {\n"
            << "        const float x = __shfl_xor_sync(0xffffffffu, acc, offset);\n"
            << "        acc = " << reduction.combine << ";\n    }\n";
        if (logSumExp) {
            out << "    const float peak = acc;\n    acc = 0.0f;\n"
                << "    for (long long d = lane; d < extent; d += 32)\n"
                << "        acc += " << exp << "(p[d] - peak);\n"
                << "    for (int offset = 16; offset > 0; offset >>= 1)\n"
                << "        acc += __shfl_xor_sync(0xffffffffu, acc, offset);\n";
            finish = "(peak == " + std::string(kMinusInfinity) + " ? peak : peak + " + log + "(acc))";
        }
        out << "    if (lane == 0)\n        out[row] = " << finish << ";\n}\n\n";
        return out.str();
    }
    // Rows are strided: one thread per output, neighbouring threads read neighbouring elements.
    out << "    const long long total = outer * inner;\n"
        << "    const long long stride = (long long)gridDim.x * " << block << ";\n"
        << "    for (long long t = (long long)blockIdx.x * " << block << " + threadIdx.x; t < total; t += stride) {\n"
        << "        const float *p = in + (t / inner) * extent * inner + t % inner;\n"
        << "        float acc = " << reduction.init << ";\n"
        << "        for (long long d = 0; d < extent; ++d) {\n            const float x = p[d * inner];\n"
        << "            acc = " << reduction.combine << ";\n        }\n";
    if (logSumExp) {
        out << "        const float peak = acc;\n        acc = 0.0f;\n"
            << "        for (long long d = 0; d < extent; ++d)\n"
            << "            acc += " << exp << "(p[d * inner] - peak);\n";
        finish = "(peak == " + std::string(kMinusInfinity) + " ? peak : peak + " + log + "(acc))";
    }
    out << "        out[t] = " << finish << ";\n    }\n}\n\n";
    return out.str();
}

// Every stage of a pipeline recipe (none when the stages do not parse).
std::vector<PipelineStage> stagesOf(const OpRecipe &recipe)
{
    if (recipe.family != "pipeline" || recipe.stages.empty())
        return {};
    const auto json = nlohmann::json::parse(recipe.stages, nullptr, false);
    if (json.is_discarded())
        return {};
    auto stages = pipelineFromJson(json);
    return stages ? std::move(*stages) : std::vector<PipelineStage>{};
}

// The conv and pool stages of a pipeline recipe (none when the stages do not parse).
std::vector<PipelineStage> windowStagesOf(const OpRecipe &recipe)
{
    std::vector<PipelineStage> window;
    for (const auto &stage : stagesOf(recipe))
        if (stage.kind == PipelineStage::Kind::Conv || stage.kind == PipelineStage::Kind::Pool)
            window.push_back(stage);
    return window;
}

// Whether a library stage runs a convolution, which cuDNN computes with an algorithm it picks by heuristics or by
// timing them (the cudnnBenchmark knob), on NCHW operands or channels-last copies (the convChannelsLast knob).
bool hasLibraryConvolution(const OpRecipe &recipe)
{
    const auto stages = stagesOf(recipe);
    return std::any_of(stages.begin(), stages.end(), [](const PipelineStage &stage) {
        return stage.kind == PipelineStage::Kind::Library && isConvolutionOp(stage.op);
    });
}

const KernelTemplate *productTemplate(int choice)
{
    return findKernelTemplate(choice == kWgmmaProduct ? "gemm-wgmma" : "gemm-tensorcore");
}

// The part's parameters: its template's defaults, with the pipeline's choice of TF32 products.
Params partParams(const KernelTemplate &generator, const ProductPart &part, const Params &params)
{
    Params partParams = generator.defaults(part.op, part.recipe);
    if (param(params, kProductsGene, 3) == 1)
        for (const auto &[name, value] : generator.tf32Changes(part.op, part.recipe)) // plain TF32's tile, too
            partParams[name] = value;
    partParams["products"] = param(params, kProductsGene, 3);
    return partParams;
}

std::string productProblem(const ProductPart &part, int choice, const Params &params)
{
    const auto *generator = productTemplate(choice);
    return generator->check(part.op, part.recipe, partParams(*generator, part, params));
}

// The products the pipeline generates under params (none for the library choice), their epilogues in fast math
// where the fastMath gene says so, as the pipeline's own kernels are.
std::vector<ProductPart> generatedParts(const Op &op, const std::vector<PipelineStage> &stages, const Params &params)
{
    if (param(params, kProductGene, kLibraryProduct) == kLibraryProduct)
        return {};
    auto parts = pipelineproducts::productParts(op, stages, param(params, kEpilogueGene, 1) != 0);
    if (param(params, "fastMath", 0) != 0)
        for (auto &part : parts)
            part.recipe.expression = withFastMath(part.recipe.expression);
    return parts;
}

bool anyLargeProduct(const std::vector<ProductPart> &parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [](const ProductPart &part) { return pipelineproducts::multiplyAdds(part) >= kLargeProduct; });
}

// Whether the choice's template takes every product of the pipeline (with fp32-accurate 3xTF32).
bool takesAll(const std::vector<ProductPart> &parts, int choice)
{
    const Params threeProducts{{kProductsGene, 3}};
    return std::all_of(parts.begin(), parts.end(),
                       [&](const ProductPart &part) { return productProblem(part, choice, threeProducts).empty(); });
}

// Generated products where one is large: mma.sync, which every GPU from sm_80 on runs (wgmma needs sm_90a, so the
// first generation tries it beside the translation: see alternatives()); the library where the products are
// small or mma.sync does not take them.
int defaultProduct(const std::vector<ProductPart> &parts)
{
    return anyLargeProduct(parts) && takesAll(parts, kTensorCoreProduct) ? kTensorCoreProduct : kLibraryProduct;
}

// Whether some product of the pipeline can take the elementwise chain after it into its epilogue.
bool anyFusedEpilogue(const std::vector<ProductPart> &parts)
{
    return std::any_of(parts.begin(), parts.end(), [](const ProductPart &part) { return part.epilogue.has_value(); });
}

// The first generation's ways to compute a pipeline's products besides the defaults'.
std::vector<Params> productAlternatives(const Op &op, const OpRecipe &recipe)
{
    // Where a product is large, the first generation holds every way to compute the products: wgmma only runs on
    // Hopper, and the library call is the one to beat.
    const auto parts = pipelineproducts::productParts(op, stagesOf(recipe));
    if (parts.empty() || !anyLargeProduct(parts))
        return {};
    const int chosen = defaultProduct(parts);
    std::vector<Params> others;
    for (const int choice : {kWgmmaProduct, kTensorCoreProduct, kLibraryProduct})
        if (choice != chosen && (choice == kLibraryProduct || takesAll(parts, choice)))
            others.push_back({{kProductGene, choice}});
    // Generated products with their chains as stages of their own too: the first generation weighs the fused
    // epilogue against the separate stage.
    if (anyFusedEpilogue(parts)) {
        const auto generated = others.size();
        if (chosen != kLibraryProduct)
            others.push_back({{kEpilogueGene, 0}});
        for (std::size_t i = 0; i < generated; ++i)
            if (others[i].at(kProductGene) != kLibraryProduct)
                others.push_back({{kProductGene, others[i].at(kProductGene)}, {kEpilogueGene, 0}});
    }
    return others;
}

windowstages::Knobs knobsOf(const Params &params)
{
    return {param(params, "block", 256), param(params, "items", 1), param(params, "convChannels", 1),
            param(params, "tapUnroll", 4)};
}

} // namespace

bool PipelineTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "pipeline";
}

std::vector<ParamDef> PipelineTemplate::parameters(const Op &op, const OpRecipe &recipe) const
{
    std::vector<ParamDef> definitions{{"block", {128, 256, 512, 1024}, "block size of the generated kernels"},
                                      {"items", {1, 2, 4}, "elements per thread"},
                                      {"fastMath", {0, 1}, "fast-math intrinsics"}};
    // Window stages bring their own knobs; pipelines without them keep the three above.
    const auto stages = windowStagesOf(recipe);
    if (std::any_of(stages.begin(), stages.end(),
                    [](const PipelineStage &s) { return s.kind == PipelineStage::Kind::Conv; }))
        definitions.push_back({"convChannels", {1, 2, 4, 8}, "output channels per thread of the convolutions"});
    if (!stages.empty())
        definitions.push_back({"tapUnroll", {1, 2, 4, 8}, "unrolling of the kernel-tap loop"});
    if (hasLibraryConvolution(recipe)) {
        definitions.push_back(cudnnBenchmarkParameter());
        definitions.push_back(convChannelsLastParameter());
    }
    if (const auto parts = pipelineproducts::productParts(op, stagesOf(recipe)); !parts.empty()) {
        definitions.push_back(
            {kProductGene, {0, 1, 2}, "matrix products (0: library call, 1: gemm-wgmma, sm_90a; 2: gemm-tensorcore)"});
        definitions.push_back(
            {kProductsGene, {3, 1}, "TF32 products per multiply of generated products (3: 3xTF32, 1: plain TF32)"});
        if (anyFusedEpilogue(parts))
            definitions.push_back({kEpilogueGene,
                                   {1, 0},
                                   "the elementwise chain after a generated product (1: in its epilogue, 0: a stage "
                                   "of its own)"});
    }
    return definitions;
}

Params PipelineTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    Params params{{"block", 256}, {"items", 1}, {"fastMath", 0}};
    if (hasLibraryConvolution(recipe)) {
        params["cudnnBenchmark"] = 0;   // cuDNN's heuristics, as eager PyTorch
        params["convChannelsLast"] = 0; // NCHW, as eager PyTorch
    }
    if (const auto parts = pipelineproducts::productParts(op, stagesOf(recipe)); !parts.empty()) {
        params[kProductGene] = defaultProduct(parts);
        params[kProductsGene] = 3; // fp32-accurate, as the gemm templates start
        if (anyFusedEpilogue(parts))
            params[kEpilogueGene] = 1;
    }
    const auto stages = windowStagesOf(recipe);
    if (stages.empty())
        return params;
    params["tapUnroll"] = 4;
    // Eight output channels per thread share each input load and the index arithmetic of every tap; fewer where
    // they do not divide a group's channels.
    int channels = 0;
    for (const auto &stage : stages) {
        if (stage.kind != PipelineStage::Kind::Conv)
            continue;
        if (channels == 0)
            channels = 8;
        for (const auto perGroup : windowstages::outputChannelsPerGroup(stage, op.shapeSets))
            while (channels > 1 && perGroup % channels != 0)
                channels /= 2;
    }
    if (channels > 0)
        params["convChannels"] = channels;
    return params;
}

std::vector<Params> PipelineTemplate::alternatives(const Op &op, const OpRecipe &recipe) const
{
    // Library convolutions on channels-last copies: cuDNN's tensor-core kernels there may win by several times (under
    // TF32, as Inductor's layout does) or lose to the copies, which only the GPU at hand tells.
    std::vector<Params> others;
    if (hasLibraryConvolution(recipe))
        others.push_back({{"convChannelsLast", 1}});
    const auto products = productAlternatives(op, recipe);
    others.insert(others.end(), products.begin(), products.end());
    return others;
}

Params PipelineTemplate::tf32Changes(const Op &op, const OpRecipe &recipe) const
{
    if (pipelineproducts::productParts(op, stagesOf(recipe)).empty())
        return {};
    return {{kProductsGene, 1}};
}

std::string PipelineTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the pipeline template needs a pipeline recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (recipe.stages.empty())
        return "the recipe has no stages";
    Expected<std::vector<PipelineStage>> stages = Error{""};
    try {
        stages = pipelineFromJson(nlohmann::json::parse(recipe.stages));
    } catch (const nlohmann::json::exception &error) {
        return std::string("the stages are not JSON: ") + error.what();
    }
    if (!stages)
        return stages.error().message;
    if (op.outputs.size() != 1)
        return "the pipeline template writes one output";
    std::set<std::string> known;
    for (const auto &input : op.inputs)
        known.insert(input.name);
    bool generates = false;
    // Generated products replace their library stages (and the transposes they read in place).
    const int product = param(params, kProductGene, kLibraryProduct);
    const auto parts = generatedParts(op, *stages, params);
    std::map<std::size_t, const ProductPart *> generatedProducts;
    std::set<std::size_t> folded; // transposes read in place, chains run in a product's epilogue
    for (const auto &part : parts) {
        if (auto problem = productProblem(part, product, params); !problem.empty())
            return "stage " + std::to_string(part.stage + 1) + "'s product (" + productTemplate(product)->name()
                   + "): " + problem;
        generatedProducts[part.stage] = &part;
        folded.insert(part.folded.begin(), part.folded.end());
        if (part.epilogue)
            folded.insert(*part.epilogue);
    }
    for (std::size_t s = 0; s < stages->size(); ++s) {
        const auto &stage = (*stages)[s];
        const std::string where = "stage " + std::to_string(s + 1);
        if (folded.count(s))
            continue;
        if (const auto generated = generatedProducts.find(s); generated != generatedProducts.end()) {
            generates = true;
            const ProductPart &part = *generated->second;
            for (const auto &input : part.op.inputs)
                if (!known.count(part.tensors.at(input.name)))
                    return where + " reads " + part.tensors.at(input.name) + ", which no earlier stage writes";
            if (roleOf(op, part.written()) == Role::Input)
                return where + " writes the input " + part.written();
            known.insert(part.written());
            continue;
        }
        std::vector<PipelineTensor> reads = stage.operands;
        if (stage.kind == PipelineStage::Kind::Library) {
            const auto &allowed = op.policy.allowedLibraryOps;
            if (!op.policy.allowLibrarySteps || std::find(allowed.begin(), allowed.end(), stage.op) == allowed.end())
                return where + " runs " + stage.op + " as a library step: the op's policy must allow it";
            for (const auto &arg : stage.args)
                if (arg.is_object() && arg.contains("tensor"))
                    reads.push_back({arg["tensor"].get<std::string>(), arg.value("shape", std::vector<std::string>{})});
        } else if (stage.kind == PipelineStage::Kind::Conv || stage.kind == PipelineStage::Kind::Pool) {
            generates = true;
            if (auto problem = windowstages::check(stage, op.shapeSets, knobsOf(params)); !problem.empty())
                return where + ": " + problem;
        } else {
            generates = true;
            if (stage.code.find_first_of("#{}") != std::string::npos)
                return where + ": the code must be plain statements (no braces or preprocessor lines)";
            if (stage.kind == PipelineStage::Kind::Reduce
                && !std::set<std::string>{"sum", "mean", "max", "min", "logsumexp"}.count(stage.reduction))
                return where + ": unknown reduction '" + stage.reduction + "'";
        }
        for (const auto &tensor : reads)
            if (!known.count(tensor.name))
                return where + " reads " + tensor.name + ", which no earlier stage writes";
        for (const auto &output : stage.outputs) {
            if (roleOf(op, output.name) == Role::Input)
                return where + " writes the input " + output.name;
            known.insert(output.name);
        }
        if (stage.outputDtype != "float32" && roleOf(op, stage.outputs.front().name) != Role::Output)
            return where + ": intermediates must be float32";
        // Every dimension has a positive size in every shape set, and operands broadcast to the output.
        for (std::size_t set = 0; set < op.shapeSets.size(); ++set) {
            const auto &shapes = op.shapeSets[set];
            const auto sizes = [&](const PipelineTensor &tensor, std::vector<long long> &values) -> std::string {
                for (const auto &dimension : tensor.shape) {
                    const auto value = dimensionValue(dimension, shapes);
                    if (!value || *value <= 0)
                        return where + ": shape set " + std::to_string(set + 1) + " gives " + tensor.name
                               + "'s dimension " + dimension + " no positive size";
                    values.push_back(*value);
                }
                return {};
            };
            std::vector<long long> outputSizes;
            if (auto problem = sizes(stage.outputs.front(), outputSizes); !problem.empty())
                return problem;
            for (const auto &tensor : reads) {
                std::vector<long long> values;
                if (auto problem = sizes(tensor, values); !problem.empty())
                    return problem;
                if (stage.kind != PipelineStage::Kind::Elementwise)
                    continue; // window stages checked their shapes above
                if (values.size() > outputSizes.size())
                    return where + ": operand " + tensor.name + " has more dimensions than the output";
                const std::size_t offset = outputSizes.size() - values.size();
                for (std::size_t d = 0; d < values.size(); ++d)
                    if (values[d] != outputSizes[d + offset] && tensor.shape[d] != "1")
                        return where + ": operand " + tensor.name + " does not broadcast to the output in shape set "
                               + std::to_string(set + 1);
            }
        }
    }
    if (!generates)
        return "every stage is a library call: there is nothing to generate";
    if (!known.count(op.outputs.front().name))
        return "no stage writes the output " + op.outputs.front().name;
    return {};
}

GeneratedKernel PipelineTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const int block = param(params, "block", 256);
    const int items = param(params, "items", 1);
    const bool fastMath = param(params, "fastMath", 0) != 0;
    const auto stages = *pipelineFromJson(nlohmann::json::parse(recipe.stages));
    const int product = param(params, kProductGene, kLibraryProduct);
    const auto parts = generatedParts(op, stages, params);
    std::map<std::size_t, const ProductPart *> generatedProducts;
    std::map<std::size_t, std::size_t> foldedInto, fusedInto;
    for (const auto &part : parts) {
        generatedProducts[part.stage] = &part;
        for (const auto transpose : part.folded)
            foldedInto[transpose] = part.stage;
        if (part.epilogue)
            fusedInto[*part.epilogue] = part.stage;
    }

    std::string header = headerComment(op, *this, params, parameters(op, recipe));
    if (stages.size() > 1)
        header += "// The op runs as " + std::to_string(stages.size())
                  + " stages; library stages run through LibTorch between the kernels below.\n";
    KernelComposition composition;
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto &stage = stages[s];
        if (const auto folded = foldedInto.find(s); folded != foldedInto.end()) {
            composition.addOwn("// Stage " + std::to_string(s + 1) + " (" + stage.op + "): none; stage "
                                   + std::to_string(folded->second + 1) + "'s product reads "
                                   + stage.outputs.front().name + " transposed in place.\n\n",
                               nlohmann::json::array());
            continue;
        }
        if (const auto fused = fusedInto.find(s); fused != fusedInto.end()) {
            composition.addOwn("// Stage " + std::to_string(s + 1) + ": none; its chain runs in stage "
                                   + std::to_string(fused->second + 1) + "'s product epilogue.\n\n",
                               nlohmann::json::array());
            continue;
        }
        const auto generated = generatedProducts.find(s);
        // A product with its epilogue writes what the epilogue's stage wrote.
        const auto &written = generated != generatedProducts.end() && generated->second->epilogue
                                  ? stages[*generated->second->epilogue]
                                  : stage;
        for (const auto &output : written.outputs)
            if (roleOf(op, output.name) == Role::Scratch)
                composition.addScratch(output.name, "4*" + shapeProduct(output.shape));
        if (generated != generatedProducts.end()) {
            const ProductPart &part = *generated->second;
            const auto *generator = productTemplate(product);
            const std::string prefix = "stage" + std::to_string(s + 1) + "_product";
            composition.addOwn("// Stage " + std::to_string(s + 1) + ": " + part.formula + ", by the "
                                   + generator->name() + " template (namespace " + prefix + ", instead of " + stage.op
                                   + ").\n\n",
                               nlohmann::json::array());
            PartBinding binding{prefix, {}, part.symbols};
            for (const auto &[partTensor, tensor] : part.tensors)
                binding.tensors[partTensor] = tensorArg(op, {tensor, {}}, false);
            const auto partKernel = generator->generate(part.op, part.recipe, partParams(*generator, part, params));
            if (auto status = composition.add(partKernel, binding); !status)
                return rejectedKernel(name(), status.error().message);
            continue;
        }
        nlohmann::json steps = nlohmann::json::array();
        std::string source;
        switch (stage.kind) {
        case PipelineStage::Kind::Library: {
            source = "// Stage " + std::to_string(s + 1) + " (library): " + stage.outputs.front().name + " = "
                     + stage.op + "\n\n";
            auto args = nlohmann::json::array();
            for (const auto &arg : stage.args) {
                if (arg.is_object() && arg.contains("tensor"))
                    args.push_back(tensorArg(
                        op, {arg["tensor"].get<std::string>(), arg["shape"].get<std::vector<std::string>>()}, true));
                else
                    args.push_back(arg);
            }
            args.push_back(tensorArg(op, stage.outputs.front(), true)); // the destination comes last
            steps.push_back(libraryStep(stage.op, args, param(params, "cudnnBenchmark", 0) != 0,
                                        isConvolutionOp(stage.op) && param(params, "convChannelsLast", 0) != 0));
            break;
        }
        case PipelineStage::Kind::Elementwise: {
            source = elementwiseKernel(stage, s, block, fastMath);
            const auto &shape = stage.outputs.front().shape;
            auto args = nlohmann::json::array();
            bool broadcast = false;
            for (const auto &operand : stage.operands) {
                args.push_back(tensorArg(op, operand, false));
                broadcast = broadcast || !fullShape(operand, shape);
            }
            for (const auto &output : stage.outputs)
                args.push_back(tensorArg(op, output, false));
            const std::string count = shapeProduct(shape);
            args.push_back(intArg(count));
            if (broadcast)
                for (const auto &dimension : shape)
                    args.push_back(intArg(dimension));
            steps.push_back(kernelStep("stage" + std::to_string(s + 1) + "_elementwise",
                                       {"ceil_div(" + count + ", " + text(block * items) + ")"}, {text(block)}, args));
            break;
        }
        case PipelineStage::Kind::Reduce: {
            source = reduceKernel(stage, s, block, fastMath);
            auto args = nlohmann::json::array({tensorArg(op, stage.operands.front(), false),
                                               tensorArg(op, stage.outputs.front(), false), intArg(stage.outer),
                                               intArg(stage.extent), intArg(stage.inner)});
            const std::string threads =
                stage.inner == "1" ? "(" + stage.outer + ") * 32" : "(" + stage.outer + ") * (" + stage.inner + ")";
            steps.push_back(
                kernelStep("stage" + std::to_string(s + 1) + "_reduce",
                           {"ceil_div(" + threads + ", " + text(block * (stage.inner == "1" ? 1 : items)) + ")"},
                           {text(block)}, args));
            break;
        }
        case PipelineStage::Kind::Conv:
        case PipelineStage::Kind::Pool: {
            const auto knobs = knobsOf(params);
            source = windowstages::kernelSource(stage, s, knobs);
            auto args = nlohmann::json::array();
            for (const auto &operand : stage.operands)
                args.push_back(tensorArg(op, operand, false));
            args.push_back(tensorArg(op, stage.outputs.front(), false));
            for (const auto &size : windowstages::sizeArguments(stage))
                args.push_back(intArg(size));
            steps.push_back(
                kernelStep(windowstages::kernelName(stage, s),
                           {"ceil_div(" + windowstages::threadCount(stage, knobs) + ", " + text(block * items) + ")"},
                           {text(block)}, args));
            break;
        }
        }
        composition.addOwn(source, steps);
    }
    return composition.result(header);
}

} // namespace kx
