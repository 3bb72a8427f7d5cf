// The Hopper wgmma gemm template: parameter checks, generated source and plan, real NVRTC compiles for sm_90a
// and plan resolution. That its kernels compute the right numbers is checked on the GPU (tst_catalog,
// tst_gemmprecision).
#include "core/codegen/gemmwgmmatemplate.h"
#include "core/ops/builtinops.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace kx;
using namespace kx::test;

namespace {
const GemmWgmmaTemplate kTemplate;
} // namespace

TEST_CASE("is registered among the gemm templates")
{
    const Op &op = gemmTestOp("matmul_square");
    const KernelTemplate *found = findKernelTemplate("gemm-wgmma");
    REQUIRE(found);
    CHECK(found->supports(op, recipeFor(op)));
}

TEST_CASE("the defaults are valid, fp32-accurate and compile for sm_90a" * needsNvrtc())
{
    for (const auto &op : gemmTestOps()) {
        SUBCASE(op.name.c_str())
        {
            const Params defaults = kTemplate.defaults(op, recipeFor(op));
            CHECK(kTemplate.check(op, recipeFor(op), defaults) == std::string());
            CHECK(defaults.at("products") == 3);
            const std::string problem = verifyCandidate(kTemplate, op, defaults, "sm_90a");
            CHECK_MESSAGE(problem.empty(), problem);
        }
    }
}

TEST_CASE("refuses to compile for a GPU without wgmma" * needsNvrtc())
{
    const Op &op = gemmTestOp("matmul_square");
    for (const char *arch : {"sm_80", "sm_90"}) {
        const std::string problem = verifyCandidate(kTemplate, op, kTemplate.defaults(op, recipeFor(op)), arch);
        CHECK_MESSAGE(problem.find("wgmma needs sm_90a (Hopper)") != std::string::npos, problem);
    }
}

TEST_CASE("the valid space follows the register and shared-memory rules")
{
    int valid = 0, plainTf32 = 0, wide = 0, deep = 0;
    for (const auto &params : validSpace(kTemplate, gemmTestOp("matmul_square"), 5)) {
        ++valid;
        plainTf32 += params.at("products") == 1;
        wide += params.at("bn") == 256;
        deep += params.at("stages") == 6;
    }
    // A stage holds (bm + bn) rows of 128 bytes per TF32 part; 227 KiB hold 2-6 stages of 64 x 64 tiles but
    // only 2-3 of 128 x 128 and 2 of 192 x 128 under 3xTF32; plain TF32 with cp.async needs 3 stages or more.
    // Per row order (4 values) and cp.async: 3xTF32 16 combinations (bn 256 holds too many sums), TF32 30. The
    // TMA loader's barriers take 16 bytes a stage, which no combination misses; its plain TF32 also runs with 2
    // stages (9 tiles more), but three multiplying warpgroups hold at most 64 sums a thread (192 x 128 in 3xTF32
    // and 192 x 256 in TF32 are refused: 1 and 3 combinations).
    CHECK(valid == 4 * (16 + 30) + 4 * (15 + 36));
    CHECK(plainTf32 == 4 * 30 + 4 * 36);
    CHECK(wide == 4 * (3 + 2 + 2) + 4 * (4 + 3));
    CHECK(deep == 2 * 4 * (1 + 5)); // 3xTF32 64 x 64; TF32 64 x 64, 64 x 128, 128 x 64, 128 x 128, 192 x 64
}

TEST_CASE("random combinations compile for sm_90a and resolve" * needsNvrtc())
{
    int compiled = 0, plainTf32 = 0, oneWarpgroup = 0;
    unsigned seed = 11;
    for (const auto &op : {gemmTestOp("matmul_square"), gemmTestOp("linear_bias_relu")}) {
        for (const auto &params : sampleValid(kTemplate, op, seed++, 6)) {
            const std::string problem = verifyCandidate(kTemplate, op, params, "sm_90a");
            CHECK_MESSAGE(problem.empty(), problem);
            ++compiled;
            plainTf32 += params.at("products") == 1;
            oneWarpgroup += params.at("bm") == 64;
        }
    }
    CHECK(compiled == 12);
    CHECK((plainTf32 > 0 && plainTf32 < 12 && oneWarpgroup > 0 && oneWarpgroup < 12));
}

