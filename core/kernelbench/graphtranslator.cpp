#include "core/kernelbench/graphtranslator.h"

#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/devicemoves.h"
#include "core/kernelbench/graphtranslation.h"
#include "core/kernelbench/losstranslation.h"
#include "core/kernelbench/pipelinetranslator.h"
#include "core/kernelbench/scantranslation.h"
#include "core/kernelbench/windowcalls.h"

#include <algorithm>

namespace kx {

using namespace atencalls;

Expected<Op> GraphTranslator::translate(const OpGraph &traced, Op op) const
{
    const OpGraph graph = withDeviceMovesFolded(traced);
    if (ScanTranslator::appliesTo(graph)) // no other translation generates a scan
        return ScanTranslator::translate(graph, std::move(op));
    if (LossTranslator::appliesTo(graph)) {
        // A loss is generated whole by the loss template; where it does not fit, a pipeline may still run it.
        auto loss = LossTranslator::translate(graph, op);
        if (loss)
            return loss;
        auto pipeline = PipelineTranslator::translate(graph, std::move(op));
        if (pipeline)
            return pipeline;
        return Error{loss.error().message + "; as a pipeline: " + pipeline.error().message};
    }
    auto single = translation::Translation(graph, op).run();
    if (single)
        return single;
    auto pipeline = PipelineTranslator::translate(graph, std::move(op));
    if (pipeline)
        return pipeline;
    return Error{single.error().message + "; as a pipeline: " + pipeline.error().message};
}

bool GraphTranslator::knowsKind(const std::string &kind)
{
    return isView(kind) || isElementwise(kind) || reduceKinds().count(kind) || anchorKinds().count(kind)
           || windowcalls::isWindowCall(kind);
}

std::vector<std::string> GraphTranslator::unsupportedCalls(const OpGraph &graph)
{
    std::vector<std::string> calls;
    const auto add = [&](const std::string &call) {
        if (std::find(calls.begin(), calls.end(), call) == calls.end())
            calls.push_back(call);
    };
    for (const auto &node : graph.nodes) {
        if (!knowsKind(node.kind)) {
            add(node.kind);
            continue;
        }
        // Known calls on other element types than float32 (index outputs of argmax, argmin, max and min aside).
        for (const auto &argument : node.inputs)
            if (argument.isTensor && argument.tensor.dtype != "float32")
                add(node.kind + " on " + argument.tensor.dtype);
        for (std::size_t i = 0; i < node.outputs.size(); ++i) {
            const bool indices = node.kind == "aten::argmax" || node.kind == "aten::argmin"
                                 || ((node.kind == "aten::max" || node.kind == "aten::min") && i == 1);
            const auto &dtype = node.outputs[i].dtype;
            if (dtype != "float32" && dtype != "none" && !(indices && dtype == "int64"))
                add(node.kind + " producing " + dtype);
        }
    }
    return calls;
}

} // namespace kx
