#include "core/codegen/clusternormtemplate.h"

#include "core/codegen/channelweights.h"
#include "core/codegen/codegenutil.h"
#include "core/codegen/rowcommon.h"

#include <climits>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Rows shorter than this fit one block well (the norm template's); the same bound as norm-split's.
constexpr long long kLongRow = 16384;
// The chunk of a row a block may stage: below the 227 KB of shared memory Hopper allows a block, with room for the
// alignment slack and the static part.
constexpr long long kMaxChunkBytes = 200 * 1024;
// Hopper's largest cluster; past the portable 8 blocks the launcher opts the kernel in.
constexpr int kLargestCluster = 16;

// Names the generated code declares, each between spaces; a tensor of the op may not take one.
constexpr const char *kReservedNames =
    " tile tileQuads warpSums clusterSlots rank row chunk rowStart first last base headEnd bodyEnd sum mean deviations"
    " variance squares meanSquare scale g g0 c v d j quad values results cols groups channelSize channelSize32"
    " firstChannel firstColumn lastColumn channelWeight channelBias value offset warp lane total remote address index"
    " blockSum clusterSum clusterRank clusterIndex clusterArrive clusterWait loadFromBlock min max"
    " CLUSTER THREADS WARPS ";

bool isReservedName(const std::string &name)
{
    return std::string(kReservedNames).find(" " + name + " ") != std::string::npos;
}

struct ClusterLayout
{
    int cluster = 8;
    int block = 1024;
    int vec = 4;
    bool layerNorm = true;
};

ClusterLayout layoutOf(const OpRecipe &recipe, const Params &params)
{
    return {param(params, "cluster", kLargestCluster), param(params, "block", 1024), param(params, "vec", 4),
            recipe.reduction == "layernorm"};
}

// A block's chunk of the row is a whole number of float4s.
long long chunkBytes(long long cols, int cluster)
{
    return 16 * ((cols + 4LL * cluster - 1) / (4LL * cluster));
}

// Where a pass reads its elements: the input in DRAM (staging each one in the tile) or the tile.
enum class Source { Input, Tile };

// One pass over the block's elements [first, last) of the row (indices g into the whole tensor). The body either
// accumulates (a statement over `v`) or writes (an expression over `v` and the row's column `c`, stored at g).
struct Pass
{
    Source source = Source::Tile;
    std::string accumulate;
    std::string result;
    bool usesColumn = false;
};

class PassWriter
{
public:
    PassWriter(const ClusterLayout &layout, std::string input, std::string output)
        : m_layout(layout)
        , m_input(std::move(input))
        , m_output(std::move(output))
    {}

    std::string write(const Pass &pass, const std::string &indent = "    ") const
    {
        if (m_layout.vec == 1)
            return scalarLoop(pass, "first", "last", true, indent);
        // Scalar up to the first float4 boundary, float4s, then the scalar tail: odd rows keep their float4s.
        return scalarLoop(pass, "first", "headEnd", false, indent) + quadLoop(pass, indent)
               + scalarLoop(pass, "bodyEnd", "last", false, indent);
    }

private:
    std::string scalarLoop(const Pass &pass, const std::string &from, const std::string &to, bool unrolled,
                           const std::string &indent) const
    {
        std::ostringstream out;
        if (unrolled)
            out << "#pragma unroll 4\n";
        out << indent << "for (long long g = " << from << " + threadIdx.x; g < " << to << "; g += THREADS) {\n"
            << indent << "    const float v = "
            << (pass.source == Source::Input ? m_input + "[g]" : std::string("tile[g - base]")) << ";\n";
        if (pass.source == Source::Input)
            out << indent << "    tile[g - base] = v;\n";
        out << element(pass, m_output + "[g] = ", indent + "    ") << indent << "}\n";
        return out.str();
    }