TEST_CASE("the plan rounds the operands into padded copies, then runs one block per tile")
{
    const Op &op = gemmTestOp("matmul_square");
    const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), "bm=128,bn=64,stages=4,loader=0");
    REQUIRE(kTemplate.check(op, recipeFor(op), params) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(plan);
    const ShapeSet &odd = op.shapeSets.back();
    const long long m = odd.at("M"), n = odd.at("N"), k = odd.at("K");
    const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    REQUIRE(resolved->steps.size() == std::size_t(3));
    const long long mPadded = (m + 127) / 128 * 128, nPadded = (n + 63) / 64 * 64, kPadded = (k + 31) / 32 * 32;
    REQUIRE(resolved->scratchBytes.size() == std::size_t(4));
    CHECK(resolved->scratchBytes[0].second == 4 * mPadded * kPadded); // aBig
    CHECK(resolved->scratchBytes[1].second == 4 * nPadded * kPadded); // bBig
    CHECK(resolved->scratchBytes[3].second == 4 * nPadded * kPadded); // bSmall
    const auto &splitA = std::get<ResolvedKernelStep>(resolved->steps[0]);
    CHECK(splitA.kernel == std::string("split_rows_kernel"));
    CHECK(splitA.grid[0] == (mPadded * kPadded + 1023) / 1024);
    const auto &splitB = std::get<ResolvedKernelStep>(resolved->steps[1]);
    CHECK(splitB.kernel == std::string("split_transposed_kernel")); // b is [k, n]: transposed into [n, k]
    CHECK(splitB.grid[0] == nPadded / 32);
    CHECK(splitB.grid[1] == kPadded / 32);
    const auto &main = std::get<ResolvedKernelStep>(resolved->steps[2]);
    CHECK(main.kernel == std::string("gemm_wgmma_kernel"));
    CHECK(main.grid[0] == ((m + 127) / 128) * ((n + 63) / 64));
    CHECK(main.block[0] == std::int64_t(256));
    // Four stages of a and b, big and small parts, rows of 128 bytes, and the slack that aligns the first tile.
    CHECK(main.sharedBytes == std::int64_t(4 * 2 * (128 + 64) * 128 + 1024));

    const Op &linear = gemmTestOp("linear_bias_relu"); // b is [n, k] already: no transpose
    const auto linearPlan = parseLaunchPlan(kTemplate.generate(linear, recipeFor(linear), params).launchPlan);
    REQUIRE(linearPlan);
    REQUIRE(linearPlan->steps.size() == std::size_t(3));
    CHECK(std::get<KernelStep>(linearPlan->steps[1]).kernel == std::string("split_rows_kernel"));
}

// The main kernel's arguments that are tensor maps, resolved on the op's odd shape set.
std::vector<ResolvedArg> resolvedMaps(const Op &op, const Params &params, std::size_t &steps)
{
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets.back(), parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    steps = resolved->steps.size();
    std::vector<ResolvedArg> maps;
    for (const auto &arg : std::get<ResolvedKernelStep>(resolved->steps.back()).args)
        if (arg.kind == PlanArg::Kind::TensorMap)
            maps.push_back(arg);
    return maps;
}

