#pragma once

#include "core/domain/op.h"
#include "core/util/expected.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kx {

/**
 * A candidate's launch plan: which kernels run in which order, with what configuration and arguments.
 * Written as JSON, for example:
 * @code{.json}
 * {
 *   "scratch": [ {"name": "partial", "bytes": "4 * ceil_div(N, 256)"} ],
 *   "steps": [
 *     {"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"], "shared": "0",
 *      "args": [ {"input": "x"}, {"output": "out"}, {"int": "N"}, {"float": 0.5}, {"scratch": "partial"} ]},
 *     {"library": "aten::conv2d", "args": [ {"input": "x"}, {"input": "w"}, {"output": "y"} ]}
 *   ]
 * }
 * @endcode
 * grid/block have 1 to 3 entries. Expressions are integer arithmetic over the op's shape symbols with
 * + - * / % (integer division), parentheses, min(a,b), max(a,b) and ceil_div(a,b).
 *
 * Library steps take ATen's other argument types too: {"ints": ["2", "K"]} (an int list), {"bool": true},
 * {"none": null} and {"string": "tanh"}; a tensor argument of a library step may give the shape the call sees,
 * {"scratch": "t1", "shape": ["B", "C", "H", "W"]} (a scratch buffer is otherwise a flat float32 vector; an
 * input or output keeps its element count). A shape [] is a scalar. An input (or a scratch buffer the step reads)
 * may be passed as the transpose of its last two dimensions, {"input": "a", "transposed": true}: a strided view of
 * the same memory, no copy (aten::mm(a.T, b) for an a given as [k, m]). A library step with "cudnnBenchmark": true
 * lets cuDNN time its algorithms for the call's shapes and keep the fastest, for that step only. A convolution step
 * (aten::conv1d/2d/3d, conv_transpose1d/2d/3d, _convolution, convolution) with "channelsLast": true passes its
 * tensors of rank 4 or 5 (input and weight) as channels-last copies (NHWC, NDHWC), where cuDNN runs its tensor-core
 * kernels; the result is written to the step's destination in its usual layout. Other library steps may not ask for it.
 *
 * Kernel steps for the Hopper copy engine (TMA) and thread-block clusters (sm_90 and later):
 * @code{.json}
 * {"kernel": "tile_copy", "grid": ["ceil_div(C, 32)", "ceil_div(R, 16)"], "block": ["128"], "cluster": ["1", "2"],
 *  "args": [ {"tensorMap": "x", "box": ["32", "16"], "swizzle": "none"}, {"tensorMap": "out", "box": ["32", "16"]} ]}
 * @endcode
 * A tensorMap argument is a CUtensorMap the harness encodes (cuTensorMapEncodeTiled) over the named input, output or
 * scratch buffer, for a `const __grid_constant__ CUtensorMap` parameter. Its "dims" and "box" list the dimensions
 * innermost first, as cuTensorMapEncodeTiled and the coordinates of cp.async.bulk.tensor do: the reverse of the
 * op's shapes ([R, C] is "dims": ["C", "R"]). "dims" may be left out for an input or output (its own shape, reversed);
 * given, they hold its element count (a scratch buffer's: float32 elements that fit in its bytes). The tensor is
 * contiguous in those dims (strides follow from them); out-of-bounds parts of a box read as zeros and are not
 * written. "swizzle" is none (the default), 32B, 64B or 128B. "cluster" (1 to 3 expressions) launches the grid in
 * clusters of that many blocks per dimension (at most 16 blocks, over 8 not portable; the grid a multiple of it).
 */
struct PlanArg
{
    enum class Kind { Input, Output, Scratch, Int, Float, Ints, Bool, None, String, TensorMap };
    Kind kind = Kind::Int;
    std::string name;                 ///< Input/Output/Scratch/TensorMap: the tensor or buffer name.
    std::string expr;                 ///< Int: an expression.
    double value = 0;                 ///< Float: the value.
    std::vector<std::string> exprs{}; ///< Ints: the expressions; a tensor with hasShape: the shape a library step sees.
    bool hasShape = false;            ///< Input/Output/Scratch of a library step: exprs gives its shape.
    bool flag = false;                ///< Bool: the value.
    std::string text{};               ///< String: the value.
    bool transposed = false;          ///< Input/Scratch of a library step: the call sees its last two dims swapped.
    std::vector<std::string> box{};   ///< TensorMap: the box one copy moves, innermost dimension first.
    std::vector<std::string> dims{};  ///< TensorMap: the dims the map sees, innermost first; empty: the tensor's.
    std::string swizzle = "none";     ///< TensorMap: none, 32B, 64B or 128B.

    bool operator==(const PlanArg &) const = default;
};

struct ScratchBuffer
{
    std::string name;
    std::string bytesExpr;

    bool operator==(const ScratchBuffer &) const = default;
};

struct KernelStep
{
    std::string kernel;                ///< A __global__ function of the candidate (extern "C" name).
    std::vector<std::string> grid;     ///< 1..3 expressions.
    std::vector<std::string> block;    ///< 1..3 expressions.
    std::string sharedBytesExpr = "0"; ///< Dynamic shared memory.
    std::vector<PlanArg> args;
    std::vector<std::string> cluster{}; ///< 1..3 expressions: blocks per cluster; empty: no cluster launch.

    bool operator==(const KernelStep &) const = default;
};

struct LibraryStep
{
    std::string op; ///< ATen op, e.g. "aten::conv2d".
    std::vector<PlanArg> args;
    /// "cudnnBenchmark": true: cuDNN times its algorithms for the step's shapes on the first call and keeps the
    /// fastest (torch.backends.cudnn.benchmark, for this step only; eager PyTorch runs without it).
    bool cudnnBenchmark = false;
    /// "channelsLast": true (convolutions only): input and weight are passed as channels-last copies, the memory
    /// format whose implicit-GEMM tensor-core kernels cuDNN picks (as Inductor's layout does; eager runs NCHW).
    bool channelsLast = false;

