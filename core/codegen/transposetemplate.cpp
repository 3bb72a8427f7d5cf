#include "core/codegen/transposetemplate.h"

#include "core/codegen/codegenutil.h"

#include <sstream>

namespace kx {

using namespace codegen;

namespace {

constexpr long long kMaxGridY = 65535;
constexpr long long kMaxInt = 2147483647;

struct TransposeConfig
{
    int tile = 32;
    int rows = 8;
    int pad = 1;
    bool shared = true;
};

TransposeConfig configOf(const Params &params)
{
    return {param(params, "tile", 32), param(params, "rows", 8), param(params, "pad", 1),
            param(params, "staging", 1) == 1};
}

} // namespace

bool TransposeTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "transpose";
}

std::vector<ParamDef> TransposeTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"tile", {16, 32, 64}, "tile size"},
            {"rows", {4, 8, 16, 32}, "tile rows per thread-block pass"},
            {"pad", {0, 1}, "shared tile padding in floats per row"},
            {"staging", {0, 1}, "staging (0: direct, 1: shared-memory tile)"}};
}

Params TransposeTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"tile", 32}, {"rows", 8}, {"pad", 1}, {"staging", 1}};
}

std::string TransposeTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the transpose template needs a transpose recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;

    if (op.inputs.size() != 1 || op.outputs.size() != 1)
        return "the transpose template needs one input and one output";
    const auto &input = op.inputs.front();
    const auto &output = op.outputs.front();
    const std::vector<std::string> inShape{recipe.rows, recipe.cols};
    const std::vector<std::string> outShape{recipe.cols, recipe.rows};
    if (input.shape != inShape || output.shape != outShape)
        return "the transpose template needs input [" + recipe.rows + ", " + recipe.cols + "] and output ["
               + recipe.cols + ", " + recipe.rows + "]";
    if (input.dtype != "float32" || output.dtype != "float32")
        return "the transpose template handles float32";

    const TransposeConfig config = configOf(params);
    if (config.rows > config.tile)
        return std::to_string(config.rows) + " rows per pass exceed the tile of " + std::to_string(config.tile);
    if (config.tile % config.rows != 0)
        return std::to_string(config.rows) + " rows per pass do not divide the tile of " + std::to_string(config.tile);
    const int threads = config.tile * config.rows;
    if (threads > 1024)
        return std::to_string(config.tile) + " x " + std::to_string(config.rows) + " = " + std::to_string(threads)
               + " threads per block exceed 1024";
    if (threads < 32)
        return std::to_string(threads) + " threads per block are less than a warp";
    // The largest shared tile (64 x 65 floats) stays well under the 48 KiB of static shared memory.

    for (std::size_t s = 0; s < op.shapeSets.size(); ++s) {
        const std::string where = "shape set " + std::to_string(s + 1);
        const auto rows = dimensionValue(recipe.rows, op.shapeSets[s]);
        const auto cols = dimensionValue(recipe.cols, op.shapeSets[s]);
        if (!rows || !cols)
            return where + " does not bind " + recipe.rows + " and " + recipe.cols;
        if (*rows <= 0 || *cols <= 0 || *rows > kMaxInt || *cols > kMaxInt)
            return where + ": " + recipe.rows + " and " + recipe.cols + " must be positive 32-bit sizes";
        if ((*rows + config.tile - 1) / config.tile > kMaxGridY)
            return where + ": " + recipe.rows + " = " + std::to_string(*rows) + " needs more than 65535 tiles of "
                   + std::to_string(config.tile) + " rows";
    }
    return {};
}

GeneratedKernel TransposeTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const TransposeConfig config = configOf(params);
    const auto &input = op.inputs.front();
    const auto &output = op.outputs.front();

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    if (!config.shared && config.pad)
        out << "//   (padding has no effect without a shared tile)\n";
    out << "// " << output.name << "[c, r] = " << input.name << "[r, c] for " << input.name << " [" << recipe.rows
        << ", " << recipe.cols << "]\n"
        << "// Each block moves a TILE x TILE tile with TILE x ROWS threads, ROWS tile rows per pass.\n\n"
        << "constexpr int TILE = " << config.tile << ", ROWS = " << config.rows << ";\n";
    if (config.shared)
        out << "constexpr int PAD = " << config.pad << ";\n";
    out << "\nextern \"C\" __global__ void __launch_bounds__(TILE * ROWS)\n"
           "transpose_kernel(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)\n"
           "{\n"
           "    const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;\n";
    if (config.shared) {
        if (config.pad)
            out << "    // One float of padding per row: reading a column of the tile then touches 32 different banks\n"
                   "    // instead of one bank 32 times.\n";
        out << "    __shared__ float tile[TILE][TILE + PAD];\n"
               "    // Read the tile along its rows (coalesced).\n"
               "    for (int y = threadIdx.y; y < TILE; y += ROWS) {\n"
               "        const int r = r0 + y, c = c0 + threadIdx.x;\n"
               "        if (r < rows && c < cols)\n"
               "            tile[y][threadIdx.x] = in[(size_t)r * cols + c];\n"
               "    }\n"
               "    __syncthreads();\n"
               "    // Write it transposed: consecutive threads write consecutive r of one output row (coalesced).\n"
               "    for (int y = threadIdx.y; y < TILE; y += ROWS) {\n"
               "        const int c = c0 + y, r = r0 + threadIdx.x;\n"
               "        if (c < cols && r < rows)\n"
               "            out[(size_t)c * rows + r] = tile[threadIdx.x][y];\n"
               "    }\n";
    } else {
        out << "    // Direct: reads are coalesced along c, writes are strided by `rows`.\n"
               "    for (int y = threadIdx.y; y < TILE; y += ROWS) {\n"
               "        const int r = r0 + y, c = c0 + threadIdx.x;\n"
               "        if (r < rows && c < cols)\n"
               "            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];\n"
               "    }\n";
    }
    out << "}\n";

    const auto args =
        nlohmann::json::array({inputArg(input.name), outputArg(output.name), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps = nlohmann::json::array({kernelStep("transpose_kernel",
                                                         {"ceil_div(" + recipe.cols + ", " + text(config.tile) + ")",
                                                          "ceil_div(" + recipe.rows + ", " + text(config.tile) + ")"},
                                                         {text(config.tile), text(config.rows)}, args)});
    return {out.str(), planJson(steps)};
}

} // namespace kx
