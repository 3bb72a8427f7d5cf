#pragma once

#include "core/domain/op.h"
#include "core/gpu/opreference.h"

#include <memory>
#include <string>

namespace kx {

/**
 * An op compiled by torch.compile's Inductor ahead of time: an AOTInductor package (.pt2) whose model takes
 * the op's inputs and returns its outputs, loaded with LibTorch's AOTIModelPackageLoader. It is timed as a
 * baseline like eager PyTorch. Loading runs the package's compiled code in this process: do it in a process
 * of its own (kx baseline-runner), never in a worker. Needs LibTorch 2.6 or newer with CUDA.
 */
class InductorReference : public OpReference
{
public:
    ~InductorReference() override;

    /// Why this build cannot load packages (empty when it can).
    static std::string unavailableReason();
    static Expected<std::shared_ptr<InductorReference>> load(const std::string &packagePath, const Op &op, int device);

    Status run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override;
    Status runEager(const std::vector<TensorView> &inputs) override;

private:
    class Private;
    explicit InductorReference(std::unique_ptr<Private> d);
    std::unique_ptr<Private> d;
};

} // namespace kx