    std::string quadLoop(const Pass &pass, const std::string &indent) const
    {
        const std::string inner = indent + "    ";
        std::ostringstream out;
        out << "#pragma unroll 4\n"
            << indent << "for (long long g0 = headEnd + 4 * threadIdx.x; g0 < bodyEnd; g0 += 4 * THREADS) {\n"
            << inner << "const float4 quad = *reinterpret_cast<const float4 *>("
            << (pass.source == Source::Input ? m_input + " + g0" : std::string("tile + (g0 - base)")) << ");\n";
        if (pass.source == Source::Input)
            out << inner << "*reinterpret_cast<float4 *>(tile + (g0 - base)) = quad;\n";
        out << inner << "const float values[4] = {quad.x, quad.y, quad.z, quad.w};\n";
        if (!pass.result.empty())
            out << inner << "float results[4];\n";
        out << "#pragma unroll\n"
            << inner << "for (int j = 0; j < 4; ++j) {\n"
            << inner << "    const float v = values[j];\n";
        if (pass.usesColumn)
            out << inner << "    const long long g = g0 + j;\n";
        out << element(pass, "results[j] = ", inner + "    ") << inner << "}\n";
        if (!pass.result.empty())
            out << inner << "*reinterpret_cast<float4 *>(" << m_output
                << " + g0) = make_float4(results[0], results[1], results[2], results[3]);\n";
        out << indent << "}\n";
        return out.str();
    }

    static std::string element(const Pass &pass, const std::string &store, const std::string &indent)
    {
        std::string text;
        if (pass.usesColumn)
            text += indent + "const long long c = g - rowStart;\n";
        if (!pass.accumulate.empty())
            text += indent + pass.accumulate + "\n";
        if (!pass.result.empty())
            text += indent + store + pass.result + ";\n";
        return text;
    }

    ClusterLayout m_layout;
    std::string m_input;
    std::string m_output;
};

// Cluster rank, cluster index, the cluster barrier and reads of another block's shared memory (mapa and
// ld.shared::cluster), and the block and cluster sums.
std::string clusterHelpers()
{
    return R"(__device__ __forceinline__ unsigned clusterRank()
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

__device__ __forceinline__ unsigned clusterIndex()
{
    unsigned index;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(index));
    return index;
}

// The two halves of the cluster barrier: writes to shared memory before arrive are seen by every block after wait.
__device__ __forceinline__ void clusterArrive()
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

__device__ __forceinline__ void clusterWait()
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The value at the same shared address in the shared memory of the cluster's block `rank`.
__device__ __forceinline__ float loadFromBlock(const float *local, unsigned rank)
{
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(local));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    float value;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(remote) : "memory");
    return value;
}

// Every thread gets the block's sum; the warps' sums pass through warpSums (reused only after a barrier).
__device__ __forceinline__ float blockSum(float value, float *warpSums)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        warpSums[warp] = value;
    __syncthreads();
    value = lane < WARPS ? warpSums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    return value;
}

// The cluster's sum of each block's value: every block adds the blocks' slots in rank order, so all agree.
__device__ __forceinline__ float clusterSum(float value, float *slot)
{
    if (threadIdx.x == 0)
        *slot = value;
    clusterArrive();
    clusterWait();
    float total = 0.0f;
#pragma unroll
    for (unsigned rank = 0; rank < CLUSTER; ++rank)
        total += loadFromBlock(slot, rank);
    return total;
}
)";
}

std::string kernelSignature(const Op &op, const OpRecipe &recipe, bool affine, const std::string &bias)
{
    std::ostringstream out;
    out << "extern \"C\" __global__ void __launch_bounds__(THREADS, 1) norm_cluster_kernel(const float *__restrict__ "
        << op.inputs[0].name << ", ";
    if (affine)
        out << "const float *__restrict__ " << op.inputs[1].name << ", ";
    if (!bias.empty())
        out << "const float *__restrict__ " << bias << ", ";
    out << "float *__restrict__ " << op.outputs.front().name << ", long long cols"
        << channelweights::kernelParameters(recipe) << ")\n";
    return out.str();
}

// The block's range of the row: chunks of whole float4s, the tile aligned like DRAM.
std::string rangePrologue(const ClusterLayout &layout, const OpRecipe &recipe)
{
    std::ostringstream out;
    out << "    extern __shared__ float4 tileQuads[]; // 16-byte aligned for float4 staging\n"
        << "    float *tile = reinterpret_cast<float *>(tileQuads);\n"
        << "    __shared__ float warpSums[WARPS];\n"
        << "    __shared__ float clusterSlots[2];\n"
        << "    const unsigned rank = clusterRank();\n"
        << "    const long long row = clusterIndex();\n"
        << "    const long long chunk = (cols + 4 * CLUSTER - 1) / (4 * CLUSTER) * 4;\n"
        << "    const long long rowStart = row * cols;\n"
        << "    const long long first = rowStart + min((long long)rank * chunk, cols);\n"
        << "    const long long last = rowStart + min((long long)(rank + 1) * chunk, cols);\n"
        << "    const long long base = first & ~3LL; // tile[g - base] holds element g, float4s aligned as in DRAM\n";
    if (layout.vec == 4)
        out << "    const long long headEnd = min((first + 3) & ~3LL, last);\n"
            << "    const long long bodyEnd = max(headEnd, last & ~3LL);\n";
    out << channelweights::rowSetup(recipe);
    return out.str();
}