TEST_CASE("with the TMA loader, plain TF32 reads k-contiguous operands in place and copies the others")
{
    const auto tma = [](const Op &op, const std::string &changes) {
        return withChanges(kTemplate.defaults(op, recipeFor(op)), changes);
    };
    std::size_t steps = 0;
    // nn.Linear: x [B, IN] and weight [OUT, IN] are k-contiguous and IN is a multiple of 4: no copy at all.
    const Op &linear = gemmTestOp("linear_bias_relu");
    auto maps = resolvedMaps(linear, tma(linear, "loader=1,products=1,bm=128,bn=256"), steps);
    CHECK(steps == std::size_t(1));
    REQUIRE(maps.size() == std::size_t(2));
    const ShapeSet &odd = linear.shapeSets.back();
    CHECK(maps[0].tensorMap.tensorKind == PlanArg::Kind::Input);
    CHECK(maps[0].tensorMap.dims == std::vector<std::int64_t>{odd.at("IN"), odd.at("B")});
    CHECK(maps[0].tensorMap.box == std::vector<std::int64_t>{32, 128});
    CHECK(maps[0].tensorMap.swizzleBytes == 128);
    CHECK(maps[1].tensorMap.dims == std::vector<std::int64_t>{odd.at("IN"), odd.at("OUT")});
    CHECK(maps[1].tensorMap.box == std::vector<std::int64_t>{32, 256});

    // b given as [k, n] is transposed into a copy; a is still read in place.
    const Op &square = gemmTestOp("matmul_square");
    maps = resolvedMaps(square, tma(square, "loader=1,products=1,bm=128,bn=128"), steps);
    CHECK(steps == std::size_t(2));
    REQUIRE(maps.size() == std::size_t(2));
    CHECK(maps[0].tensorMap.tensorKind == PlanArg::Kind::Input);
    CHECK(maps[1].tensorMap.tensorKind == PlanArg::Kind::Scratch);
    const long long k = square.shapeSets.back().at("K"), n = square.shapeSets.back().at("N");
    CHECK(maps[1].tensorMap.dims == std::vector<std::int64_t>{(k + 31) / 32 * 32, (n + 127) / 128 * 128});

    // A k of 77 leaves rows off 16-byte boundaries: both operands go through copies; 3xTF32 always does.
    const Op &residual = gemmTestOp("matmul_scale_residual_clamp");
    maps = resolvedMaps(residual, tma(residual, "loader=1,products=1"), steps);
    CHECK(steps == std::size_t(3));
    CHECK(std::all_of(maps.begin(), maps.end(),
                      [](const ResolvedArg &map) { return map.tensorMap.tensorKind == PlanArg::Kind::Scratch; }));
    maps = resolvedMaps(linear, tma(linear, "loader=1,products=3,bm=128,bn=128"), steps);
    CHECK(steps == std::size_t(3));
    CHECK(maps.size() == std::size_t(4));
}

TEST_CASE("the TMA loader adds a producer warpgroup and compiles for sm_90a" * needsNvrtc())
{
    for (const auto &op : gemmTestOps())
        for (const char *changes : {"loader=1,products=1,bm=128,bn=256,stages=4", "loader=1,bm=128,bn=128,stages=3",
                                    "loader=1,products=1,bm=64,bn=128,stages=2", "loader=1,products=1,bm=192,bn=128"}) {
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), changes);
            REQUIRE(kTemplate.check(op, recipeFor(op), params) == std::string());
            const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
            CHECK(kernel.source.find("cp.async.bulk.tensor.2d") != std::string::npos);
            const auto plan = parseLaunchPlan(kernel.launchPlan);
            REQUIRE(plan);
            const int threads = 128 * (params.at("bm") / 64 + 1);
            CHECK(std::get<KernelStep>(plan->steps.back()).block.front() == std::to_string(threads));
            const std::string problem = verifyCandidate(kTemplate, op, params, "sm_90a");
            CHECK_MESSAGE(problem.empty(), op.name << " " << changes << ": " << problem);
        }
}

