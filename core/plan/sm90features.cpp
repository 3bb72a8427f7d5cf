#include "core/plan/sm90features.h"

#include "core/plan/planerrors.h"

#include <map>

namespace kx::sm90 {
namespace {

using namespace planerrors;

constexpr std::int64_t kMaxRank = 5;
constexpr std::int64_t kMaxDim = std::int64_t(1) << 32;
constexpr std::int64_t kMaxBox = 256;
constexpr std::int64_t kMaxStride = std::int64_t(1) << 40;
constexpr std::int64_t kAlignment = 16; // Bytes: the copy engine moves whole 16-byte units.

std::int64_t elementBytes(const std::string &dtype, const std::string &where)
{
    static const std::map<std::string, std::int64_t> sizes{
        {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"float64", 8}, {"int32", 4},
        {"int64", 8},   {"int8", 1},    {"uint8", 1},    {"bool", 1},
    };
    const auto size = sizes.find(dtype);
    if (size == sizes.end())
        fail(where, "a tensor map cannot describe a tensor of dtype " + quote(dtype));
    return size->second;
}

std::vector<std::int64_t> resolveDims(const PlanArg &arg, const MappedTensor &tensor, const Evaluate &evaluate,
                                      const std::string &where)
{
    std::vector<std::int64_t> dims;
    if (arg.dims.empty()) {
        if (tensor.kind == PlanArg::Kind::Scratch)
            fail(where, "the tensor map of scratch buffer " + quote(arg.name)
                            + " needs \"dims\" (a scratch buffer is a flat float32 vector)");
        dims.assign(tensor.shape.rbegin(), tensor.shape.rend()); // innermost first
    } else {
        for (std::size_t i = 0; i < arg.dims.size(); ++i)
            dims.push_back(evaluate(arg.dims[i], index(where + ".dims", i)));
    }
    if (dims.empty() || std::int64_t(dims.size()) > kMaxRank)
        fail(where + ".dims",
             "a tensor map has 1 to 5 dimensions, " + quote(arg.name) + " is seen with " + std::to_string(dims.size()));
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] <= 0)
            fail(index(where + ".dims", i), "must be positive, got " + std::to_string(dims[i]));
        if (dims[i] > kMaxDim)
            fail(index(where + ".dims", i), std::to_string(dims[i])
                                                + " exceeds 2^32, the largest dimension of a "
                                                  "tensor map");
    }
    return dims;
}

// A product of sizes that stops growing at 2^100: far beyond any tensor, and never overflows.
__int128 productOf(const std::vector<std::int64_t> &sizes)
{
    const __int128 cap = __int128(1) << 100;
    __int128 product = 1;
    for (const std::int64_t size : sizes)
        product = product > cap / (size > 0 ? size : 1) ? cap : product * size;
    return product;
}

// dims hold the tensor's element count, or fit the scratch buffer.
void checkElementCount(const PlanArg &arg, const MappedTensor &tensor, const std::vector<std::int64_t> &dims,
                       std::int64_t elementBytes, const std::string &where)
{
    const __int128 elements = productOf(dims);
    const auto text = [](__int128 value) {
        return value > __int128(INT64_MAX) ? std::string("more than 2^63") : std::to_string(std::int64_t(value));
    };
    if (tensor.kind == PlanArg::Kind::Scratch) {
        if (elements * elementBytes > tensor.scratchBytes)
            fail(where + ".dims", "the map spans " + text(elements * elementBytes) + " bytes, scratch buffer "
                                      + quote(arg.name) + " has " + std::to_string(tensor.scratchBytes));
        return;
    }
    const __int128 declared = productOf(tensor.shape);
    if (elements != declared)
        fail(where + ".dims", text(elements) + " elements, but " + quote(arg.name) + " holds " + text(declared));
}

std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t> &dims, std::int64_t elementBytes,
                                    const std::string &where)
{
    std::vector<std::int64_t> strides;
    __int128 stride = elementBytes;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        const auto previous = std::int64_t(stride);
        stride *= dims[i]; // below 2^40 times at most 2^32
        const std::string dimension = "dimension " + std::to_string(i + 1);
        if (stride >= kMaxStride)
            fail(where + ".dims", "the stride of " + dimension + " exceeds 2^40 bytes, the largest of a tensor map");
        if (stride % kAlignment != 0)
            fail(where + ".dims", "the stride of " + dimension + " is " + std::to_string(std::int64_t(stride))
                                      + " bytes (" + std::to_string(dims[i]) + " x " + std::to_string(previous)
                                      + " bytes); a tensor map's strides must be multiples of 16 bytes");
        strides.push_back(std::int64_t(stride));
    }
    return strides;
}

