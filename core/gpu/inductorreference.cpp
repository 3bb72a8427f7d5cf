// AOTInductor packages as baselines (one of the translation units that include LibTorch).
#include "core/gpu/inductorreference.h"

#include "core/gpu/torchinterop.h"

#include <torch/version.h>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
#define KX_HAVE_AOTI 1
#include <c10/core/InferenceMode.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#endif

namespace kx {

using namespace torchinterop;

class InductorReference::Private
{
public:
#ifdef KX_HAVE_AOTI
    Expected<std::vector<at::Tensor>> forward(const std::vector<TensorView> &inputs)
    {
        try {
            c10::InferenceMode inference;
            std::vector<at::Tensor> arguments;
            arguments.reserve(inputs.size());
            for (const auto &view : inputs)
                arguments.push_back(wrap(view));
            return loader->run(arguments);
        } catch (const std::exception &error) {
            return Error{"the Inductor package failed: " + errorText(error)};
        }
    }

    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
#endif
    std::string opName;
};

InductorReference::InductorReference(std::unique_ptr<Private> d)
    : d(std::move(d))
{}

InductorReference::~InductorReference() = default;

std::string InductorReference::unavailableReason()
{
#ifdef KX_HAVE_AOTI
    return {};
#else
    return "LibTorch " TORCH_VERSION " cannot load AOTInductor packages (2.6 or newer can)";
#endif
}

Expected<std::shared_ptr<InductorReference>> InductorReference::load(const std::string &packagePath, const Op &op,
                                                                     int device)
{
#ifdef KX_HAVE_AOTI
    auto d = std::make_unique<Private>();
    d->opName = op.name;
    try {
        // The package runs on the current device (the runner made it current): every LibTorch since 2.6 has this
        // constructor, the ones that name a device came later.
        (void)device;
        d->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(packagePath);
    } catch (const std::exception &error) {
        return Error{"the Inductor package " + packagePath + " does not load: " + errorText(error)};
    }
    return std::shared_ptr<InductorReference>(new InductorReference(std::move(d)));
#else
    (void)packagePath;
    (void)op;
    (void)device;
    return Error{unavailableReason()};
#endif
}

Status InductorReference::run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
{
#ifdef KX_HAVE_AOTI
    auto results = d->forward(inputs);
    if (!results)
        return results.error();
    if (results->size() != outputs.size())
        return Error{"the Inductor package returns " + std::to_string(results->size()) + " tensors, the op declares "
                     + std::to_string(outputs.size()) + " outputs"};
    try {
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto &result = (*results)[i];
            if (result.sizes().vec() != outputs[i].shape || result.scalar_type() != scalarType(outputs[i].dtype))
                return Error{"the Inductor package's output " + std::to_string(i) + " is "
                             + std::string(c10::toString(result.scalar_type())) + " " + shapeText(result.sizes().vec())
                             + ", the op declares " + toString(outputs[i].dtype) + " " + shapeText(outputs[i].shape)};
            wrap(outputs[i]).copy_(result);
        }
        return {};
    } catch (const std::exception &error) {
        return Error{"copying the Inductor package's outputs failed: " + errorText(error)};
    }
#else
    (void)inputs;
    (void)outputs;
    return Error{unavailableReason()};
#endif
}

Status InductorReference::runEager(const std::vector<TensorView> &inputs)
{
#ifdef KX_HAVE_AOTI
    auto results = d->forward(inputs);
    if (!results)
        return results.error();
    return {};
#else
    (void)inputs;
    return Error{unavailableReason()};
#endif
}

} // namespace kx
