// The GEMM layouts beyond the plain product (a transposed a, batches, leading dimensions folded into the rows, a
// triangular output) and diagonal products: their recipe fields in JSON, checkGemm's shape checks and its opt-in,
// the library call of each, and each of the gemm, gemm-tensorcore and gemm-library templates generating code that
// NVRTC compiles and plans that resolve, for every layout. That the results are right is checked on the GPU
// (tst_catalog, tst_gemmlayoutsgpu).
#include "core/codegen/elementwisetemplate.h"
#include "core/codegen/gemmcommon.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

const char *const kGemmTemplates[] = {"gemm", "gemm-tensorcore", "gemm-library"};

Op withRecipe(Op op, const std::string &recipe)
{
    op.recipe = recipe;
    return op;
}

const ResolvedKernelStep &kernelStep(const ResolvedPlan &plan, std::size_t i)
{
    REQUIRE(i < plan.steps.size());
    REQUIRE(std::holds_alternative<ResolvedKernelStep>(plan.steps[i]));
    return std::get<ResolvedKernelStep>(plan.steps[i]);
}

// The template's defaults for op, generated and resolved at shape set `set`.
ResolvedPlan resolvedDefaults(const char *templateName, const Op &op, std::size_t set, std::string *source = nullptr,
                              const Params &changes = {})
{
    const KernelTemplate *kernelTemplate = findKernelTemplate(templateName);
    REQUIRE(kernelTemplate);
    const OpRecipe recipe = recipeFor(op);
    const Params params = with(kernelTemplate->defaults(op, recipe), changes);
    REQUIRE(kernelTemplate->check(op, recipe, params) == std::string());
    const GeneratedKernel kernel = kernelTemplate->generate(op, recipe, params);
    if (source)
        *source = kernel.source;
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE_MESSAGE(plan, kernel.launchPlan);
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets.at(set), parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    return *resolved;
}

} // namespace

TEST_CASE("the layout fields round-trip through JSON; recipes without them read as before")
{
    OpRecipe recipe;
    recipe.family = "gemm";
    recipe.transposeA = true;
    recipe.transposeB = true;
    recipe.batch = "B";
    recipe.triangle = "lower";
    recipe.diagonal = -2;
    Op op;
    op.name = "layouts";
    op.recipe = toJson(recipe);
    CHECK(recipeFor(op) == recipe);

    OpRecipe folded;
    folded.family = "gemm";
    folded.leading = {"L1", "L2"};
    op.recipe = toJson(folded);
    CHECK(recipeFor(op) == folded);

    OpRecipe scaled;
    scaled.family = "elementwise";
    scaled.expression = "v * b";
    scaled.rowInputs = {"v"};
    op.recipe = toJson(scaled);
    CHECK(recipeFor(op) == scaled);

    // A plain product writes none of the new fields, and a recipe without them reads the defaults.
    OpRecipe plain;
    plain.family = "gemm";
    plain.transposeB = true;
    CHECK(toJson(plain) == R"({"family":"gemm","transposeB":true})");
    op.recipe = R"({"family":"gemm","transposeB":true})";
    const OpRecipe old = recipeFor(op);
    CHECK(old == plain);
    CHECK_FALSE(old.transposeA);
    CHECK_FALSE(isBatched(old));
    CHECK(old.leading.empty());
    CHECK(old.triangle.empty());
    CHECK(old.diagonal == 0);
    // An empty batch is no batch.
    op.recipe = R"({"family":"gemm","batch":""})";
    CHECK_FALSE(isBatched(recipeFor(op)));
    CHECK(recipeFor(op).batch == "1");
}

TEST_CASE("each layout's library call")
{
    const struct
    {
        const char *op;
        const char *library;
    } rows[] = {
        {"matmul_transposed_a", "aten::mm"},  {"matmul_transposed_both", "aten::mm"},
        {"bmm_residual", "aten::matmul"},     {"bmm_transposed_a_shared_b", "aten::matmul"},
        {"matmul_folded", "aten::linear"},    {"matmul_upper", "aten::mm"},
        {"bmm_lower_transposed_b", "aten::matmul"},
    };
    for (const auto &row : rows) {
        CAPTURE(row.op);
        CHECK(gemmLibraryOp(recipeFor(gemmLayoutTestOp(row.op))) == row.library);
    }
    CHECK(gemmLibraryOp(recipeFor(gemmTestOp("linear_bias_relu"))) == std::string("aten::linear"));
    CHECK(gemmLibraryOp(recipeFor(gemmTestOp("matmul_square"))) == std::string("aten::mm"));
}

