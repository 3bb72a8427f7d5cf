// TorchScript references of imported ops (one of the translation units that include LibTorch).
#include "core/gpu/scriptedreference.h"

#include "core/gpu/tensorops.h"
#include "core/gpu/torchinterop.h"

#include "core/eval/protocol.h"
#include "core/util/hash.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>

#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace kx {
namespace {

using namespace torchinterop;

using Tensors = std::vector<at::Tensor>;

// Loaded modules by SHA-256 of the archive and device: ops sharing a module share one copy, and an op
// evaluated again does not load again. Modules are small (the model's parameters are inputs), so they stay.
struct ModuleCache
{
    std::mutex mutex;
    std::map<std::pair<std::string, int>, std::shared_ptr<torch::jit::Module>> modules;
};

ModuleCache &moduleCache()
{
    static ModuleCache cache;
    return cache;
}

// A traced convolution is aten::_convolution with cuDNN's switches as constants, TF32 off as the trace ran. As
// aten::convolution (the same first nine arguments) it reads them from the context instead, as eager PyTorch's Python
// does: the reference still computes in full fp32 (it runs under Tf32Scope(false)), and the eager baseline rounds to
// TF32 where the run's precision policy allows it, as the candidates' library convolutions and Inductor do.
void convolutionsReadTheContext(torch::jit::Module &module)
{
    const auto traced = c10::Symbol::fromQualString("aten::_convolution");
    const auto general = c10::Symbol::fromQualString("aten::convolution");
    for (const auto &owner : module.modules()) {
        for (const auto &method : owner.get_methods()) {
            const auto graph = method.graph();
            std::vector<torch::jit::Node *> convolutions;
            std::vector<torch::jit::Block *> blocks{graph->block()};
            while (!blocks.empty()) {
                auto *block = blocks.back();
                blocks.pop_back();
                for (auto *node : block->nodes()) {
                    if (node->kind() == traced && node->inputs().size() == 13)
                        convolutions.push_back(node);
                    for (auto *inner : node->blocks())
                        blocks.push_back(inner);
                }
            }
            for (auto *node : convolutions) {
                auto *convolution = graph->create(general, node->inputs().slice(0, 9));
                convolution->insertBefore(node);
                convolution->output()->setType(node->output()->type());
                node->output()->replaceAllUsesWith(convolution->output());
                node->destroy();
            }
        }
    }
}

Expected<std::shared_ptr<torch::jit::Module>> loadModule(const Op &op, int device)
{
    if (op.referenceModule.empty())
        return Error{"op '" + op.name + "' has no TorchScript reference module"};
    auto archive = base64Decode(op.referenceModule);
    if (!archive)
        return Error{"reference module of op '" + op.name + "' is not valid base64: " + archive.error().message};
    const auto key = std::make_pair(sha256Hex(*archive), device);
    auto &cache = moduleCache();
    std::lock_guard lock(cache.mutex);
    if (const auto it = cache.modules.find(key); it != cache.modules.end())
        return it->second;
    try {
        std::istringstream stream(std::move(*archive), std::ios::binary);
        auto module = std::make_shared<torch::jit::Module>(torch::jit::load(stream, deviceFor(device)));
        module->eval();
        if (!module->find_method("forward"))
            return Error{"reference module of op '" + op.name + "' has no forward method"};
        convolutionsReadTheContext(*module);
        cache.modules.emplace(key, module);
        return module;
    } catch (const std::exception &error) {
        return Error{"reference module of op '" + op.name
                     + "' is not a loadable TorchScript archive: " + errorText(error)};
    }
}

} // namespace

class ScriptedReference::Private
{
public:
    Expected<Tensors> forward(const std::vector<TensorView> &inputs);
    Expected<Tensors> forward(const Tensors &inputs);

    std::string opName;
    std::vector<std::string> outputNames;
    std::shared_ptr<torch::jit::Module> module;
};

Expected<Tensors> ScriptedReference::Private::forward(const std::vector<TensorView> &inputs)
{
    Tensors tensors;
    for (const auto &view : inputs)
        tensors.push_back(wrap(view));
    return forward(tensors);
}

