// The pipeline template's product gene: a library stage that is a matrix product (aten::linear, mm, matmul, addmm,
// bmm) may run as a gemm template's kernels composed into the pipeline (1: gemm-wgmma, 2: gemm-tensorcore) instead
// of the library call (0). The gene and its defaults, the composed plan (the part's kernel steps where the library
// step was, the product's tensor where the library wrote it), refusals with their reasons, and NVRTC compiles of
// small copies of KernelBench's level-2 14, 28, 30, 56, 76 and 99 as the real import translates them (needs Python 3
// with PyTorch for those; they are skipped without it).
#include "core/codegen/codegenutil.h"
#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"
#include "core/kernelbench/problemimporter.h"
#include "core/plan/devicecodecheck.h"
#include "core/search/templateproposer.h"

#include "kerneltestsupport.h"
#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace kx;
using kx::test::needsNvrtc;
using kx::test::tensor;
using kx::test::verifyCandidate;

namespace {

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/products/";

const KernelTemplate &pipelineTemplate()
{
    return *findKernelTemplate("pipeline");
}

PipelineTensor piped(std::string name, std::vector<std::string> shape)
{
    return {std::move(name), std::move(shape)};
}

PipelineStage libraryStage(std::string op, nlohmann::json args, PipelineTensor output)
{
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Library;
    stage.op = std::move(op);
    stage.args = std::move(args);
    stage.outputs = {std::move(output)};
    return stage;
}

nlohmann::json tensorArg(const PipelineTensor &tensor)
{
    return {{"tensor", tensor.name}, {"shape", tensor.shape}};
}

PipelineStage elementwiseStage(std::vector<PipelineTensor> operands, std::string code, PipelineTensor output)
{
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Elementwise;
    stage.operands = std::move(operands);
    stage.code = std::move(code);
    stage.results = {"v0"};
    stage.outputs = {std::move(output)};
    return stage;
}

PipelineStage rowSum(PipelineTensor input, std::string rows, std::string cols, PipelineTensor output)
{
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Reduce;
    stage.reduction = "sum";
    stage.operands = {std::move(input)};
    stage.outer = std::move(rows);
    stage.extent = std::move(cols);
    stage.outputs = {std::move(output)};
    return stage;
}

Op pipelineOp(std::vector<TensorSpec> inputs, TensorSpec output, const std::vector<PipelineStage> &stages,
              std::vector<ShapeSet> shapeSets)
{
    Op op = test::makeOp(std::move(inputs), std::move(output), std::move(shapeSets));
    OpRecipe recipe;
    recipe.family = "pipeline";
    recipe.stages = toJson(stages).dump();
    op.recipe = toJson(recipe);
    op.policy.allowLibrarySteps = true;
    for (const auto &stage : stages)
        if (stage.kind == PipelineStage::Kind::Library)
            op.policy.allowedLibraryOps.push_back(stage.op);
    return op;
}

// nn.Linear with bias, sigmoid, a row sum: KernelBench's 56 in its pipeline stages. The second shape set's sizes
// are multiples of no tile.
Op linearSigmoidSum(long long m, long long n, long long k)
{
    const auto x = piped("x", {"M", "K"}), w = piped("w", {"N", "K"}), b = piped("b", {"N"});
    const auto t0 = piped("t0", {"M", "N"}), t1 = piped("t1", {"M", "N"}), out = piped("out", {"M", "1"});
    return pipelineOp({tensor("x", {"M", "K"}), tensor("w", {"N", "K"}), tensor("b", {"N"})}, tensor("out", {"M", "1"}),
                      {libraryStage("aten::linear", {tensorArg(x), tensorArg(w), tensorArg(b)}, t0),
                       elementwiseStage({t0}, "const float v0 = 1.0f / (1.0f + expf(-a0));", t1),
                       rowSum(t1, "M", "N", out)},
                      {{{"M", m}, {"N", n}, {"K", k}}, {{"M", 37}, {"N", 201}, {"K", 75}}});
}

// A batch of products followed by a ReLU (torch.bmm): gemm-wgmma takes it with its TMA loader (the default).
Op bmmRelu(long long batch, long long m, long long n, long long k)
{
    const auto a = piped("a", {"B", "M", "K"}), b = piped("b", {"B", "K", "N"});
    const auto t0 = piped("t0", {"B", "M", "N"}), out = piped("out", {"B", "M", "N"});
    return pipelineOp({tensor("a", {"B", "M", "K"}), tensor("b", {"B", "K", "N"})}, tensor("out", {"B", "M", "N"}),
                      {libraryStage("aten::bmm", {tensorArg(a), tensorArg(b)}, t0),
                       elementwiseStage({t0}, "const float v0 = fmaxf(a0, 0.0f);", out)},
                      {{{"B", batch}, {"M", m}, {"N", n}, {"K", k}}, {{"B", 3}, {"M", 45}, {"N", 67}, {"K", 29}}});
}

// A ReLU, then nn.Linear writing the op's output: the product reads a scratch tensor and writes an output.
Op reluLinear()
{
    const auto x = piped("x", {"M", "K"}), w = piped("w", {"N", "K"}), b = piped("b", {"N"});
    const auto t0 = piped("t0", {"M", "K"}), out = piped("out", {"M", "N"});
    return pipelineOp({tensor("x", {"M", "K"}), tensor("w", {"N", "K"}), tensor("b", {"N"})}, tensor("out", {"M", "N"}),
                      {elementwiseStage({x}, "const float v0 = fmaxf(a0, 0.0f);", t0),
                       libraryStage("aten::linear", {tensorArg(t0), tensorArg(w), tensorArg(b)}, out)},
                      {{{"M", 1024}, {"N", 1024}, {"K", 512}}, {{"M", 33}, {"N", 70}, {"K", 19}}});
}

const ParamDef *definition(const Op &op, const std::string &name)
{
    static std::vector<ParamDef> definitions;
    definitions = pipelineTemplate().parameters(op, test::recipeFor(op));
    const auto it =
        std::find_if(definitions.begin(), definitions.end(), [&](const ParamDef &d) { return d.name == name; });
    return it == definitions.end() ? nullptr : &*it;
}

Params withProduct(const Op &op, int product)
{
    return test::with(pipelineTemplate().defaults(op, test::recipeFor(op)), {{"product", product}});
}

nlohmann::json planOf(const Op &op, const Params &params)
{
    const auto generated = pipelineTemplate().generate(op, test::recipeFor(op), params);
    REQUIRE_MESSAGE(!generated.launchPlan.empty(), generated.source);
    return nlohmann::json::parse(generated.launchPlan);
}

std::vector<std::string> stepNames(const nlohmann::json &plan)
{
    std::vector<std::string> names;
    for (const auto &step : plan["steps"])
        names.push_back(step.contains("kernel") ? step["kernel"].get<std::string>()
                                                : "library " + step["library"].get<std::string>());
    return names;
}

bool hasScratch(const nlohmann::json &plan, const std::string &name)
{
    return std::any_of(plan["scratch"].begin(), plan["scratch"].end(),
                       [&](const nlohmann::json &buffer) { return buffer["name"] == name; });
}

} // namespace

