#pragma once

#include "core/util/expected.h"

#include <nlohmann/json.hpp>

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

/**
 * One step of a "pipeline" recipe: an op that takes several calls, translated call by call.
 * - Library: an ATen call run through LibTorch (a convolution, a pooling, a norm with statistics ...);
 *   args are launch-plan arguments, with {"tensor": name, "shape": [...]} for tensors.
 * - Elementwise: a fused chain of elementwise calls in one kernel. The operands a0, a1 ... broadcast to the
 *   stage's shape (each dimension equal or 1); code is CUDA statements over them defining the variables
 *   that outputs name (e.g. "const float v0 = a0 + a1;\nconst float v1 = fmaxf(v0, 0.0f);").
 * - Reduce: a sum, mean, max, min or logsumexp over the middle of [outer, extent, inner].
 */
struct PipelineStage
{
    enum class Kind { Library, Elementwise, Reduce };
    Kind kind = Kind::Elementwise;

    std::string op;                         ///< Library: "aten::max_pool2d", "aten::min.dim" ...
    nlohmann::json args = nlohmann::json::array(); ///< Library.

    std::vector<PipelineTensor> operands;   ///< Elementwise: a0, a1 ...; Reduce: the input.
    std::string code;                       ///< Elementwise.
    std::vector<std::string> results;       ///< Elementwise: the variable each output takes.

    std::string reduction;                  ///< Reduce: sum, mean, max, min, logsumexp.
    std::string outer = "1", extent = "1", inner = "1"; ///< Reduce: size expressions.

    std::vector<PipelineTensor> outputs;    ///< Library and Reduce: one; Elementwise: one or more (same shape).
    std::string outputDtype = "float32";    ///< Library: what its (only) output holds.

    bool operator==(const PipelineStage &) const = default;
};

nlohmann::json toJson(const PipelineStage &stage);
nlohmann::json toJson(const std::vector<PipelineStage> &stages);
Expected<std::vector<PipelineStage>> pipelineFromJson(const nlohmann::json &json);

/// The element count of a shape as a plan expression ("B*C*H*W", "1" for a scalar).
std::string shapeProduct(const std::vector<std::string> &shape);

} // namespace kx