TEST_CASE("checkGemm checks the shapes of each layout")
{
    const std::set<std::string> reserved = gemm::reservedNames({});
    const auto check = [&](const Op &op) {
        return gemm::checkGemm(op, recipeFor(op), reserved, "test", gemm::GemmLayouts::all());
    };
    for (const auto &op : gemmLayoutTestOps()) {
        CAPTURE(op.name);
        CHECK(check(op) == std::string());
    }
    const struct
    {
        const char *name;
        const char *op;
        int variant;
        std::string reason;
    } rows[] = {
        {"a not transposed", "matmul_transposed_a", 0, "input a is [M, K], the recipe needs [K, M] (transposeA: a is [k, m])"},
        {"b without its transpose", "matmul_transposed_both", 1,
         "input b is [K, N], the recipe needs [N, K] (transposeB: b is [n, k])"},
        {"a without the batch", "bmm_residual", 2, "input a is [M, K], the recipe needs [B, M, K]"},
        {"b of another batch", "bmm_residual", 3, "input b is [C, K, N], the recipe needs [B, K, N] or [K, N]"},
        {"epilogue input without the batch", "bmm_residual", 4, "epilogue input res is [M, N], it must be [B, M, N]"},
        {"output without the leading dimension", "matmul_folded", 5, "output out is [M, N], the recipe needs [L, M, N]"},
        {"unbound leading dimension", "matmul_folded", 6, "shape set 1 does not bind L"},
        {"unknown triangle", "matmul_upper", 7, "unknown triangle 'diagonal' (upper or lower)"},
        {"folded rows with a batch", "bmm_residual", 8,
         "leading dimensions fold into the rows of a plain a: not with a batch, a transposed a or a triangle"},
        {"a batch past the grid", "bmm_residual", 9, "shape set 1: a batch of 70000 exceeds 65535 (a grid dimension's limit)"},
        {"a name the batched code takes", "bmm_residual", 10, "tensor name 'batch' clashes with a name of the generated code"},
        {"a name the triangle's code takes", "matmul_upper", 11,
         "tensor name 'keeps' clashes with a name of the generated code"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            Op op = gemmLayoutTestOp(row.op);
            switch (row.variant) {
            case 0: op.inputs[0].shape = {"M", "K"}; break;
            case 1: op.inputs[1].shape = {"K", "N"}; break;
            case 2: op.inputs[0].shape = {"M", "K"}; break;
            case 3:
                op.inputs[1].shape = {"C", "K", "N"};
                for (auto &shapes : op.shapeSets)
                    shapes["C"] = 2;
                break;
            case 4: op.inputs[2].shape = {"M", "N"}; break;
            case 5: op.outputs[0].shape = {"M", "N"}; break;
            case 6: op.shapeSets.front().erase("L"); break;
            case 7: op.recipe = R"j({"family": "gemm", "triangle": "diagonal"})j"; break;
            case 8: op.recipe = R"j({"family": "gemm", "batch": "B", "leading": ["B"]})j"; break;
            case 9: op.shapeSets.front()["B"] = 70000; break;
            case 10: op.outputs[0].name = "batch"; break;
            case 11: op.inputs[0].name = "keeps"; break;
            }
            CHECK(check(op) == row.reason);
        }
    }
}