// The normalising pass(es) of LayerNorm from the tile, with the weights as the recipe indexes them.
std::string layerNormOutput(const PassWriter &writer, const OpRecipe &recipe, bool affine, const std::string &weight,
                            const std::string &bias)
{
    if (!affine)
        return writer.write({Source::Tile, {}, "(v - mean) * scale", false});
    const std::string at = channelweights::weightIndex(recipe);
    const Pass perColumn{Source::Tile, {}, "(v - mean) * scale * " + weight + at + " + " + bias + at, true};
    if (!hasChannelWeights(recipe))
        return writer.write(perColumn);
    // Channels are mostly far longer than a chunk: a chunk inside one reads its weight and bias once.
    std::ostringstream out;
    out << "    const unsigned firstColumn = (unsigned)(first - rowStart), lastColumn = (unsigned)(last - rowStart);\n"
        << "    if (first < last && firstColumn / channelSize32 == (lastColumn - 1) / channelSize32) {\n"
        << "        const float channelWeight = " << weight << "[firstChannel + firstColumn / channelSize32];\n"
        << "        const float channelBias = " << bias << "[firstChannel + firstColumn / channelSize32];\n"
        << writer.write({Source::Tile, {}, "(v - mean) * scale * channelWeight + channelBias", false}, "        ")
        << "    } else {\n"
        << writer.write(perColumn, "        ") << "    }\n";
    return out.str();
}

} // namespace

bool ClusterNormTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    if (recipe.family != "norm" || recipe.inner != "1" || op.shapeSets.empty())
        return false;
    for (const auto &set : op.shapeSets) {
        const auto cols = dimensionValue(recipe.cols, set);
        if (!cols || *cols < kLongRow || chunkBytes(*cols, kLargestCluster) > kMaxChunkBytes)
            return false;
    }
    return true;
}

std::vector<ParamDef> ClusterNormTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"cluster", {2, 4, 8, 16}, "blocks a row (a cluster; 16 is not portable)"},
            {"block", {256, 512, 768, 1024}, "block size"},
            {"vec", {1, 4}, "vector width"}};
}

Params ClusterNormTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    // The smallest cluster that holds the row: the most rows at once on the GPU.
    for (const int cluster : {2, 4, 8, 16}) {
        const Params params{{"cluster", cluster}, {"block", 1024}, {"vec", 4}};
        if (check(op, recipe, params).empty())
            return params;
    }
    return {{"cluster", kLargestCluster}, {"block", 1024}, {"vec", 4}};
}

std::string ClusterNormTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (recipe.family != "norm" || recipe.inner != "1")
        return "the cluster norm template needs a norm recipe over the last dimensions";
    if (auto problem = rows::checkNormTensors(op, recipe); !problem.empty())
        return problem;
    if (op.outputs.size() != 1)
        return "the cluster norm template writes one output";
    if (const auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (const auto problem = channelweights::check(op, recipe); !problem.empty())
        return problem;
    std::vector<std::string> tensors;
    for (const auto &spec : op.inputs)
        tensors.push_back(spec.name);
    tensors.push_back(op.outputs.front().name);
    for (const auto &tensorName : tensors) {
        if (!isIdentifier(tensorName))
            return "tensor name '" + tensorName + "' is not a C identifier";
        if (isReservedName(tensorName))
            return "tensor name '" + tensorName + "' is a name of the generated code";
    }
    const auto layout = layoutOf(recipe, params);
    for (const auto &set : op.shapeSets) {
        const auto cols = dimensionValue(recipe.cols, set);
        const auto rows = dimensionValue(recipe.rows, set);
        if (!cols || !rows)
            return "the shape set does not bind " + recipe.rows + " and " + recipe.cols;
        if (*cols < 1)
            return "rows of " + std::to_string(*cols) + " elements";
        const long long bytes = chunkBytes(*cols, layout.cluster);
        if (bytes > kMaxChunkBytes)
            return "a row of " + std::to_string(*cols) + " elements in a cluster of " + text(layout.cluster)
                   + " blocks needs chunks of " + std::to_string(bytes) + " bytes of shared memory a block, more than "
                   + std::to_string(kMaxChunkBytes);
        if (*rows > INT_MAX / layout.cluster)
            return std::to_string(*rows) + " rows of " + text(layout.cluster) + " blocks exceed the grid";
    }
    return {};
}