TEST_CASE("the source states its parameters and its precision")
{
    const Op &op = gemmTestOp("matmul_scale_residual_clamp");
    const OpRecipe recipe = recipeFor(op);
    const Params params = kTemplate.defaults(op, recipe);
    const std::string source = kTemplate.generate(op, recipe, params).source;
    const std::string unstated = unstatedParameters(kTemplate, op, params, source);
    CHECK_MESSAGE(unstated.empty(), unstated);
    CHECK(source.find("3xTF32") != std::string::npos);
    CHECK(source.find("wgmma.mma_async.sync.aligned.m64n") != std::string::npos);
    CHECK(source.find("fminf(fmaxf(acc * 2.0f + res, -1.0f), 1.0f)") != std::string::npos);
    const GeneratedKernel plain = kTemplate.generate(op, recipe, with(params, {{"products", 1}}));
    CHECK(plain.source.find("Precision: plain TF32") != std::string::npos);
    CHECK(plain.source.find("float *__restrict__ aSmall") == std::string::npos);
    const auto plan = parseLaunchPlan(plain.launchPlan);
    REQUIRE(plan);
    CHECK(plan->scratch.size() == std::size_t(2)); // the big parts only
}

TEST_CASE("rejects invalid combinations")
{
    const struct
    {
        const char *name;
        std::string changes;
        std::string reason;
    } rows[] = {
        {"too many sums for 3xTF32", "bn=256",
         "a 64 x 256 warpgroup tile with 3xTF32 holds 256 sums a thread, more than 128 fit in registers beside the "
         "operands"},
        {"shared memory", "bm=128,bn=128,stages=4,loader=0",
         "263168 bytes of shared memory (4 stages of 65536) exceed 232448"},
        {"shared memory with the TMA loader's barriers", "bm=128,bn=128,stages=4,loader=1",
         "263232 bytes of shared memory (4 stages of 65536) exceed 232448"},
        {"value not allowed", "bm=256", "block tile rows (64 per warpgroup) 256 is not one of the allowed values"},
        {"plain TF32 with 2 stages", "products=1,stages=2,loader=0",
         "plain TF32 keeps a slice's products running while the next slice is issued: it needs at least 3 stages"},
        {"three warpgroups with a producer", "bm=192,bn=128,stages=2,loader=1",
         "with a producer warpgroup, three warpgroups of 64 x 128 hold 128 sums a thread, more than the 64 that fit "
         "in 128 registers"},
        {"three warpgroups, 3 stages", "bm=192,bn=128,stages=3,loader=0",
         "246784 bytes of shared memory (3 stages of 81920) exceed 232448"},
        {"missing", "-stages", "missing parameter stages"},
    };
    const Op &op = gemmTestOp("matmul_square");
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), row.changes);
            CHECK(kTemplate.check(op, recipeFor(op), params) == row.reason);
        }
    }
}

TEST_CASE("a transposed a and folded rows go through the copy kernels; triangles are refused")
{
    const Op &transposed = *findBuiltInOp("matmul_transposed_a");
    const Params params = kTemplate.defaults(transposed, recipeFor(transposed));
    REQUIRE(kTemplate.check(transposed, recipeFor(transposed), params) == std::string());
    const auto plan = parseLaunchPlan(kTemplate.generate(transposed, recipeFor(transposed), params).launchPlan);
    REQUIRE(plan);
    // a is [k, m]: transposed like b into [m, k] copies; b is [k, n].
    CHECK(std::get<KernelStep>(plan->steps[0]).kernel == std::string("split_transposed_kernel"));
    CHECK(std::get<KernelStep>(plan->steps[1]).kernel == std::string("split_transposed_kernel"));

    const Op &folded = *findBuiltInOp("matmul_3d"); // a [L, M, K]: L * M rows
    const OpRecipe recipe = recipeFor(folded);
    REQUIRE(!recipe.leading.empty());
    const Params foldedParams = kTemplate.defaults(folded, recipe);
    REQUIRE(kTemplate.check(folded, recipe, foldedParams) == std::string());
    const GeneratedKernel kernel = kTemplate.generate(folded, recipe, foldedParams);
    const auto foldedPlan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE(foldedPlan);
    const ShapeSet &shapes = folded.shapeSets.back();
    const auto resolved = resolveLaunchPlan(*foldedPlan, folded, shapes, parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    const long long rows = shapes.at(recipe.leading.front()) * shapes.at(recipe.m);
    const int bm = foldedParams.at("bm"), bn = foldedParams.at("bn");
    const auto &main = std::get<ResolvedKernelStep>(resolved->steps.back());
    CHECK(main.grid[0] == ((rows + bm - 1) / bm) * ((shapes.at(recipe.n) + bn - 1) / bn));

    for (const char *name : {"matmul_upper", "bmm_lower_transposed_a"}) {
        const Op &op = *findBuiltInOp(name);
        CHECK_MESSAGE(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)))
                          == "the gemm-wgmma template does not implement a triangular output (triangle "
                                 + recipeFor(op).triangle + ")",
                      name);
    }
}