TEST_CASE("a template that has not opted into a layout refuses it with the reason")
{
    const std::set<std::string> reserved = gemm::reservedNames({});
    const struct
    {
        const char *op;
        gemm::GemmLayouts supported;
        std::string reason;
    } rows[] = {
        {"matmul_transposed_a", {}, "the plain template does not implement a transposed a (transposeA: a given as [k, m])"},
        {"bmm_residual", {}, "the plain template does not implement batched products (batch B)"},
        {"matmul_folded", {}, "the plain template does not fold leading dimensions into the rows (leading [L])"},
        {"matmul_upper", {}, "the plain template does not implement a triangular output (triangle upper)"},
        {"bmm_lower_transposed_b", {false, true, false, false},
         "the plain template does not implement a triangular output (triangle lower)"},
        {"bmm_transposed_a_shared_b", {false, true, true, true},
         "the plain template does not implement a transposed a (transposeA: a given as [k, m])"},
    };
    for (const auto &row : rows) {
        CAPTURE(row.op);
        const Op &op = gemmLayoutTestOp(row.op);
        CHECK(gemm::checkGemm(op, recipeFor(op), reserved, "plain", row.supported) == row.reason);
        // Opted in, the same op passes.
        CHECK(gemm::checkGemm(op, recipeFor(op), reserved, "plain", gemm::GemmLayouts::all()) == std::string());
    }
    // Today's layouts need no opt-in.
    for (const auto &op : gemmTestOps())
        CHECK(gemm::checkGemm(op, recipeFor(op), reserved, "plain") == std::string());
}

TEST_CASE("every gemm template compiles every layout: its defaults and sampled variants" * needsNvrtc())
{
    unsigned seed = 11;
    for (const char *name : kGemmTemplates) {
        const KernelTemplate *kernelTemplate = findKernelTemplate(name);
        REQUIRE(kernelTemplate);
        for (const auto &op : gemmLayoutTestOps()) {
            const OpRecipe recipe = recipeFor(op);
            auto variants = sampleValid(*kernelTemplate, op, seed++, 3);
            CHECK(variants.size() == std::size_t(3));
            variants.insert(variants.begin(), kernelTemplate->defaults(op, recipe));
            for (std::size_t i = 0; i < variants.size(); ++i) {
                const std::string problem = verifyCandidate(*kernelTemplate, op, variants[i], i % 2 ? "sm_90" : "sm_80");
                CHECK_MESSAGE(problem.empty(), problem);
            }
        }
    }
}

TEST_CASE("transposed operands are staged along their contiguous dimension, or passed to the library as views")
{
    const Op &op = gemmLayoutTestOp("matmul_transposed_both");
    std::string source;
    resolvedDefaults("gemm", op, 1, &source);
    // a [k, m] is copied k-major as it is; b [n, k] is transposed on the way into shared memory.
    CHECK(source.find("loadSlice<BM, A_STRIDE>(a, ") != std::string::npos);
    CHECK(source.find("loadTransposedSlice<BN, B_STRIDE>(b, ") != std::string::npos);
    resolvedDefaults("gemm-tensorcore", op, 1, &source);
    CHECK(source.find("constexpr int A_LD = BM + 4;  // a slice: [BK][A_LD], m contiguous (a is [k, m])")
          != std::string::npos);
    CHECK(source.find("loadTile<BK, BM, A_LD>(a, stage, K, M, k0, rowBase);") != std::string::npos);

    const auto library = resolvedDefaults("gemm-library", op, 1);
    REQUIRE(std::holds_alternative<ResolvedLibraryStep>(library.steps.front()));
    const auto &product = std::get<ResolvedLibraryStep>(library.steps.front());
    CHECK(product.op == std::string("aten::mm"));
    REQUIRE(product.args.size() == std::size_t(3));
    CHECK(product.args[0].transposed);
    CHECK(product.args[1].transposed);
    CHECK_FALSE(product.args[2].transposed);
    // nn.Linear's b [n, k] is what aten::linear takes as it is.
    const auto linear = resolvedDefaults("gemm-library", gemmLayoutTestOp("matmul_folded"), 1);
    const auto &folded = std::get<ResolvedLibraryStep>(linear.steps.front());
    CHECK(folded.op == std::string("aten::linear"));
    CHECK_FALSE(folded.args[1].transposed);
}

TEST_CASE("leading dimensions fold into the rows: one product of L * M rows")
{
    const Op &op = gemmLayoutTestOp("matmul_folded"); // shape set 2: L 3, M 17, N 40, K 33
    const auto plain = resolvedDefaults("gemm", op, 1);
    const auto &kernel = kernelStep(plain, 0);
    CHECK(kernel.args[3].intValue == 3 * 17); // M
    CHECK(kernel.grid[1] == (3 * 17 + 63) / 64);
    const auto tensorCores = resolvedDefaults("gemm-tensorcore", op, 1);
    CHECK(kernelStep(tensorCores, 0).args[3].intValue == 3 * 17);
    const auto library = resolvedDefaults("gemm-library", op, 1);
    const auto &product = std::get<ResolvedLibraryStep>(library.steps.front());
    CHECK(product.args[0].hasShape);
    CHECK(product.args[0].ints == std::vector<std::int64_t>{3 * 17, 33});
}