TEST_CASE("the product gene is offered where a library stage is a matrix product, generated by default where large")
{
    const Op large = linearSigmoidSum(1024, 2048, 1024);
    const ParamDef *product = definition(large, "product");
    REQUIRE(product != nullptr);
    CHECK(product->values == std::vector<int>{0, 1, 2});
    const ParamDef *products = definition(large, "product.products");
    REQUIRE(products != nullptr);
    CHECK(products->values == std::vector<int>{3, 1});
    const auto defaults = pipelineTemplate().defaults(large, test::recipeFor(large));
    CHECK(defaults.at("product") == 2); // mma.sync, which every GPU from sm_80 on runs
    CHECK(defaults.at("product.products") == 3);
    CHECK(pipelineTemplate().check(large, test::recipeFor(large), defaults).empty());
    // The sigmoid after the product may run in its epilogue (the default) or as a stage of its own.
    const ParamDef *epilogue = definition(large, "product.epilogue");
    REQUIRE(epilogue != nullptr);
    CHECK(epilogue->values == std::vector<int>{1, 0});
    CHECK(defaults.at("product.epilogue") == 1);
    // The first generation tries wgmma (Hopper only) and the library call beside it, and the generated products
    // with the chain as a stage of its own.
    CHECK(
        pipelineTemplate().alternatives(large, test::recipeFor(large))
        == std::vector<Params>{
            {{"product", 1}}, {{"product", 0}}, {{"product.epilogue", 0}}, {{"product", 1}, {"product.epilogue", 0}}});

    // A small product stays with the library: one launch beats the operand copies and the kernels.
    const Op small = linearSigmoidSum(64, 128, 64);
    CHECK(pipelineTemplate().defaults(small, test::recipeFor(small)).at("product") == 0);
    CHECK(pipelineTemplate().alternatives(small, test::recipeFor(small)).empty());

    // gemm-wgmma takes batches: a large batched product has the same alternatives as one matrix's.
    const Op batched = bmmRelu(8, 512, 512, 256);
    CHECK(pipelineTemplate().defaults(batched, test::recipeFor(batched)).at("product") == 2);
    CHECK(
        pipelineTemplate().alternatives(batched, test::recipeFor(batched))
        == std::vector<Params>{
            {{"product", 1}}, {{"product", 0}}, {{"product.epilogue", 0}}, {{"product", 1}, {"product.epilogue", 0}}});

    // Without a product stage there is no gene (the genomes of other pipelines stay as they were).
    const auto t0 = piped("t0", {"R", "C"});
    const Op softmaxOnly =
        pipelineOp({tensor("x", {"R", "C"})}, tensor("out", {"R", "C"}),
                   {libraryStage("aten::softmax.int",
                                 {tensorArg(piped("x", {"R", "C"})), {{"int", "1"}}, {{"none", nullptr}}}, t0),
                    elementwiseStage({t0}, "const float v0 = a0 * 2.0f;", piped("out", {"R", "C"}))},
                   {{{"R", 64}, {"C", 100}}});
    CHECK(definition(softmaxOnly, "product") == nullptr);
    CHECK_FALSE(pipelineTemplate().defaults(softmaxOnly, test::recipeFor(softmaxOnly)).count("product"));
    CHECK(pipelineTemplate().alternatives(softmaxOnly, test::recipeFor(softmaxOnly)).empty());
}

