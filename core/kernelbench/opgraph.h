#pragma once

#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kx {

/// A tensor value of a traced graph with its concrete shape (at the default sizes).
struct GraphTensor
{
    std::string value; ///< The value's name in the graph.
    std::vector<std::int64_t> shape;
    std::string dtype = "float32";
    /// The shape at the op's second shape set, where the import traced the model there too (else empty).
    std::vector<std::int64_t> secondShape;
};

/// One argument of a graph call: a tensor value or a constant (number, list, string or null).
struct GraphArgument
{
    bool isTensor = false;
    GraphTensor tensor;
    nlohmann::json constant;
};

/// One call of the traced forward, e.g. aten::relu.
struct GraphNode
{
    std::string kind;
    std::string overload; ///< The schema's overload name, e.g. "dim" for aten::min.dim.
    std::vector<GraphArgument> inputs;
    std::vector<GraphTensor> outputs;
};

/// The ATen calls of an imported model's forward, in execution order.
struct OpGraph
{
    struct Input
    {
        std::string value; ///< The graph value ...
        std::string name;  ///< ... is this input of the op.
    };
    std::vector<Input> inputs;
    std::vector<std::string> outputs; ///< Graph values the forward returns, in order.
    std::vector<GraphNode> nodes;
};

/// Reads the "graph" object of a bundle's problem.json; an Error says what is malformed.
Expected<OpGraph> opGraphFromJson(const nlohmann::json &json);

/**
 * Adds the output shapes of the same calls traced at the second shape set (problem.json's "secondShapes":
 * per node {"kind", "shapes"}). Leaves the graph as it is when the lists do not line up call for call.
 */
void addSecondShapes(OpGraph &graph, const nlohmann::json &secondShapes);

} // namespace kx