GeneratedKernel ClusterNormTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const auto layout = layoutOf(recipe, params);
    const auto [input, weight, bias, output, affine] = rows::normTensors(op, layout.layerNorm);
    const PassWriter writer(layout, input, output);

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output
        << "[row, :] = " << recipe.reduction << "(" << input << "[row, :]) with eps " << recipe.eps
        << ", a row in the shared memory of one thread-block cluster.\n"
        << channelweights::comment(recipe)
        << "// Each of the cluster's CLUSTER blocks stages its chunk of the row in shared memory as it reads it ("
           "the row is\n// read from DRAM once); the blocks exchange their partial sums through distributed shared "
           "memory and\n// add them in rank order, "
        << (layout.layerNorm ? "then the centred second moment from shared memory the same way (two passes: "
                               "accurate\n// variances), "
                             : "")
        << "and each block normalises its chunk from shared memory.\n\n"
        << "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n"
        << "#error \"thread-block clusters need sm_90 (Hopper)\"\n"
        << "#endif\n\n"
        << "#define CLUSTER " << layout.cluster << "\n"
        << "#define THREADS " << layout.block << "\n"
        << "#define WARPS " << layout.block / 32 << "\n\n"
        << clusterHelpers() << "\n"
        << kernelSignature(op, recipe, affine, bias) << "{\n"
        << rangePrologue(layout, recipe);
    if (layout.layerNorm) {
        out << "    float sum = 0.0f;\n"
            << writer.write({Source::Input, "sum += v;", {}, false})
            << "    const float mean = clusterSum(blockSum(sum, warpSums), &clusterSlots[0]) / (float)cols;\n"
            << "    float deviations = 0.0f;\n"
            << writer.write({Source::Tile, "const float d = v - mean; deviations += d * d;", {}, false})
            << "    const float variance = clusterSum(blockSum(deviations, warpSums), &clusterSlots[1]) / "
               "(float)cols;\n"
            << "    clusterArrive(); // no more reads of other blocks' shared memory\n"
            << "    const float scale = rsqrtf(variance + " << epsLiteral(recipe.eps) << ");\n"
            << layerNormOutput(writer, recipe, affine, weight, bias);
    } else {
        out << "    float squares = 0.0f;\n"
            << writer.write({Source::Input, "squares += v * v;", {}, false})
            << "    const float meanSquare = clusterSum(blockSum(squares, warpSums), &clusterSlots[0]) / (float)cols;\n"
            << "    clusterArrive(); // no more reads of other blocks' shared memory\n"
            << "    const float scale = rsqrtf(meanSquare + " << epsLiteral(recipe.eps) << ");\n"
            << writer.write({Source::Tile, {}, "v * scale * " + weight + "[c]", true});
    }
    out << "    clusterWait(); // a block leaves only when no other block reads its shared memory\n"
        << "}\n";

    nlohmann::json args = nlohmann::json::array({inputArg(input)});
    if (affine)
        args.push_back(inputArg(weight));
    if (!bias.empty())
        args.push_back(inputArg(bias));
    args.push_back(outputArg(output));
    args.push_back(intArg(recipe.cols));
    channelweights::appendArgs(recipe, args);
    const std::string cluster = text(layout.cluster);
    // The tile: the chunk (chunkBytes) from the float4 boundary before it, a float4 more.
    auto step = kernelStep("norm_cluster_kernel", {recipe.rows + " * " + cluster}, {text(layout.block)}, args,
                           "16 * ceil_div(" + recipe.cols + ", " + text(4 * layout.cluster) + ") + 16");
    step["cluster"] = nlohmann::json::array({cluster});
    return {out.str(), planJson(nlohmann::json::array({step}))};
}

} // namespace kx
