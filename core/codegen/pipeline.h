#pragma once

#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kx {

/// A tensor a pipeline stage reads or writes: an op input or output, or an intermediate (a scratch buffer),
/// with the shape the stage sees it in (dimensions are shape symbols or integer literals).
struct PipelineTensor
{
    std::string name;
    std::vector<std::string> shape;

    bool operator==(const PipelineTensor &) const = default;
};

/// The sliding window of a convolution or pooling stage, one entry per spatial dimension (1 to 3).
struct Window
{
    std::vector<std::int64_t> kernel, stride, padding, dilation;
    std::vector<std::int64_t> outputPadding; ///< Transposed convolutions only.
    std::int64_t groups = 1;                 ///< Convolutions only.
    bool transposed = false;                 ///< A transposed convolution (the gradient of one, as a gather).
    bool ceilMode = false;                   ///< Pooling: the output size rounds up.
    bool countIncludePad = true;             ///< Average pooling: the padding counts in the divisor.

    bool operator==(const Window &) const = default;
};

/**
 * One step of a "pipeline" recipe: an op that takes several calls, translated call by call.
 * - Library: an ATen call run through LibTorch (a convolution, a pooling, a norm with statistics ...);
 *   args are launch-plan arguments, with {"tensor": name, "shape": [...]} for tensors.
 * - Elementwise: a fused chain of elementwise calls in one kernel. The operands a0, a1 ... broadcast to the
 *   stage's shape (each dimension equal or 1); code is CUDA statements over them defining the variables
 *   that outputs name (e.g. "const float v0 = a0 + a1;\nconst float v1 = fmaxf(v0, 0.0f);").
 * - Reduce: a sum, mean, max, min or logsumexp over the middle of [outer, extent, inner].
 * - Conv: a direct convolution (or transposed convolution) of operands x [N, C_in, spatial...], weight and an
 *   optional bias [C_out], with the window's stride, padding, dilation and groups.
 * - Pool: max or average pooling (reduction "max" or "avg") of operand x [N, C, spatial...] over the window.
 */
struct PipelineStage
{
    enum class Kind { Library, Elementwise, Reduce, Conv, Pool };
    Kind kind = Kind::Elementwise;

    std::string op;                                ///< Library: "aten::max_pool2d", "aten::min.dim" ...
    nlohmann::json args = nlohmann::json::array(); ///< Library.

    std::vector<PipelineTensor>
        operands;                     ///< Elementwise: a0, a1 ...; Reduce, Pool: the input; Conv: x, weight (, bias).
    std::string code;                 ///< Elementwise.
    std::vector<std::string> results; ///< Elementwise: the variable each output takes.

    std::string reduction;                              ///< Reduce: sum, mean, max, min, logsumexp; Pool: max, avg.
    std::string outer = "1", extent = "1", inner = "1"; ///< Reduce: size expressions.

    Window window; ///< Conv and Pool.

    std::vector<PipelineTensor> outputs; ///< Library, Reduce, Conv, Pool: one; Elementwise: one or more (same shape).
    std::string outputDtype = "float32"; ///< Library: what its (only) output holds.

    bool operator==(const PipelineStage &) const = default;
};

nlohmann::json toJson(const PipelineStage &stage);
nlohmann::json toJson(const std::vector<PipelineStage> &stages);
Expected<std::vector<PipelineStage>> pipelineFromJson(const nlohmann::json &json);

/// The element count of a shape as a plan expression ("B*C*H*W", "1" for a scalar).
std::string shapeProduct(const std::vector<std::string> &shape);

} // namespace kx
