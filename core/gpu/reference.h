#pragma once

#include "core/domain/op.h"
#include "core/gpu/opreference.h"
#include "core/gpu/tensorview.h"
#include "core/util/expected.h"

#include <memory>
#include <string>
#include <vector>

namespace kx {

/**
 * The LibTorch reference of each built-in op, keyed by op name, and the choice of an op's reference.
 * Inputs and outputs follow the order of the op's TensorSpecs. Without LibTorch there are none.
 */
class Reference
{
public:
    /// Whether the op can be checked in this build: it carries a TorchScript module, or a built-in
    /// reference has its name.
    static bool has(const Op &op);

    /// The op's reference on a CUDA device (-1: host memory): its TorchScript module when it has one
    /// (see ScriptedReference), otherwise the built-in reference of its name.
    static Expected<std::shared_ptr<OpReference>> forOp(const Op &op, int device);

    static bool has(const std::string &opName);
    static std::vector<std::string> names();

    /// Runs the reference and copies its results into outputs (shapes and dtypes must match the spec).
    static Status run(const std::string &opName, const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs);

    /// Runs the reference as eager PyTorch does, results allocated and dropped: what timing measures.
    static Status runEager(const std::string &opName, const std::vector<TensorView> &inputs);

    /// Runs the reference under the context's TF32 switches, as eager does, and copies its results into outputs.
    static Status runEagerInto(const std::string &opName, const std::vector<TensorView> &inputs,
                               const std::vector<TensorView> &outputs);
};

} // namespace kx