TEST_CASE("a search's first generation holds the pipeline's products on mma.sync, on wgmma and in the library")
{
    const Op op = linearSigmoidSum(1024, 2048, 1024);
    ProposalRequest request;
    request.op = op;
    request.generation = 0;
    const auto result = TemplateProposer().propose(request, {});
    std::vector<int> products;
    for (const auto &candidate : result.candidates) {
        const auto genome = genomeFromJson(candidate.genome);
        REQUIRE(genome);
        CHECK(genome->templateName == "pipeline");
        products.push_back(genome->params.at("product"));
    }
    CHECK(products == std::vector<int>{2, 1, 0, 2, 1}); // the translation first, then the unfused epilogues
    REQUIRE(result.candidates.size() == 5);
    CHECK(result.candidates[3].launchPlan.find("stage2_elementwise") != std::string::npos);
    CHECK(result.candidates[0].launchPlan.find("stage2_elementwise") == std::string::npos);
    CHECK(result.candidates[1].description.find("product") != std::string::npos);
    CHECK(result.candidates[1].source.find("gemm_wgmma_kernel") != std::string::npos);
    CHECK(result.candidates[2].launchPlan.find("aten::linear") != std::string::npos);

    // Later generations start over without them.
    request.generation = 1;
    request.seed = 5;
    CHECK(TemplateProposer().propose(request, {}).candidates.size() == 1);
}

