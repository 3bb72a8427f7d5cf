#include "core/codegen/gemmwgmmatemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"
#include "core/codegen/gemmwgmmasource.h"

#include <algorithm>
#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

constexpr int kWarpgroupRows = 64; // wgmma's m
// Sums a thread may hold in registers (the accumulators, and under 3xTF32 the slice's fresh sum beside them)
// without ptxas spilling: a warpgroup's 64 x BN tile is BN / 2 sums a thread.
constexpr int kMaxSums = 128;
constexpr int kMaxOptInSharedBytes = 227 * 1024;

// The copy engine reads an operand in place where it is k-contiguous (a as [rows, k], b as [n, k]) and every
// row starts on 16 bytes (k a multiple of 4 in every shape set); plain TF32 only, as 3xTF32 needs the split.
bool readsInPlace(const std::vector<GemmSizes> &sizes, bool kContiguous)
{
    return kContiguous
           && std::all_of(sizes.begin(), sizes.end(), [](const GemmSizes &size) { return size.k % 4 == 0; });
}

WgmmaConfig configOf(const Op &op, const OpRecipe &recipe, const Params &params)
{
    WgmmaConfig config;
    config.bm = param(params, "bm", config.bm);
    config.bn = param(params, "bn", config.bn);
    config.stages = param(params, "stages", config.stages);
    config.products = param(params, "products", config.products);
    config.groupM = param(params, "groupM", config.groupM);
    config.loader = WgmmaLoader(param(params, "loader", int(config.loader)));
    if (config.loader == WgmmaLoader::Tma && isBatched(recipe)) {
        config.batched = true;
        config.batchedB = batchedB(recipe, gemmTensors(op, recipe));
    }
    if (config.loader == WgmmaLoader::Tma && config.products == 1) {
        const auto sizes = gemmSizes(op, recipe);
        config.directA = readsInPlace(sizes, !recipe.transposeA);
        config.directB = readsInPlace(sizes, recipe.transposeB);
    }
    return config;
}

std::string padded(const std::string &symbol, int multiple)
{
    return "(ceil_div(" + symbol + ", " + text(multiple) + ") * " + text(multiple) + ")";
}

// The default tile (see defaultTileIndex()), among those whose sums fit 3xTF32's registers.
TileShape defaultTile(const std::vector<GemmSizes> &sizes)
{
    static const std::vector<TileShape> tiles{{128, 128}, {64, 128}, {64, 64}};
    return tiles[defaultTileIndex(tiles, sizes)];
}

// A tensor map over a [rows, k] operand (k contiguous, dims innermost first) that moves boxes of one k slice
// by boxRows rows into 128-byte-swizzled tiles; over a batched [batch, rows, k] operand, one matrix's box at a time.
nlohmann::json operandMap(const std::string &tensor, const std::string &k, const std::string &rows, int boxRows,
                          const std::string &batch = {})
{
    nlohmann::json dims{k, rows}, box{text(kWgmmaSliceK), text(boxRows)};
    if (!batch.empty()) {
        dims.push_back(batch);
        box.push_back("1");
    }
    return {{"tensorMap", tensor}, {"dims", dims}, {"box", box}, {"swizzle", "128B"}};
}

} // namespace

bool GemmWgmmaTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmWgmmaTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {64, 128, 192}, "block tile rows (64 per warpgroup)"},
            {"bn", {64, 128, 256}, "block tile columns (wgmma's n)"},
            {"stages", {2, 3, 4, 5, 6}, "slices in flight (depth of the shared-memory ring)"},
            {"products", {3, 1}, "TF32 products per multiply (3: fp32-accurate 3xTF32, 1: plain TF32)"},
            {"groupM", {1, 4, 8, 16}, "row tiles walked together (L2 reuse of b)"},
            {"loader",
             {0, 1},
             "how slices reach shared memory (0: cp.async by every thread, 1: TMA copies by a producer warpgroup)"}};
}

Params GemmWgmmaTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    const TileShape tile = defaultTile(gemmSizes(op, recipe));
    // The copy engine's loader: 1.6x faster than cp.async under 3xTF32 and 2.2x under TF32 at 4096^3 (H200).
    return {{"bm", tile.bm}, {"bn", tile.bn}, {"stages", 3}, {"products", 3}, {"groupM", 8}, {"loader", 1}};
}

Params GemmWgmmaTemplate::tf32Changes(const Op &op, const OpRecipe &recipe) const
{
    // Plain TF32 on 128 x 256 tiles, 4 stages: 375 TFLOP/s at 4096^3 on an H200, where 128 x 128 reaches 300.
    const Params wide{{"products", 1}, {"bm", 128}, {"bn", 256}, {"stages", 4}};
    Params params = defaults(op, recipe);
    for (const auto &[name, value] : wide)
        params[name] = value;
    return check(op, recipe, params).empty() ? wide : Params{{"products", 1}};
}

