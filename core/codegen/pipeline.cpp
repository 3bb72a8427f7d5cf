#include "core/codegen/pipeline.h"

namespace kx {
namespace {

nlohmann::json tensorJson(const PipelineTensor &tensor)
{
    return {{"tensor", tensor.name}, {"shape", tensor.shape}};
}

PipelineTensor tensorFrom(const nlohmann::json &json)
{
    PipelineTensor tensor;
    tensor.name = json.at("tensor").get<std::string>();
    tensor.shape = json.at("shape").get<std::vector<std::string>>();
    if (tensor.name.empty())
        throw std::invalid_argument("a tensor without a name");
    return tensor;
}

const char *kindName(PipelineStage::Kind kind)
{
    switch (kind) {
    case PipelineStage::Kind::Library: return "library";
    case PipelineStage::Kind::Elementwise: return "elementwise";
    case PipelineStage::Kind::Reduce: return "reduce";
    case PipelineStage::Kind::Conv: return "conv";
    case PipelineStage::Kind::Pool: return "pool";
    }
    return "?";
}

nlohmann::json windowJson(const Window &window, bool conv)
{
    nlohmann::json j{{"kernel", window.kernel},
                     {"stride", window.stride},
                     {"padding", window.padding},
                     {"dilation", window.dilation}};
    if (conv) {
        j["groups"] = window.groups;
        if (window.transposed) {
            j["transposed"] = true;
            j["outputPadding"] = window.outputPadding;
        }
    } else {
        j["ceilMode"] = window.ceilMode;
        j["countIncludePad"] = window.countIncludePad;
    }
    return j;
}

// Every list has one entry per spatial dimension; an Error names the first that does not.
Expected<Window> windowFrom(const nlohmann::json &json, bool conv)
{
    Window window;
    window.kernel = json.at("kernel").get<std::vector<std::int64_t>>();
    window.stride = json.at("stride").get<std::vector<std::int64_t>>();
    window.padding = json.at("padding").get<std::vector<std::int64_t>>();
    window.dilation = json.at("dilation").get<std::vector<std::int64_t>>();
    if (conv) {
        window.groups = json.at("groups").get<std::int64_t>();
        window.transposed = json.value("transposed", false);
        window.outputPadding = json.value("outputPadding", std::vector<std::int64_t>(window.kernel.size(), 0));
    } else {
        window.ceilMode = json.value("ceilMode", false);
        window.countIncludePad = json.value("countIncludePad", true);
        window.outputPadding.assign(window.kernel.size(), 0);
    }
    const std::size_t rank = window.kernel.size();
    if (rank < 1 || rank > 3)
        return Error{"the window has " + std::to_string(rank) + " dimensions: 1 to 3 are supported"};
    for (const auto &[name, list] :
         {std::pair{"stride", &window.stride}, std::pair{"padding", &window.padding},
          std::pair{"dilation", &window.dilation}, std::pair{"outputPadding", &window.outputPadding}})
        if (list->size() != rank)
            return Error{std::string("the window's ") + name + " has " + std::to_string(list->size())
                         + " entries for a kernel of " + std::to_string(rank) + " dimensions"};
    return window;
}

} // namespace

std::string shapeProduct(const std::vector<std::string> &shape)
{
    std::string product;
    for (const auto &dimension : shape)
        if (dimension != "1")
            product += (product.empty() ? "" : "*") + dimension;
    return product.empty() ? "1" : product;
}

nlohmann::json toJson(const PipelineStage &stage)
{
    nlohmann::json j{{"kind", kindName(stage.kind)}};
    auto outputs = nlohmann::json::array();
    for (const auto &output : stage.outputs)
        outputs.push_back(tensorJson(output));
    switch (stage.kind) {
    case PipelineStage::Kind::Library:
        j["op"] = stage.op;
        j["args"] = stage.args;
        if (stage.outputDtype != "float32")
            j["dtype"] = stage.outputDtype;
        break;
    case PipelineStage::Kind::Elementwise: {
        auto operands = nlohmann::json::array();
        for (const auto &operand : stage.operands)
            operands.push_back(tensorJson(operand));
        j["operands"] = operands;
        j["code"] = stage.code;
        j["results"] = stage.results;
        break;
    }
    case PipelineStage::Kind::Reduce:
        j["reduction"] = stage.reduction;
        j["input"] = tensorJson(stage.operands.at(0));
        j["outer"] = stage.outer;
        j["extent"] = stage.extent;
        j["inner"] = stage.inner;
        break;
    case PipelineStage::Kind::Conv:
    case PipelineStage::Kind::Pool: {
        const bool conv = stage.kind == PipelineStage::Kind::Conv;
        if (!conv)
            j["pooling"] = stage.reduction;
        auto operands = nlohmann::json::array();
        for (const auto &operand : stage.operands)
            operands.push_back(tensorJson(operand));
        j["operands"] = operands;
        j["window"] = windowJson(stage.window, conv);
        break;
    }
    }
    j["outputs"] = outputs;
    return j;
}

nlohmann::json toJson(const std::vector<PipelineStage> &stages)
{
    auto array = nlohmann::json::array();
    for (const auto &stage : stages)
        array.push_back(toJson(stage));
    return array;
}

Expected<std::vector<PipelineStage>> pipelineFromJson(const nlohmann::json &json)
{
    if (!json.is_array() || json.empty())
        return Error{"a pipeline needs a non-empty list of stages"};
    std::vector<PipelineStage> stages;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const auto &entry = json[i];
        const std::string where = "stage " + std::to_string(i + 1);
        try {
            PipelineStage stage;
            const auto kind = entry.at("kind").get<std::string>();
            for (const auto &output : entry.at("outputs"))
                stage.outputs.push_back(tensorFrom(output));
            if (stage.outputs.empty())
                return Error{where + " writes nothing"};
            if (kind == "library") {
                stage.kind = PipelineStage::Kind::Library;
                stage.op = entry.at("op").get<std::string>();
                stage.args = entry.at("args");
                stage.outputDtype = entry.value("dtype", stage.outputDtype);
                if (!stage.args.is_array())
                    return Error{where + ": args must be a list"};
            } else if (kind == "elementwise") {
                stage.kind = PipelineStage::Kind::Elementwise;
                for (const auto &operand : entry.at("operands"))
                    stage.operands.push_back(tensorFrom(operand));
                stage.code = entry.at("code").get<std::string>();
                stage.results = entry.at("results").get<std::vector<std::string>>();
                if (stage.results.size() != stage.outputs.size())
                    return Error{where + ": one result variable per output is needed"};
            } else if (kind == "reduce") {
                stage.kind = PipelineStage::Kind::Reduce;
                stage.reduction = entry.at("reduction").get<std::string>();
                stage.operands.push_back(tensorFrom(entry.at("input")));
                stage.outer = entry.at("outer").get<std::string>();
                stage.extent = entry.at("extent").get<std::string>();
                stage.inner = entry.at("inner").get<std::string>();
            } else if (kind == "conv" || kind == "pool") {
                const bool conv = kind == "conv";
                stage.kind = conv ? PipelineStage::Kind::Conv : PipelineStage::Kind::Pool;
                if (!conv)
                    stage.reduction = entry.at("pooling").get<std::string>();
                for (const auto &operand : entry.at("operands"))
                    stage.operands.push_back(tensorFrom(operand));
                const std::size_t fewest = conv ? 2 : 1, most = conv ? 3 : 1;
                if (stage.operands.size() < fewest || stage.operands.size() > most)
                    return Error{where
                                 + (conv ? ": a conv stage reads x, weight and an optional bias"
                                         : ": a pool stage reads one input")};
                auto window = windowFrom(entry.at("window"), conv);
                if (!window)
                    return Error{where + ": " + window.error().message};
                stage.window = std::move(*window);
            } else {
                return Error{where + ": unknown kind '" + kind + "'"};
            }
            stages.push_back(std::move(stage));
        } catch (const std::exception &error) {
            return Error{where + ": " + error.what()};
        }
    }
    return stages;
}

} // namespace kx