TEST_CASE("a generated product puts the gemm part's kernel steps where the library step was")
{
    const Op op = linearSigmoidSum(1024, 2048, 1024);
    const auto library = planOf(op, withProduct(op, 0));
    CHECK(stepNames(library)
          == std::vector<std::string>{"library aten::linear", "stage2_elementwise", "stage3_reduce"});

    // The sigmoid after the product runs in its epilogue: the part writes t1, the sigmoid's scratch buffer, and
    // reads x, w and the bias where they are; the product itself is never stored.
    const auto wgmma = planOf(op, withProduct(op, 1));
    CHECK(stepNames(wgmma)
          == std::vector<std::string>{"stage1_product_split_rows_kernel", "stage1_product_split_rows_kernel",
                                      "stage1_product_gemm_wgmma_kernel", "stage3_reduce"});
    const auto args = wgmma["steps"][2]["args"];
    CHECK(std::find(args.begin(), args.end(), nlohmann::json{{"scratch", "t1"}}) != args.end());
    CHECK(std::find(args.begin(), args.end(), nlohmann::json{{"input", "b"}}) != args.end());
    CHECK(wgmma["steps"][0]["args"][0] == nlohmann::json{{"input", "x"}});
    CHECK(wgmma["steps"][1]["args"][0] == nlohmann::json{{"input", "w"}});
    CHECK(wgmma["steps"][3]["args"][0] == nlohmann::json{{"scratch", "t1"}});
    CHECK(hasScratch(wgmma, "t1"));
    CHECK_FALSE(hasScratch(wgmma, "t0"));
    CHECK(hasScratch(wgmma, "stage1_product_aBig"));
    CHECK(hasScratch(wgmma, "stage1_product_bSmall")); // 3xTF32's remainders
    const auto recipe = test::recipeFor(op);
    CHECK(pipelineTemplate().generate(op, recipe, withProduct(op, 1)).source.find("(1.0f / (1.0f + expf(-acc)))")
          != std::string::npos);
    const auto fast = test::with(withProduct(op, 1), {{"fastMath", 1}});
    CHECK(pipelineTemplate().generate(op, recipe, fast).source.find("__expf(-acc)") != std::string::npos);

    // With the epilogue gene off, the sigmoid stays a stage of its own, reading the product from t0.
    const auto unfused = planOf(op, test::with(withProduct(op, 1), {{"product.epilogue", 0}}));
    CHECK(stepNames(unfused)
          == std::vector<std::string>{"stage1_product_split_rows_kernel", "stage1_product_split_rows_kernel",
                                      "stage1_product_gemm_wgmma_kernel", "stage2_elementwise", "stage3_reduce"});
    CHECK(hasScratch(unfused, "t0"));
    CHECK(pipelineTemplate()
              .generate(op, recipe, test::with(withProduct(op, 1), {{"product.epilogue", 0}}))
              .source.find("expf(-acc)")
          == std::string::npos);

    // Without an elementwise stage after it, the product writes t0 where the library wrote it.
    const auto x = piped("x", {"M", "K"}), w = piped("w", {"N", "K"}), t0 = piped("t0", {"M", "N"});
    const Op rowSumOnly =
        pipelineOp({tensor("x", {"M", "K"}), tensor("w", {"N", "K"})}, tensor("out", {"M", "1"}),
                   {libraryStage("aten::linear", {tensorArg(x), tensorArg(w), {{"none", nullptr}}}, t0),
                    rowSum(t0, "M", "N", piped("out", {"M", "1"}))},
                   {{{"M", 1024}, {"N", 2048}, {"K", 1024}}});
    const auto plain = planOf(rowSumOnly, withProduct(rowSumOnly, 1));
    CHECK(plain["steps"][2]["args"][4] == nlohmann::json{{"scratch", "t0"}}); // after the four operand copies
    CHECK(plain["steps"][3]["args"][0] == nlohmann::json{{"scratch", "t0"}});
    CHECK(hasScratch(plain, "t0"));

    // Plain TF32 on wgmma (where the run allows TF32), on the wide tile: with k a multiple of 4 in every shape set
    // the copy engine reads x and w in place; the odd k of 75 needs the copies.
    const auto tf32 = test::with(withProduct(op, 1), pipelineTemplate().tf32Changes(op, recipe));
    CHECK(tf32.at("product.products") == 1);
    CHECK(pipelineTemplate().generate(op, recipe, tf32).source.find("m64n256k8") != std::string::npos);
    CHECK(stepNames(planOf(op, tf32)).size() == 4);
    Op aligned = op;
    aligned.shapeSets.back()["K"] = 76;
    const auto inPlace = planOf(aligned, tf32);
    CHECK(stepNames(inPlace) == std::vector<std::string>{"stage1_product_gemm_wgmma_kernel", "stage3_reduce"});
    CHECK(inPlace["steps"][0]["args"][0]["tensorMap"] == "x");
    CHECK(inPlace["steps"][0]["args"][1]["tensorMap"] == "w");

    const auto tensorCores = planOf(op, withProduct(op, 2));
    const auto names = stepNames(tensorCores);
    CHECK(std::find(names.begin(), names.end(), "stage1_product_gemm_tc_kernel") != names.end());
    CHECK(std::none_of(names.begin(), names.end(), [](const std::string &n) { return n.rfind("library", 0) == 0; }));

    // A product between other stages reads a scratch tensor and writes the op's output.
    const Op late = reluLinear();
    const auto composed = planOf(late, withProduct(late, 1));
    const auto &lateGemm = composed["steps"].back();
    CHECK(lateGemm["kernel"] == "stage2_product_gemm_wgmma_kernel");
    CHECK(std::find(lateGemm["args"].begin(), lateGemm["args"].end(), nlohmann::json{{"output", "out"}})
          != lateGemm["args"].end());
    CHECK(composed["steps"][1]["args"][0] == nlohmann::json{{"scratch", "t0"}});
}