TEST_CASE("a batch is a grid dimension of the tiled kernels and of the library's epilogue")
{
    const Op &op = gemmLayoutTestOp("bmm_residual"); // shape set 2: B 3, M 65, N 33, K 17
    std::string source;
    const auto plain = resolvedDefaults("gemm", op, 1, &source);
    CHECK(kernelStep(plain, 0).grid[2] == 3);
    CHECK(source.find("a += (size_t)blockIdx.z * M * K;") != std::string::npos);
    CHECK(source.find("res += (size_t)blockIdx.z * M * N;") != std::string::npos);
    const auto tensorCores = resolvedDefaults("gemm-tensorcore", op, 1, &source);
    CHECK(kernelStep(tensorCores, 0).grid[1] == 3);
    CHECK(source.find("b += (size_t)blockIdx.y * K * N;") != std::string::npos);
    const auto library = resolvedDefaults("gemm-library", op, 1);
    CHECK(std::get<ResolvedLibraryStep>(library.steps.front()).op == std::string("aten::matmul"));
    const auto &epilogue = kernelStep(library, 1);
    CHECK(epilogue.args.back().intValue == 3); // batches
    CHECK(epilogue.grid[0] * epilogue.block[0] >= 3 * 65 * 33);
    CHECK(library.scratchBytes.front().second == 4 * 3 * 65 * 33);

    // The default tile counts the blocks of every matrix: 64 of 512 x 512 fill the GPU with 128 x 128 tiles, where
    // one matrix alone would take smaller ones.
    const KernelTemplate *tensorCoreTemplate = findKernelTemplate("gemm-tensorcore");
    Op many = op;
    many.shapeSets.front() = {{"B", 64}, {"M", 512}, {"N", 512}, {"K", 64}};
    CHECK(tensorCoreTemplate->defaults(many, recipeFor(many)).at("bm") == 128);
    Op single = many;
    single.shapeSets.front()["B"] = 1;
    CHECK(tensorCoreTemplate->defaults(single, recipeFor(single)).at("bm") < 128);

    // A b that every batch shares stays where it is.
    resolvedDefaults("gemm", gemmLayoutTestOp("bmm_transposed_a_shared_b"), 1, &source);
    CHECK(source.find("b += ") == std::string::npos);
    CHECK(source.find("(b is shared)") != std::string::npos);

    // Split-K would take the same grid dimension.
    const KernelTemplate *gemmTemplate = findKernelTemplate("gemm");
    CHECK(gemmTemplate->check(op, recipeFor(op), with(gemmTemplate->defaults(op, recipeFor(op)), {{"splitK", 2}}))
          == std::string("split-K and the batch both take the grid's z dimension: a batched product runs with splitK 1"));
}

TEST_CASE("a triangular output skips the product of tiles in its zero part and masks the diagonal's tiles")
{
    const Op &upper = gemmLayoutTestOp("matmul_upper");
    std::string source;
    resolvedDefaults("gemm", upper, 0, &source);
    CHECK(source.find("return n - m >= 0;") != std::string::npos);
    CHECK(source.find("return (long long)colBase + BN - 1 - rowBase < 0;") != std::string::npos);
    CHECK(source.find("const int kBegin = 0, kEnd = (zeroTile(rowBase, colBase) ? kBegin : K);") != std::string::npos);
    CHECK(source.find("(keeps(m, n) ? epilogue(acc[i][j], m, n) : 0.0f)") != std::string::npos);
    // Split-K: the parts of a zero tile are empty, the second kernel masks.
    resolvedDefaults("gemm", upper, 0, &source, {{"splitK", 2}});
    CHECK(source.find("const int kEnd = min((zeroTile(rowBase, colBase) ? kBegin : K), kBegin + kPerSplit);")
          != std::string::npos);
    CHECK(source.find("(keeps(m, n) ? epilogue(sum, m, n) : 0.0f)") != std::string::npos);

    const Op &lower = gemmLayoutTestOp("bmm_lower_transposed_b");
    resolvedDefaults("gemm-tensorcore", lower, 0, &source);
    CHECK(source.find("return n - m <= -3;") != std::string::npos);
    CHECK(source.find("return (long long)colBase - (rowBase + BM - 1) > -3;") != std::string::npos);
    CHECK(source.find("const int slices = zeroTile(rowBase, colBase) ? 0 : (K + BK - 1) / BK;") != std::string::npos);
    // The library computes the whole product; its epilogue writes the triangle.
    resolvedDefaults("gemm-library", lower, 0, &source);
    CHECK(source.find("zeroTile") == std::string::npos);
    CHECK(source.find("(keeps(m, n) ? epilogue(product[i], m, n) : 0.0f)") != std::string::npos);
    CHECK(source.find("const int m = (int)(i / N % M), n = (int)(i % N);") != std::string::npos);
}