std::string GemmWgmmaTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm-wgmma template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    // The copy kernels lay a out as [rows, k] whatever its layout: a transposed a and folded leading dimensions
    // cost nothing more. The TMA loader's maps take a batch as their third coordinate. Triangles are not
    // implemented here.
    GemmLayouts layouts;
    layouts.transposedA = true;
    layouts.foldedRows = true;
    layouts.batched = true;
    if (auto problem = checkGemm(op, recipe, wgmmaReservedNames(), name(), layouts); !problem.empty())
        return problem;
    if (isBatched(recipe) && param(params, "loader", 1) != int(WgmmaLoader::Tma))
        return "the gemm-wgmma template takes batched products (batch " + recipe.batch
               + ") with the TMA loader (loader 1) only";
    if (recipe.transposeA && !recipe.leading.empty())
        return "the gemm-wgmma template folds leading dimensions of an a given as [m, k] only";
    const WgmmaConfig config = configOf(op, recipe, params);
    if (config.sums() > kMaxSums)
        return "a 64 x " + text(config.bn) + " warpgroup tile with " + (config.products == 3 ? "3xTF32" : "TF32")
               + " holds " + text(config.sums()) + " sums a thread, more than " + text(kMaxSums)
               + " fit in registers beside the operands";
    // ptxas gives every thread the same registers whatever setmaxnreg moves later: four warpgroups (three
    // multiplying, one copying) have 128 each, room for 64 sums beside the operands.
    if (config.loader == WgmmaLoader::Tma && config.warpgroups() == 3 && config.sums() > kMaxSums / 2)
        return "with a producer warpgroup, three warpgroups of 64 x " + text(config.bn) + " hold " + text(config.sums())
               + " sums a thread, more than the " + text(kMaxSums / 2) + " that fit in 128 registers";
    if (config.loader == WgmmaLoader::CpAsync && config.products == 1 && config.stages < 3)
        return "plain TF32 keeps a slice's products running while the next slice is issued: it needs at least 3 "
               "stages";
    if (config.sharedBytes() + config.barrierBytes() > kMaxOptInSharedBytes)
        return text(config.sharedBytes() + config.barrierBytes()) + " bytes of shared memory (" + text(config.stages)
               + " stages of " + text(config.stageBytes()) + ") exceed " + text(kMaxOptInSharedBytes);
    return {};
}