TEST_CASE("composed products compile for their architectures" * needsNvrtc())
{
    const Op op = linearSigmoidSum(1024, 2048, 1024);
    CHECK(verifyCandidate(pipelineTemplate(), op, withProduct(op, 1), "sm_90a").empty());
    CHECK(verifyCandidate(pipelineTemplate(), op, withProduct(op, 2), "sm_80").empty());
    const Op late = reluLinear();
    CHECK(verifyCandidate(pipelineTemplate(), late, withProduct(late, 1), "sm_90a").empty());
    const Op batched = bmmRelu(8, 512, 512, 256);
    CHECK(verifyCandidate(pipelineTemplate(), batched, withProduct(batched, 2), "sm_80").empty());
    CHECK(verifyCandidate(pipelineTemplate(), batched, withProduct(batched, 1), "sm_90a").empty());
    // wgmma exists on sm_90a only: the composed source says so where it is compiled for another GPU.
    const auto elsewhere = verifyCandidate(pipelineTemplate(), op, withProduct(op, 1), "sm_80");
    CHECK(elsewhere.find("wgmma needs sm_90a") != std::string::npos);
}

TEST_CASE("a transpose only the product reads is read in place; leading dimensions fold into the rows")
{
    // x.T @ w with x given as [K, M]: the transpose step goes, the part reads x as a transposed a.
    const auto x = piped("x", {"K", "M"}), w = piped("w", {"K", "N"}), t0 = piped("t0", {"M", "K"});
    const auto t1 = piped("t1", {"M", "N"}), out = piped("out", {"M", "N"});
    const std::vector<ShapeSet> sets{{{"M", 640}, {"N", 768}, {"K", 512}}, {{"M", 45}, {"N", 91}, {"K", 37}}};
    const Op transposedA = pipelineOp({tensor("x", {"K", "M"}), tensor("w", {"K", "N"})}, tensor("out", {"M", "N"}),
                                      {libraryStage("aten::numpy_T", {tensorArg(x)}, t0),
                                       libraryStage("aten::mm", {tensorArg(t0), tensorArg(w)}, t1),
                                       elementwiseStage({t1}, "const float v0 = fmaxf(a0, 0.0f);", out)},
                                      sets);
    const auto plan = planOf(transposedA, withProduct(transposedA, 1));
    CHECK(stepNames(plan)
          == std::vector<std::string>{"stage2_product_split_transposed_kernel",
                                      "stage2_product_split_transposed_kernel", "stage2_product_gemm_wgmma_kernel"});
    CHECK(plan["steps"][0]["args"][0] == nlohmann::json{{"input", "x"}});
    CHECK(plan["steps"][2]["args"][4] == nlohmann::json{{"output", "out"}}); // the ReLU in its epilogue
    CHECK_FALSE(hasScratch(plan, "t0"));
    CHECK_FALSE(hasScratch(plan, "t1"));

    // A transpose that another stage reads too stays a library step, and the product reads its copy.
    const auto a = piped("a", {"N", "N"}), b = piped("b", {"N", "N"}), bt = piped("bt", {"N", "N"});
    const auto p = piped("p", {"N", "N"});
    const Op shared = pipelineOp({tensor("a", {"N", "N"}), tensor("b", {"N", "N"})}, tensor("out", {"N", "N"}),
                                 {libraryStage("aten::numpy_T", {tensorArg(b)}, bt),
                                  libraryStage("aten::mm", {tensorArg(a), tensorArg(bt)}, p),
                                  elementwiseStage({p, bt}, "const float v0 = a0 + a1;", piped("out", {"N", "N"}))},
                                 {{{"N", 1024}}, {{"N", 77}}});
    const auto sharedPlan = planOf(shared, withProduct(shared, 2));
    CHECK(stepNames(sharedPlan)
          == std::vector<std::string>{"library aten::numpy_T", "stage2_product_gemm_tc_kernel", "stage3_elementwise"});
    CHECK(sharedPlan["steps"][1]["args"][1] == nlohmann::json{{"scratch", "bt"}});

    // nn.Linear of x [B, S, K]: the part multiplies B * S rows.
    const auto x3 = piped("x", {"B", "S", "K"}), weight = piped("weight", {"N", "K"});
    const auto y = piped("y", {"B", "S", "N"});
    const Op folded =
        pipelineOp({tensor("x", {"B", "S", "K"}), tensor("weight", {"N", "K"})}, tensor("out", {"B", "S", "N"}),
                   {libraryStage("aten::linear", {tensorArg(x3), tensorArg(weight), {{"none", nullptr}}}, y),
                    elementwiseStage({y}, "const float v0 = fmaxf(a0, 0.0f);", piped("out", {"B", "S", "N"}))},
                   {{{"B", 8}, {"S", 128}, {"N", 512}, {"K", 256}}, {{"B", 3}, {"S", 29}, {"N", 70}, {"K", 33}}});
    const auto foldedPlan = planOf(folded, withProduct(folded, 1));
    CHECK(foldedPlan["steps"][2]["grid"][0] == "ceil_div((B * S), 64) * ceil_div(N, 64)");

    if (!NvrtcCompiler::available())
        return;
    for (const Op *op : {&transposedA, &shared, &folded}) {
        CAPTURE(op->name);
        CHECK(verifyCandidate(pipelineTemplate(), *op, withProduct(*op, 1), "sm_90a").empty());
        CHECK(verifyCandidate(pipelineTemplate(), *op, withProduct(*op, 2), "sm_80").empty());
    }
}