    bool operator==(const LibraryStep &) const = default;
};

struct LaunchPlan
{
    std::vector<ScratchBuffer> scratch;
    std::vector<std::variant<KernelStep, LibraryStep>> steps;

    bool operator==(const LaunchPlan &) const = default;
};

/// A kernel parameter as declared in the source, for argument type checks.
struct KernelParam
{
    enum class Kind { Pointer, ConstPointer, Int, Float, TensorMap, Other }; ///< TensorMap: a CUtensorMap by value.
    Kind kind = Kind::Other;
    std::string type; ///< As written, e.g. "const float* __restrict__".
    std::string name;
};

struct KernelSignature
{
    std::string name;
    std::vector<KernelParam> params;
};

/// Device limits that plan validation checks against (defaults: common to sm_80 and sm_90).
struct DeviceLimits
{
    std::int64_t maxThreadsPerBlock = 1024;
    std::array<std::int64_t, 3> maxBlockDim{1024, 1024, 64};
    std::array<std::int64_t, 3> maxGridDim{2147483647, 65535, 65535};
    std::int64_t maxDynamicSharedBytes = 227 * 1024;
    std::int64_t maxScratchBytes = std::int64_t(16) << 30;
    /// major * 10 + minor, e.g. 90; 0 where the device is not known yet (the host's check before a worker runs
    /// the plan): then what needs sm_90 (clusters, tensor maps) is left to the worker's check.
    int computeCapability = 0;
    /// Hopper's largest cluster: 8 blocks are portable, 16 need the kernel's opt-in, which the launcher gives.
    std::int64_t maxClusterBlocks = 16;
};

/// A tensorMap argument resolved: what cuTensorMapEncodeTiled needs besides the tensor's address.
struct ResolvedTensorMap
{
    PlanArg::Kind tensorKind = PlanArg::Kind::Input; ///< Where the named tensor lives: Input, Output or Scratch.
    std::string dtype = "float32";
    std::int64_t elementBytes = 4;
    std::vector<std::int64_t> dims;    ///< Innermost first.
    std::vector<std::int64_t> strides; ///< Bytes from one index of dims[i + 1] to the next (rank - 1 entries).
    std::vector<std::int64_t> box;     ///< Innermost first.
    int swizzleBytes = 0;              ///< 0 (none), 32, 64 or 128.
};

/// A kernel step with every expression evaluated for one shape set.
struct ResolvedArg
{
    PlanArg::Kind kind = PlanArg::Kind::Int;
    std::string name; ///< Input/Output/Scratch name.
    std::int64_t intValue = 0;
    double floatValue = 0;
    std::vector<std::int64_t> ints; ///< Ints: the values; a tensor with hasShape: its shape.
    bool hasShape = false;
    bool flag = false;
    std::string text;
    bool transposed = false; ///< A library step sees the transpose of its last two dimensions.
    ResolvedTensorMap tensorMap{};
};

struct ResolvedKernelStep
{
    std::string kernel;
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::array<std::int64_t, 3> block{1, 1, 1};
    std::int64_t sharedBytes = 0;
    std::vector<ResolvedArg> args;
    std::array<std::int64_t, 3> cluster{1, 1, 1};
    bool hasCluster = false; ///< Launched in clusters (with the cluster-dimension attribute).
};

struct ResolvedLibraryStep
{
    std::string op;
    std::vector<ResolvedArg> args;
    bool cudnnBenchmark = false;
    bool channelsLast = false; ///< A convolution: input and weight passed as channels-last copies.
};

struct ResolvedPlan
{
    std::vector<std::pair<std::string, std::int64_t>> scratchBytes; ///< name -> bytes, in plan order.
    std::vector<std::variant<ResolvedKernelStep, ResolvedLibraryStep>> steps;
};

/// Parses plan JSON. Errors name the problem and where ("steps[1].grid[0]: ...").
Expected<LaunchPlan> parseLaunchPlan(const std::string &json);
std::string toJson(const LaunchPlan &plan); ///< Canonical, pretty-printed form.

/// Reads the extern "C" __global__ signatures of a device source (for argument checks).
std::vector<KernelSignature> parseKernelSignatures(const std::string &source);

/**
 * Checks a plan against an op, one of its shape sets, the candidate's kernels and device limits, and
 * evaluates every expression. Rejects unknown symbols, tensors or kernels, negative or zero sizes, too
 * many threads, too much shared memory, argument count or type mismatches, and library steps the op's
 * policy does not allow, each with a message naming the problem.
 */
Expected<ResolvedPlan> resolveLaunchPlan(const LaunchPlan &plan, const Op &op, const ShapeSet &shapes,
                                         const std::vector<KernelSignature> &kernels, const DeviceLimits &limits = {});

/**
 * Whether a candidate's plan fits its op: resolveLaunchPlan() on every shape set of the op (a plan that fits only
 * the first would fail in the worker). The one check of the evaluation service, the hand-edit check and the
 * language-model answer parser; the Error names the shape set that fails ("launch plan for shapes {N=100}: ...").
 */
Status checkLaunchPlanFits(const LaunchPlan &plan, const Op &op, const std::vector<KernelSignature> &kernels,
                           const DeviceLimits &limits = {});

/// Evaluates one integer expression over shape symbols (the plan's expression language).
Expected<std::int64_t> evaluateIntExpression(const std::string &expression, const ShapeSet &symbols);

} // namespace kx