// The batched ops without a triangle: the catalog's torch.bmm, an epilogue input per matrix, a transposed a with a
// shared b, and both operands k-contiguous with k a multiple of 4 (plain TF32 reads them in place).
std::vector<Op> batchedOps()
{
    Op inPlace = gemmLayoutTestOp("bmm_lower_transposed_b");
    inPlace.name = "bmm_transposed_b";
    inPlace.recipe = R"j({"family": "gemm", "batch": "B", "transposeB": true})j";
    inPlace.shapeSets.back()["K"] = 36;
    return {*findBuiltInOp("bmm"), gemmLayoutTestOp("bmm_residual"), gemmLayoutTestOp("bmm_transposed_a_shared_b"),
            inPlace};
}

TEST_CASE("batches need the TMA loader")
{
    for (const Op &op : batchedOps()) {
        CAPTURE(op.name);
        const OpRecipe recipe = recipeFor(op);
        const Params defaults = kTemplate.defaults(op, recipe);
        CHECK(defaults.at("loader") == 1);
        CHECK(kTemplate.check(op, recipe, defaults) == std::string());
        CHECK(kTemplate.check(op, recipe, with(defaults, {{"loader", 0}}))
              == "the gemm-wgmma template takes batched products (batch " + recipe.batch
                     + ") with the TMA loader (loader 1) only");
    }
}

TEST_CASE("a batch is the grid's y and the third dimension of the batched operands' maps")
{
    int readInPlace = 0;
    for (const Op &op : batchedOps())
        for (const char *changes : {"products=3", "products=1", "products=1,bm=128,bn=256,stages=4"}) {
            const OpRecipe recipe = recipeFor(op);
            const Params params = withChanges(kTemplate.defaults(op, recipe), changes);
            REQUIRE(kTemplate.check(op, recipe, params) == std::string());
            const GeneratedKernel kernel = kTemplate.generate(op, recipe, params);
            const auto plan = parseLaunchPlan(kernel.launchPlan);
            REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
            const bool sharedB = op.inputs[1].shape.size() == 2;
            CHECK(sharedB == (op.name == "bmm_transposed_a_shared_b"));
            const bool alignedRows = std::all_of(op.shapeSets.begin(), op.shapeSets.end(),
                                                 [&](const ShapeSet &shapes) { return shapes.at(recipe.k) % 4 == 0; });
            for (const ShapeSet &shapes : op.shapeSets) {
                CAPTURE(op.name);
                CAPTURE(std::string(changes));
                const auto resolved = resolveLaunchPlan(*plan, op, shapes, parseKernelSignatures(kernel.source));
                REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
                const long long batch = shapes.at(recipe.batch), m = shapes.at(recipe.m), n = shapes.at(recipe.n),
                                k = shapes.at(recipe.k);
                const int bm = params.at("bm"), bn = params.at("bn");
                const long long mPadded = (m + bm - 1) / bm * bm, nPadded = (n + bn - 1) / bn * bn;
                const long long kPadded = (k + 31) / 32 * 32;
                const auto &main = std::get<ResolvedKernelStep>(resolved->steps.back());
                CHECK(main.grid[0] == ((m + bm - 1) / bm) * ((n + bn - 1) / bn));
                CHECK(main.grid[1] == batch);
                std::vector<ResolvedTensorMap> maps;
                for (const auto &arg : main.args)
                    if (arg.kind == PlanArg::Kind::TensorMap)
                        maps.push_back(arg.tensorMap);
                REQUIRE(maps.size() == std::size_t(params.at("products") == 3 ? 4 : 2));
                for (std::size_t i = 0; i < maps.size(); ++i) {
                    const bool isA = i % 2 == 0, batched = isA || !sharedB;
                    const long long rows = isA ? m : n, rowsPadded = isA ? mPadded : nPadded;
                    const ResolvedTensorMap &map = maps[i];
                    const bool inPlace = map.tensorKind == PlanArg::Kind::Input;
                    std::vector<std::int64_t> dims{inPlace ? k : kPadded, inPlace ? rows : rowsPadded};
                    std::vector<std::int64_t> box{32, isA ? bm : bn};
                    if (batched) {
                        dims.push_back(batch);
                        box.push_back(1);
                    }
                    CHECK(map.dims == dims);
                    CHECK(map.box == box);
                    // In place only where the operand is [rows, k] with 16-byte rows in every shape set, under
                    // plain TF32.
                    const bool kContiguous = isA ? !recipe.transposeA : recipe.transposeB;
                    CHECK(inPlace == (params.at("products") == 1 && kContiguous && alignedRows));
                    readInPlace += inPlace;
                }
                // Every copy holds one padded matrix per batch (a shared b's one); its kernel pads each on its own.
                for (const auto &[name, bytes] : resolved->scratchBytes) {
                    const bool isA = name[0] == 'a';
                    CHECK(bytes == 4 * (isA || !sharedB ? batch : 1) * (isA ? mPadded : nPadded) * kPadded);
                }
                for (std::size_t i = 0; i + 1 < resolved->steps.size(); ++i) {
                    const auto &split = std::get<ResolvedKernelStep>(resolved->steps[i]);
                    const bool transposed = split.kernel == "split_transposed_kernel";
                    const bool splitsB = std::get<KernelStep>(plan->steps[i]).args[0].name == op.inputs[1].name;
                    CHECK(split.grid[transposed ? 2 : 1] == (splitsB && sharedB ? 1 : batch));
                }
            }
        }
    // bmm_transposed_b's a and b under plain TF32 (two variants) in both shape sets; bmm's K of 77 needs copies.
    CHECK(readInPlace == 2 * 2 * 2);
}

