#pragma once

#include "core/domain/op.h"
#include "core/gpu/opreference.h"

#include <memory>
#include <string>

namespace kx {

/**
 * The reference of an imported op: its TorchScript module (Op::referenceModule, base64 of a
 * torch.jit.save archive) whose forward takes the op's inputs and returns its output tensor or a tuple
 * of its outputs. Without LibTorch load() fails.
 */
class ScriptedReference : public OpReference
{
public:
    ~ScriptedReference() override;

    /// Decodes and loads the op's module onto a CUDA device, or host memory for device -1. A module already
    /// loaded for that device (same SHA-256) is reused. Fails on bad base64 or a file that is no TorchScript archive.
    static Expected<std::shared_ptr<ScriptedReference>> load(const Op &op, int device);

    Status run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override;
    Status runEager(const std::vector<TensorView> &inputs) override;
    Status runEagerInto(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override;
    Status runInDouble(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override;

    /// How many modules are loaded (all devices): they stay loaded for the life of the process.
    static std::size_t loadedModuleCount();

private:
    class Private;
    explicit ScriptedReference(std::unique_ptr<Private> d);
    std::unique_ptr<Private> d;
};

} // namespace kx