TEST_CASE("products the gemm templates cannot take are refused with the reason, or stay library calls")
{
    // A batch is no longer among them: gemm-wgmma's TMA loader takes it, its grid's y the batch.
    const Op batched = bmmRelu(8, 512, 512, 256);
    CHECK(pipelineTemplate().check(batched, test::recipeFor(batched), withProduct(batched, 1)) == std::string());
    const auto batchedPlan = planOf(batched, withProduct(batched, 1));
    const auto wgmmaStep = std::find_if(batchedPlan["steps"].begin(), batchedPlan["steps"].end(), [](const auto &step) {
        return step.value("kernel", "").find("gemm_wgmma_kernel") != std::string::npos;
    });
    REQUIRE(wgmmaStep != batchedPlan["steps"].end());
    CHECK((*wgmmaStep)["grid"].size() == std::size_t(2));
    CHECK((*wgmmaStep)["grid"][1] == "B");

    Params plainTf32 = test::with(withProduct(batched, 2), {{"product.products", 2}});
    CHECK(pipelineTemplate().check(batched, test::recipeFor(batched), plainTf32).find("not one of the allowed values")
          != std::string::npos);

    // addmm with beta 2 is not a product plus a bias: no gene, the library call stays.
    const auto bias = piped("bias", {"N"}), a = piped("a", {"M", "K"}), b = piped("b", {"K", "N"});
    const auto t0 = piped("t0", {"M", "N"});
    const Op scaled = pipelineOp(
        {tensor("bias", {"N"}), tensor("a", {"M", "K"}), tensor("b", {"K", "N"})}, tensor("out", {"M", "N"}),
        {libraryStage("aten::addmm", {tensorArg(bias), tensorArg(a), tensorArg(b), {{"int", "2"}}, {{"int", "1"}}}, t0),
         elementwiseStage({t0}, "const float v0 = fmaxf(a0, 0.0f);", piped("out", {"M", "N"}))},
        {{{"M", 1024}, {"N", 1024}, {"K", 1024}}});
    CHECK(definition(scaled, "product") == nullptr);
    // ... and with beta 1 it is one, its bias added in the part.
    Op plain = scaled;
    auto stages = *pipelineFromJson(nlohmann::json::parse(test::recipeFor(plain).stages));
    stages[0].args[3] = {{"int", "1"}};
    OpRecipe recipe = test::recipeFor(plain);
    recipe.stages = toJson(stages).dump();
    plain.recipe = toJson(recipe);
    REQUIRE(definition(plain, "product") != nullptr);
    const auto plan = planOf(plain, withProduct(plain, 1));
    const auto &gemm = plan["steps"][2];
    CHECK(std::find(gemm["args"].begin(), gemm["args"].end(), nlohmann::json{{"input", "bias"}}) != gemm["args"].end());

    // A product of a vector has no gemm shape.
    const auto v = piped("v", {"K"}), w = piped("w", {"K", "N"}), t1 = piped("t1", {"N"});
    const Op vector = pipelineOp({tensor("v", {"K"}), tensor("w", {"K", "N"})}, tensor("out", {"N"}),
                                 {libraryStage("aten::matmul", {tensorArg(v), tensorArg(w)}, t1),
                                  elementwiseStage({t1}, "const float v0 = a0 * 2.0f;", piped("out", {"N"}))},
                                 {{{"K", 4096}, {"N", 4096}}});
    CHECK(definition(vector, "product") == nullptr);
}

