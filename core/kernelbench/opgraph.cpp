#include "core/kernelbench/opgraph.h"

#include <limits>
#include <map>

namespace kx {
namespace {

// The helper writes floats JSON cannot hold as {"nonFinite": "inf" | "-inf" | "nan"}; the graph holds numbers.
nlohmann::json withNonFiniteNumbers(const nlohmann::json &value)
{
    if (value.is_object() && value.size() == 1 && value.contains("nonFinite") && value["nonFinite"].is_string()) {
        const std::string which = value["nonFinite"].get<std::string>();
        if (which == "inf")
            return std::numeric_limits<double>::infinity();
        if (which == "-inf")
            return -std::numeric_limits<double>::infinity();
        if (which == "nan")
            return std::numeric_limits<double>::quiet_NaN();
    }
    if (value.is_array()) {
        nlohmann::json items = nlohmann::json::array();
        for (const auto &item : value)
            items.push_back(withNonFiniteNumbers(item));
        return items;
    }
    return value;
}

Expected<GraphTensor> tensorFromJson(const nlohmann::json &json, const std::string &where)
{
    if (!json.is_object() || !json.contains("value") || !json["value"].is_string())
        return Error{where + ": a tensor needs a \"value\" name"};
    GraphTensor tensor;
    tensor.value = json["value"].get<std::string>();
    if (json.contains("shape")) {
        if (!json["shape"].is_array())
            return Error{where + ": \"shape\" must be a list of sizes"};
        for (const auto &size : json["shape"]) {
            if (!size.is_number_integer() || size.get<std::int64_t>() < 0)
                return Error{where + ": \"shape\" must be a list of sizes"};
            tensor.shape.push_back(size.get<std::int64_t>());
        }
    }
    if (json.contains("dtype") && json["dtype"].is_string())
        tensor.dtype = json["dtype"].get<std::string>();
    else if (json.contains("type"))
        tensor.dtype = "none"; // a non-tensor result (e.g. a list)
    return tensor;
}

} // namespace

Expected<OpGraph> opGraphFromJson(const nlohmann::json &json)
{
    if (!json.is_object())
        return Error{"the op graph must be an object"};
    OpGraph graph;
    for (const auto &input : json.value("inputs", nlohmann::json::array())) {
        if (!input.is_object() || !input.value("value", nlohmann::json()).is_string()
            || !input.value("name", nlohmann::json()).is_string())
            return Error{"graph inputs need \"value\" and \"name\""};
        graph.inputs.push_back({input["value"].get<std::string>(), input["name"].get<std::string>()});
    }
    for (const auto &output : json.value("outputs", nlohmann::json::array())) {
        if (!output.is_string())
            return Error{"graph outputs must be value names"};
        graph.outputs.push_back(output.get<std::string>());
    }
    const auto nodes = json.value("nodes", nlohmann::json::array());
    if (!nodes.is_array())
        return Error{"graph nodes must be a list"};
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto &entry = nodes[i];
        const std::string where = "graph node " + std::to_string(i + 1);
        if (!entry.is_object() || !entry.value("kind", nlohmann::json()).is_string())
            return Error{where + ": needs a \"kind\""};
        GraphNode node;
        node.kind = entry["kind"].get<std::string>();
        if (entry.contains("overload") && entry["overload"].is_string())
            node.overload = entry["overload"].get<std::string>();
        for (const auto &argument : entry.value("inputs", nlohmann::json::array())) {
            GraphArgument parsed;
            if (argument.is_object() && argument.contains("const")) {
                parsed.constant = withNonFiniteNumbers(argument["const"]);
            } else {
                auto tensor = tensorFromJson(argument, where + " (" + node.kind + ")");
                if (!tensor)
                    return tensor.error();
                parsed.isTensor = true;
                parsed.tensor = std::move(*tensor);
            }
            node.inputs.push_back(std::move(parsed));
        }
        for (const auto &output : entry.value("outputs", nlohmann::json::array())) {
            auto tensor = tensorFromJson(output, where + " (" + node.kind + ")");
            if (!tensor)
                return tensor.error();
            node.outputs.push_back(std::move(*tensor));
        }
        graph.nodes.push_back(std::move(node));
    }
    return graph;
}

void addSecondShapes(OpGraph &graph, const nlohmann::json &secondShapes)
{
    if (!secondShapes.is_array() || secondShapes.size() != graph.nodes.size())
        return;
    std::vector<std::vector<std::vector<std::int64_t>>> shapes;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto &entry = secondShapes[i];
        const auto &node = graph.nodes[i];
        if (!entry.is_object() || entry.value("kind", std::string()) != node.kind)
            return;
        const auto list = entry.value("shapes", nlohmann::json::array());
        if (!list.is_array() || list.size() != node.outputs.size())
            return;
        auto &nodeShapes = shapes.emplace_back();
        for (const auto &shape : list) {
            auto &dims = nodeShapes.emplace_back();
            if (shape.is_array())
                for (const auto &size : shape)
                    if (size.is_number_integer())
                        dims.push_back(size.get<std::int64_t>());
        }
    }
    // Inputs of a call are outputs of earlier calls (or graph inputs, whose shapes the shape sets give).
    std::map<std::string, std::vector<std::int64_t>> byValue;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        auto &node = graph.nodes[i];
        for (std::size_t j = 0; j < node.outputs.size(); ++j) {
            if (shapes[i][j].size() != node.outputs[j].shape.size())
                continue; // a rank that changes with the batch size: leave it unknown
            node.outputs[j].secondShape = shapes[i][j];
            byValue[node.outputs[j].value] = shapes[i][j];
        }
        for (auto &argument : node.inputs)
            if (argument.isTensor)
                if (const auto it = byValue.find(argument.tensor.value); it != byValue.end())
                    argument.tensor.secondShape = it->second;
    }
}

} // namespace kx