Expected<Tensors> ScriptedReference::Private::forward(const Tensors &inputs)
{
    try {
        torch::NoGradGuard noGrad;
        // The reference is what eager PyTorch computes: no fusion (a fused x * w + b rounds once, as an FMA).
        torch::jit::GraphOptimizerEnabledGuard unoptimized(false);
        std::vector<c10::IValue> arguments;
        arguments.reserve(inputs.size());
        for (const auto &tensor : inputs)
            arguments.emplace_back(tensor);
        const c10::IValue result = module->forward(std::move(arguments));
        Tensors tensors;
        if (result.isTensor()) {
            tensors.push_back(result.toTensor());
        } else if (result.isTuple() || result.isList()) {
            const auto elements = result.isTuple() ? result.toTupleRef().elements().vec() : result.toListRef().vec();
            for (std::size_t i = 0; i < elements.size(); ++i) {
                if (!elements[i].isTensor())
                    return Error{"reference module of op '" + opName + "': forward's result " + std::to_string(i)
                                 + " is a " + elements[i].tagKind() + ", not a tensor"};
                tensors.push_back(elements[i].toTensor());
            }
        } else {
            return Error{"reference module of op '" + opName + "': forward returns a " + result.tagKind()
                         + ", not a tensor or a tuple of tensors"};
        }
        return tensors;
    } catch (const std::exception &error) {
        return Error{"reference module of op '" + opName + "' failed: " + errorText(error)};
    }
}

ScriptedReference::ScriptedReference(std::unique_ptr<Private> d)
    : d(std::move(d))
{}

ScriptedReference::~ScriptedReference() = default;

Expected<std::shared_ptr<ScriptedReference>> ScriptedReference::load(const Op &op, int device)
{
    auto module = loadModule(op, device);
    if (!module)
        return module.error();
    auto d = std::make_unique<Private>();
    d->opName = op.name;
    for (const auto &spec : op.outputs)
        d->outputNames.push_back(spec.name);
    d->module = std::move(*module);
    return std::shared_ptr<ScriptedReference>(new ScriptedReference(std::move(d)));
}

Status ScriptedReference::run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
{
    // Full fp32 in cuBLAS and cuDNN, as for the built-in references: candidates are checked against fp32.
    const Tf32Scope fp32(false);
    return runEagerInto(inputs, outputs);
}

Status ScriptedReference::runEagerInto(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
{
    auto results = d->forward(inputs);
    if (!results)
        return results.error();
    const auto where = "reference module of op '" + d->opName + "': ";
    if (results->size() != outputs.size())
        return Error{where + "forward returns " + std::to_string(results->size()) + " tensor"
                     + (results->size() == 1 ? "" : "s") + ", the op declares " + std::to_string(outputs.size())
                     + " output" + (outputs.size() == 1 ? "" : "s")};
    try {
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto &result = (*results)[i];
            const auto name = i < d->outputNames.size() ? "'" + d->outputNames[i] + "'" : std::to_string(i);
            if (result.sizes().vec() != outputs[i].shape)
                return Error{where + "output " + name + " has shape " + shapeText(result.sizes().vec())
                             + ", the op declares " + shapeText(outputs[i].shape)};
            if (result.scalar_type() != scalarType(outputs[i].dtype))
                return Error{where + "output " + name + " has dtype " + c10::toString(result.scalar_type())
                             + ", the op declares " + toString(outputs[i].dtype)};
            wrap(outputs[i]).copy_(result);
        }
        return {};
    } catch (const std::exception &error) {
        return Error{where + "copying the outputs failed: " + errorText(error)};
    }
}

Status ScriptedReference::runInDouble(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
{
    Tensors wrapped;
    for (const auto &view : inputs)
        wrapped.push_back(wrap(view));
    // Modules that hold float32 constants or buffers fail here; the error profile then says so.
    auto results = d->forward(torchinterop::inDouble(wrapped));
    if (!results)
        return results.error();
    try {
        return torchinterop::copyResults(*results, outputs, "float64 reference module of op '" + d->opName + "'");
    } catch (const std::exception &error) {
        return Error{"float64 reference module of op '" + d->opName + "': " + errorText(error)};
    }
}

Status ScriptedReference::runEager(const std::vector<TensorView> &inputs)
{
    auto results = d->forward(inputs);
    if (!results)
        return results.error();
    return {};
}

std::size_t ScriptedReference::loadedModuleCount()
{
    auto &cache = moduleCache();
    std::lock_guard lock(cache.mutex);
    return cache.modules.size();
}

} // namespace kx