void checkBox(const PlanArg &arg, ResolvedTensorMap &map, const Evaluate &evaluate, const std::string &where)
{
    if (arg.box.size() != map.dims.size())
        fail(where + ".box", "has " + std::to_string(arg.box.size()) + " entries, the tensor map has "
                                 + std::to_string(map.dims.size()) + " dimensions");
    for (std::size_t i = 0; i < arg.box.size(); ++i) {
        const std::string at = index(where + ".box", i);
        map.box.push_back(evaluate(arg.box[i], at));
        if (map.box.back() < 1 || map.box.back() > kMaxBox)
            fail(at, std::to_string(map.box.back()) + " is outside 1..256, the box sizes of a tensor map");
    }
    const std::int64_t innerBytes = map.box[0] * map.elementBytes;
    const std::string inner = std::to_string(map.box[0]) + " " + map.dtype + " elements";
    if (innerBytes % kAlignment != 0)
        fail(index(where + ".box", 0), "the box's inner extent is " + std::to_string(innerBytes) + " bytes (" + inner
                                           + "); it must be a multiple of 16 bytes");
    if (map.swizzleBytes > 0 && innerBytes > map.swizzleBytes)
        fail(index(where + ".box", 0), "the box's inner extent is " + std::to_string(innerBytes) + " bytes (" + inner
                                           + "); with swizzle " + arg.swizzle + " it may span at most "
                                           + std::to_string(map.swizzleBytes));
}

int swizzleBytes(const std::string &swizzle, const std::string &where)
{
    if (swizzle == "none")
        return 0;
    if (swizzle == "32B" || swizzle == "64B" || swizzle == "128B")
        return std::stoi(swizzle);
    fail(where + ".swizzle", "must be \"none\", \"32B\", \"64B\" or \"128B\"");
}

std::string capabilityText(int capability)
{
    return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

} // namespace

void requireSm90(const DeviceLimits &limits, const std::string &what, const std::string &where)
{
    if (limits.computeCapability != 0 && limits.computeCapability < 90)
        fail(where,
             what + " need sm_90 or later; the GPU has compute capability " + capabilityText(limits.computeCapability));
}

ResolvedTensorMap resolveTensorMap(const PlanArg &arg, const MappedTensor &tensor, const Evaluate &evaluate,
                                   const std::string &where)
{
    ResolvedTensorMap map;
    map.tensorKind = tensor.kind;
    map.dtype = tensor.dtype;
    map.elementBytes = elementBytes(tensor.dtype, where);
    map.swizzleBytes = swizzleBytes(arg.swizzle, where);
    map.dims = resolveDims(arg, tensor, evaluate, where);
    map.strides = stridesOf(map.dims, map.elementBytes, where);
    checkElementCount(arg, tensor, map.dims, map.elementBytes, where);
    checkBox(arg, map, evaluate, where);
    return map;
}

std::array<std::int64_t, 3> resolveCluster(const std::vector<std::string> &cluster,
                                           const std::array<std::int64_t, 3> &grid, const DeviceLimits &limits,
                                           const Evaluate &evaluate, const std::string &where)
{
    requireSm90(limits, "clusters", where);
    if (cluster.empty() || cluster.size() > 3)
        fail(where, "must have 1 to 3 entries");
    std::array<std::int64_t, 3> blocks{1, 1, 1};
    for (std::size_t d = 0; d < cluster.size(); ++d) {
        const std::string at = index(where, d);
        blocks[d] = evaluate(cluster[d], at);
        if (blocks[d] <= 0)
            fail(at, "must be positive, got " + std::to_string(blocks[d]));
        if (blocks[d] > limits.maxClusterBlocks)
            fail(at, std::to_string(blocks[d]) + " blocks exceed the cluster size of "
                         + std::to_string(limits.maxClusterBlocks));
    }
    const std::int64_t total = blocks[0] * blocks[1] * blocks[2];
    if (total > limits.maxClusterBlocks)
        fail(where, "a cluster of " + std::to_string(total) + " blocks exceeds the largest cluster size of "
                        + std::to_string(limits.maxClusterBlocks));
    for (std::size_t d = 0; d < 3; ++d)
        if (grid[d] % blocks[d] != 0)
            fail(index(where, d), "the grid's " + std::to_string(grid[d]) + " blocks in dimension " + std::to_string(d)
                                      + " are not a multiple of the cluster's " + std::to_string(blocks[d]));
    return blocks;
}

} // namespace kx::sm90