namespace {

// Each file is imported once for all test cases; nullptr where no Python with PyTorch is found.
const Op *importedOp(const std::string &file)
{
    if (!test::importOnce(kData + file))
        return nullptr;
    return &test::importedOp(kData + file);
}

} // namespace

TEST_CASE("KernelBench's level-2 products before reductions and norms compile with generated products" * needsNvrtc())
{
    const struct
    {
        const char *file;
        const char *libraryLeft; // the library step that stays, if any
        int kernels;             // the pipeline's own kernels beside the part's
    } cases[] = {
        // 14: x @ w.T, its transpose read in place, the division in the epilogue; the sum and the scaling after
        {"gemm_divide_sum_scaling.py", nullptr, 2},
        {"matmul_sigmoid_sum.py", nullptr, 1},                       // 56: the sigmoid in the epilogue, the sum
        {"gemm_add_relu.py", nullptr, 1},                            // 76: bias and ReLU after nn.Linear without bias
        {"matmul_gelu_softmax.py", "aten::softmax.int", 0},          // 99: GELU in the epilogue
        {"bmm_instance_norm_residual.py", "aten::instance_norm", 1}, // 28: the residual after the norm
        {"gemm_group_norm_hardtanh.py", "aten::group_norm", 1},      // 30: Hardtanh after the norm
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const Op *op = importedOp(c.file);
        if (!op) {
            MESSAGE("skipped: no Python with PyTorch");
            return;
        }
        REQUIRE(test::recipeFor(*op).family == "pipeline");
        REQUIRE(definition(*op, "product") != nullptr);
        for (const auto &[product, arch] : {std::pair{1, "sm_90a"}, {2, "sm_80"}}) {
            CAPTURE(product);
            const Params params = withProduct(*op, product);
            CHECK(verifyCandidate(pipelineTemplate(), *op, params, arch).empty());
            const auto names = stepNames(planOf(*op, params));
            std::vector<std::string> libraries;
            for (const auto &name : names)
                if (name.rfind("library ", 0) == 0)
                    libraries.push_back(name.substr(8));
            CHECK(libraries == (c.libraryLeft ? std::vector<std::string>{c.libraryLeft} : std::vector<std::string>{}));
            CHECK(std::count_if(names.begin(), names.end(),
                                [](const std::string &name) {
                                    return name.find("_product_") == std::string::npos
                                           && name.rfind("library ", 0) != 0;
                                })
                  == c.kernels);
            const auto source = pipelineTemplate().generate(*op, test::recipeFor(*op), params).source;
            CHECK(checkDeviceOnly(source));
        }
    }
}
