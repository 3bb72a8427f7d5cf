#pragma once

#include "core/gpu/tensorview.h"
#include "core/util/expected.h"

#include <vector>

namespace kx {

/**
 * What a candidate is checked and timed against: one op's PyTorch computation. Inputs and outputs
 * follow the order of the op's TensorSpecs. Made by Reference::forOp().
 */
class OpReference
{
public:
    virtual ~OpReference() = default;

    /// Runs the reference and copies its results into outputs (count, shapes and dtypes must match).
    virtual Status run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) = 0;

    /// Runs the reference as eager PyTorch does, results allocated and dropped: what timing measures.
    virtual Status runEager(const std::vector<TensorView> &inputs) = 0;

    /// Runs the reference as eager PyTorch does, under the context's TF32 switches (run() forces full fp32
    /// for its library steps), and copies its results into outputs: eager's answer under a policy.
    virtual Status runEagerInto(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
    {
        return run(inputs, outputs);
    }

    /// Runs the computation in float64 (floating-point inputs converted, integer ones as they are) and writes
    /// Float64 outputs: the exact answer an error profile is measured against.
    virtual Status runInDouble(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
    {
        (void)inputs;
        (void)outputs;
        return Error{"this reference cannot run in float64"};
    }
};

} // namespace kx
