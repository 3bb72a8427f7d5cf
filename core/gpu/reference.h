#pragma once

#include "core/gpu/tensorview.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * The LibTorch reference of each op, keyed by op name. Inputs and outputs follow the order of the op's
 * TensorSpecs. Without LibTorch there are none.
 */
class Reference
{
public:
    static bool has(const std::string &opName);
    static std::vector<std::string> names();

    /// Runs the reference and copies its results into outputs (shapes and dtypes must match the spec).
    static Status run(const std::string &opName, const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs);

    /// Runs the reference as eager PyTorch does, results allocated and dropped: what timing measures.
    static Status runEager(const std::string &opName, const std::vector<TensorView> &inputs);
};

} // namespace kx