TEST_CASE("float4 loads of a transposed a read along m")
{
    const Op &op = gemmLayoutTestOp("matmul_transposed_a"); // shape set 2: M 97
    const KernelTemplate *gemmTemplate = findKernelTemplate("gemm");
    CHECK(gemmTemplate->check(op, recipeFor(op), with(gemmTemplate->defaults(op, recipeFor(op)), {{"vec", 4}}))
          == std::string("float4 loads of a need M divisible by 4 (shape set 2 has M = 97)"));
    Op even = op;
    even.shapeSets[1] = {{"M", 96}, {"N", 64}, {"K", 77}}; // K need not be: a and b are read along m and n
    CHECK(gemmTemplate->check(even, recipeFor(even), with(gemmTemplate->defaults(even, recipeFor(even)), {{"vec", 4}}))
          == std::string());
}

TEST_CASE("an elementwise input may hold one value per row of the output")
{
    Op op;
    op.name = "diag_times_b";
    op.inputs = {tensor("v", {"N"}), tensor("b", {"N", "M"})};
    op.outputs = {tensor("out", {"N", "M"})};
    op.shapeSets = {{{"N", 4096}, {"M", 4096}}, {{"N", 33}, {"M", 102}}};
    op.recipe = R"j({"family": "elementwise", "expression": "(v * b)", "rowInputs": ["v"]})j";
    const ElementwiseTemplate elementwise;
    const OpRecipe recipe = recipeFor(op);
    const auto generated = elementwise.generate(op, recipe, elementwise.defaults(op, recipe));
    CHECK(generated.source.find("v_ptr)[(i) / v_row]") != std::string::npos);
    const auto plan = parseLaunchPlan(generated.launchPlan);
    REQUIRE(plan);
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets[1], parseKernelSignatures(generated.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    CHECK(kernelStep(*resolved, 0).args.back().intValue == 102); // elements a row

    // A vector of four outputs stays in one row only where rows are multiples of four.
    const Params vectorised = with(elementwise.defaults(op, recipe), {{"vec", 4}});
    CHECK(elementwise.check(op, recipe, vectorised)
          == std::string("vector width 4 needs rows of row input v of a multiple of 4 elements"));
    Op square = op;
    square.outputs = {tensor("out", {"N", "N"})};
    square.inputs[1] = tensor("b", {"N", "N"});
    square.shapeSets = {{{"N", 4096}}, {{"N", 36}}};
    CHECK(elementwise.check(square, recipeFor(square), vectorised) == std::string());
    const auto four = elementwise.generate(square, recipeFor(square), vectorised).source;
    CHECK(four.find("v_ptr)[(i * 4) / v_row]") != std::string::npos);
    // A row input must be the output's leading dimensions.
    Op trailing = withRecipe(square, R"j({"family": "elementwise", "expression": "(b * v)", "rowInputs": ["b"]})j");
    CHECK(elementwise.check(trailing, recipeFor(trailing), elementwise.defaults(trailing, recipeFor(trailing)))
          == std::string("row input b is not the output's leading dimensions"));
    if (!NvrtcCompiler::available())
        return;
    // Sampled variants (vector widths, unrolling, grid-stride loops, streaming loads) compile and resolve.
    for (const Op &variantOp : {op, square})
        for (const auto &params : sampleValid(elementwise, variantOp, 3, 8))
            CHECK(verifyCandidate(elementwise, variantOp, params, "sm_80") == std::string());
    CHECK(verifyCandidate(elementwise, square, with(vectorised, {{"unroll", 2}, {"streaming", 1}}), "sm_90")
          == std::string());
}