TEST_CASE("batched variants compile for sm_90a" * needsNvrtc())
{
    for (const Op &op : batchedOps())
        for (const char *changes : {"products=3", "products=1", "products=1,bm=128,bn=256,stages=4",
                                    "products=1,bm=192,bn=128,stages=3", "bm=64,bn=64,stages=5"}) {
            const Params params = withChanges(kTemplate.defaults(op, recipeFor(op)), changes);
            const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
            CHECK(kernel.source.find("cp.async.bulk.tensor.3d") != std::string::npos);
            CHECK(kernel.source.find("const int batch = blockIdx.y;") != std::string::npos);
            const std::string problem = verifyCandidate(kTemplate, op, params, "sm_90a");
            CHECK_MESSAGE(problem.empty(), op.name << " " << changes << ": " << problem);
        }
    for (const auto &params : sampleValid(kTemplate, *findBuiltInOp("bmm"), 5, 4)) {
        const std::string problem = verifyCandidate(kTemplate, *findBuiltInOp("bmm"), params, "sm_90a");
        CHECK_MESSAGE(problem.empty(), problem);
    }
}

TEST_CASE("the new layouts compile for sm_90a" * needsNvrtc())
{
    for (const char *name : {"matmul_transposed_a", "matmul_3d"}) {
        const Op &op = *findBuiltInOp(name);
        const std::string problem = verifyCandidate(kTemplate, op, kTemplate.defaults(op, recipeFor(op)), "sm_90a");
        CHECK_MESSAGE(problem.empty(), problem);
    }
}

TEST_CASE("rejects tensor names of its generated code")
{
    Op clash = gemmTestOp("matmul_square");
    clash.inputs[0].name = "warpgroup";
    CHECK(kTemplate.check(clash, recipeFor(clash), kTemplate.defaults(clash, recipeFor(clash)))
          == std::string("tensor name 'warpgroup' clashes with a name of the generated code"));
}