GeneratedKernel GemmWgmmaTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const WgmmaConfig config = configOf(op, recipe, params);
    const GemmTensors tensors = gemmTensors(op, recipe);
    const bool three = config.products == 3, tma = config.loader == WgmmaLoader::Tma;
    const bool anyCopy = !config.directA || !config.directB;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// " << formulaComment(recipe, tensors) << "\n"
        << "// On Hopper's warpgroup tensor-core instructions (wgmma). "
        << (config.directA && config.directB ? "The copy engine reads a and b in place"
                                             : "Copy kernels first round the operands to TF32 into zero-padded copies "
                                               "with k contiguous\n// (b transposed where it is [k, n]), where the "
                                               "copy engine cannot read them in place")
        << ";\n// the main kernel computes a BM x BN tile per block, one warpgroup per 64 rows multiplying 32-wide k "
           "slices\n// staged "
        << (tma ? "by the copy engine (TMA, issued by a producer warpgroup)" : "with cp.async by every thread")
        << " in 128-byte-swizzled shared tiles that wgmma\n// reads directly; the epilogue works on the sums in "
           "registers.\n"
        << (config.batched ? "// Batched: blockIdx.y is the matrix, the third coordinate of the batched operands' "
                             "tensor maps"
                                 + std::string(config.batchedB ? "" : " (b is shared)")
                                 + (anyCopy ? ";\n// the copies are padded matrix by matrix" : "") + ".\n"
                           : std::string())
        << (three ? "// Precision: 3xTF32, as accurate as fp32 FMA (each operand split into a TF32 part and a TF32\n"
                    "// remainder; three tensor-core products, fp32 sums rounded to nearest once per slice).\n"
                  : "// Precision: plain TF32 (operands reduced to 10-bit mantissas, sums in fp32).\n")
        << "\n#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))\n"
        << "#error \"wgmma needs sm_90a (Hopper)\"\n"
        << "#endif\n";
    if (anyCopy)
        writeWgmmaSplitKernels(out, config);
    writeWgmmaMainKernel(out, config, recipe, tensors);

    const std::string rows = rowsExpression(recipe); // m, with a's leading dimensions folded in
    const std::string mPadded = padded(rows, config.bm), nPadded = padded(recipe.n, config.bn);
    const std::string kPadded = padded(recipe.k, kWgmmaSliceK);
    std::vector<std::pair<std::string, std::string>> scratch;
    // A batched operand's copies hold one padded matrix per batch: [batch, rowsPadded, kPadded].
    const std::string aBatch = config.batched ? recipe.batch : "", bBatch = config.batchedB ? recipe.batch : "";
    const auto addCopies = [&](const char *operand, const std::string &rowsPadded, const std::string &batch) {
        const std::string bytes = "4 * " + (batch.empty() ? "" : batch + " * ") + rowsPadded + " * " + kPadded;
        scratch.push_back({std::string(operand) + "Big", bytes});
        if (three)
            scratch.push_back({std::string(operand) + "Small", bytes});
    };
    if (!config.directA)
        addCopies("a", mPadded, aBatch);
    if (!config.directB)
        addCopies("b", nPadded, bBatch);
    const auto parts = [&](const char *operand) {
        nlohmann::json args = nlohmann::json::array({scratchArg(std::string(operand) + "Big")});
        if (three)
            args.push_back(scratchArg(std::string(operand) + "Small"));
        return args;
    };
    // The copy kernels pad each matrix of a batch on its own: blockIdx.y (rows) or blockIdx.z (transposed).
    const auto withBatch = [](std::vector<std::string> grid, const std::string &batch) {
        if (!batch.empty())
            grid.push_back(batch);
        return grid;
    };
    const auto splitRows = [&](const std::string &tensor, const std::string &rows, const std::string &cols,
                               const std::string &rowsPadded, const char *operand, const std::string &batch) {
        nlohmann::json args = nlohmann::json::array({inputArg(tensor)});
        for (auto &arg : parts(operand))
            args.push_back(arg);
        for (const auto &symbol : {rows, cols, rowsPadded, kPadded})
            args.push_back(intArg(symbol));
        return kernelStep("split_rows_kernel",
                          withBatch({"ceil_div(" + rowsPadded + " * " + kPadded + ", "
                                     + text(kWgmmaSplitBlock * kWgmmaSplitItems) + ")"},
                                    batch),
                          {text(kWgmmaSplitBlock)}, args);
    };
    // A [k, cols] operand (b as PyTorch gives it, or a transposed a) is transposed into [colsPadded, k] copies.
    const auto splitTransposed = [&](const std::string &tensor, const std::string &cols, const std::string &colsPadded,
                                     const char *operand, const std::string &batch) {
        nlohmann::json args = nlohmann::json::array({inputArg(tensor)});
        for (auto &arg : parts(operand))
            args.push_back(arg);
        for (const auto &symbol : {recipe.k, cols, colsPadded, kPadded})
            args.push_back(intArg(symbol));
        return kernelStep("split_transposed_kernel",
                          withBatch({"ceil_div(" + colsPadded + ", 32)", "ceil_div(" + kPadded + ", 32)"}, batch),
                          {"32", "8"}, args);
    };
    nlohmann::json steps = nlohmann::json::array();
    if (!config.directA)
        steps.push_back(recipe.transposeA ? splitTransposed(tensors.a->name, rows, mPadded, "a", aBatch)
                                          : splitRows(tensors.a->name, rows, recipe.k, mPadded, "a", aBatch));
    if (!config.directB)
        steps.push_back(recipe.transposeB ? splitRows(tensors.b->name, recipe.n, recipe.k, nPadded, "b", bBatch)
                                          : splitTransposed(tensors.b->name, recipe.n, nPadded, "b", bBatch));
    nlohmann::json args = nlohmann::json::array();
    if (tma) {
        // The maps name the copies ([rowsPadded, kPadded], batched [batch, rowsPadded, kPadded]) or, read in place,
        // the operands themselves.
        const auto map = [&](const std::string &copy, bool direct, const std::string &tensor,
                             const std::string &rowsPadded, const std::string &rowsExact, int boxRows,
                             const std::string &batch) {
            return direct ? operandMap(tensor, recipe.k, rowsExact, boxRows, batch)
                          : operandMap(copy, kPadded, rowsPadded, boxRows, batch);
        };
        args.push_back(map("aBig", config.directA, tensors.a->name, mPadded, rows, config.bm, aBatch));
        args.push_back(map("bBig", config.directB, tensors.b->name, nPadded, recipe.n, config.bn, bBatch));
        if (three) {
            args.push_back(operandMap("aSmall", kPadded, mPadded, config.bm, aBatch));
            args.push_back(operandMap("bSmall", kPadded, nPadded, config.bn, bBatch));
        }
    } else {
        for (const char *part : {"aBig", "bBig"})
            args.push_back(scratchArg(part));
        if (three)
            for (const char *part : {"aSmall", "bSmall"})
                args.push_back(scratchArg(part));
    }
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(outputArg(tensors.out->name));
    // The main kernel's k: the padded copies' (a multiple of 32), or the operands' own read in place (the copy
    // engine fills the last slice with zeros past it).
    for (const auto &symbol : {rows, recipe.n, anyCopy ? kPadded : recipe.k})
        args.push_back(intArg(symbol));
    std::vector<std::string> grid{"ceil_div(" + rows + ", " + text(config.bm) + ") * ceil_div(" + recipe.n + ", "
                                  + text(config.bn) + ")"};
    if (config.batched)
        grid.push_back(recipe.batch); // blockIdx.y: the matrix of the batch
    steps.push_back(kernelStep("gemm_wgmma_kernel", grid, {text(config.threads())}, args, text(config.sharedBytes())));
    return {out.str(), planJson(steps, scratch)};
}

} // namespace kx
